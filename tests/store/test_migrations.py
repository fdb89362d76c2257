"""Migrations are the only way a schema is made: they must go up, down and up again, and the
result must be exactly what the SQLAlchemy models describe."""

from __future__ import annotations

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, inspect

from app.store.migrate import downgrade, upgrade
from app.store.models import Base
from tests.conftest import FreshDatabase, _require_postgres, make_settings

TABLES = {"clusters", "events", "snapshots", "idempotency_keys", "api_keys", "moment_calibrations",
          "what_ifs",
          "alembic_version"}


def _tables(url: str) -> set[str]:
    engine = create_engine(url)
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def _diff(url: str) -> list:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return compare_metadata(MigrationContext.configure(conn), Base.metadata)
    finally:
        engine.dispose()


def _round_trip(url: str) -> None:
    settings = make_settings(url)
    upgrade(settings)
    assert _tables(url) == TABLES
    assert _diff(url) == []
    downgrade(settings, "base")
    assert _tables(url) <= {"alembic_version"}
    upgrade(settings)
    assert _tables(url) == TABLES
    assert _diff(url) == []


@pytest.mark.postgres
def test_upgrade_downgrade_upgrade_on_fresh_postgres():
    _require_postgres()
    with FreshDatabase("headroom_mig") as db:
        _round_trip(db.url)


def test_upgrade_downgrade_upgrade_on_sqlite(tmp_path):
    _round_trip(f"sqlite:///{tmp_path / 'm.db'}")
