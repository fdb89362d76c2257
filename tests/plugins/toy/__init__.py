"""A toy policy family served by Headroom as a plug-in: it lives only here, and an application
serves it when ``create_app(families=...)`` is given its declaration (``toy.declaration``).

Its clusters hold ``capacity`` tokens; a ``take`` event is granted while enough are free and
refused otherwise, a ``give`` event returns tokens. Two kinds share the engine: ``toy_counter``
grants in full or refuses, ``toy_partial`` grants what is free."""
