"""Policy families, each declared in one module here; ``registry`` gathers them.

A declaration spans the layers: its adapter (``app/policies``), its time and tick hooks
(``clocks``), its pydantic models and its routers (``app/api``), so the declarations sit above
the API, like ``app/main.py``. The service imports only the contract (``base``: ``Family``,
``FamilyRegistry``, the hook protocols) and receives the registry through its context
(``ServiceContext.families``), so adding a family changes no service module.
"""
