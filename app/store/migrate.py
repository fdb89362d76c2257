"""Run the Alembic migrations in ``migrations/`` without an alembic.ini file.

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
    """The migrations folder: the setting, else beside the source tree, else the cwd's."""
    if settings is not None and settings.migrations_dir is not None:
        return settings.migrations_dir
    candidates = [Path(__file__).resolve().parents[2] / "migrations", Path.cwd() / "migrations"]
    for path in candidates:
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


def is_at_head(engine: Engine, settings: Settings) -> tuple[bool, str | None, str | None]:
    """(at head?, current revision, head revision) — what /readyz reports."""
    head = head_revision(str(migrations_dir(settings)))
    with engine.connect() as conn:
        current = MigrationContext.configure(conn).get_current_revision()
    return current == head, current, head
