"""Which packages the wheel holds; all other metadata is in pyproject.toml.

Alembic's migrations/ stays at the top of the repository, where developers look for it, and
ships inside the package as ``app.migrations`` so that a plain ``pip install .`` (a wheel, a
Docker build without -e) can run ``headroom migrate``. pyproject.toml alone cannot both find
packages and map a folder from elsewhere into one, hence this file.
"""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["app", "app.*"]),
              "app.migrations", "app.migrations.versions"],
    package_dir={"app.migrations": "migrations"},
    # The dashboard's HTML, JS modules and CSS (app/dashboard, served at /dashboard).
    package_data={"app.migrations": ["script.py.mako"], "app.dashboard": ["static/*"]},
)
