"""Run the Alembic migrations in ``migrations/`` (``app.migrations`` when installed) without an
alembic.ini file.

The schema is made only here, in production and in tests alike.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine

from app.config import Settings


def migrations_dir(settings: Settings | None = None) -> Path:
    """The migrations folder: the setting, else the one installed in the package
    (``app/migrations``, see setup.py), else the source tree's top-level ``migrations/``."""
    if settings is not None and settings.migrations_dir is not None:
        return settings.migrations_dir
    app_dir = Path(__file__).resolve().parents[1]
    # The package's own copy first: in an installed package the "source tree" parent is
    # site-packages, where an unrelated top-level ``migrations`` may live.
    for path in (app_dir / "migrations", app_dir.parent / "migrations"):
        if (path / "env.py").is_file():
            return path
    raise RuntimeError(
        "cannot find the migrations/ folder; set HEADROOM_MIGRATIONS_DIR to its path")


def alembic_config(settings: Settings) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(migrations_dir(settings)))
    # '%' is ConfigParser interpolation syntax; URLs may contain it in passwords.
    cfg.set_main_option("sqlalchemy.url", settings.database_url.replace("%", "%%"))
    return cfg


def upgrade(settings: Settings, revision: str = "head") -> None:
    command.upgrade(alembic_config(settings), revision)


def downgrade(settings: Settings, revision: str = "base") -> None:
    command.downgrade(alembic_config(settings), revision)


@lru_cache
def head_revision(script_location: str) -> str | None:
    cfg = Config()
    cfg.set_main_option("script_location", script_location)
    return ScriptDirectory.from_config(cfg).get_current_head()


def current_revision(settings: Settings) -> str | None:
    """The revision the database is at (None: no schema yet)."""
    from app.store.db import make_engine

    engine = make_engine(settings)
    try:
        with engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()
    finally:
        engine.dispose()


def is_at_head(engine: Engine, settings: Settings) -> tuple[bool, str | None, str | None]:
    """(at head?, current revision, head revision) — what /readyz reports."""
    head = head_revision(str(migrations_dir(settings)))
    with engine.connect() as conn:
        current = MigrationContext.configure(conn).get_current_revision()
    return current == head, current, head
