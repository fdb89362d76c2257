"""Fixtures: a fresh Postgres database per test session, SQLite per test, app and clients.

The same API tests run on SQLite and on Postgres (the ``db_url`` fixture is parametrised).
Postgres tests skip on a laptop without a server, but never in CI: with CI=true a missing
server is an error, so a green CI always means the Postgres tests ran.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import psycopg
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text

from app.config import POSTGRES_LIMITS, Settings
from app.main import create_app
from app.service.auth import create_key
from app.store.migrate import upgrade

PG_ADMIN_URL = os.environ.get("HEADROOM_TEST_POSTGRES_URL",
                              "postgresql://postgres@127.0.0.1:5432/test")
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
TABLES = ("what_ifs", "events", "snapshots", "idempotency_keys", "api_keys", "clusters",
          "moment_calibrations")


def _admin_conn() -> psycopg.Connection:
    # A stopped server refuses at once; the timeout is only for a loaded machine, where a new
    # backend can take seconds to start (3 s once failed a fixture's setup beside another
    # run), and in CI a timeout here would fail every Postgres test.
    return psycopg.connect(PG_ADMIN_URL, autocommit=True, connect_timeout=30)


def postgres_available() -> bool:
    try:
        with _admin_conn():
            return True
    except psycopg.OperationalError:
        return False


def _require_postgres() -> None:
    if postgres_available():
        return
    if IN_CI:
        pytest.fail(f"PostgreSQL is not reachable at {PG_ADMIN_URL}; CI must run these tests",
                    pytrace=False)
    pytest.skip(f"PostgreSQL is not reachable at {PG_ADMIN_URL}")


def sqlalchemy_url(dbname: str) -> str:
    base = PG_ADMIN_URL.replace("postgresql://", "postgresql+psycopg://", 1)
    return base.rsplit("/", 1)[0] + "/" + dbname


class FreshDatabase:
    """CREATE DATABASE on entry, DROP on exit: each user gets an empty, private database."""

    def __init__(self, prefix: str = "headroom_t"):
        self.name = f"{prefix}_{uuid.uuid4().hex[:12]}"
        self.url = sqlalchemy_url(self.name)

    def __enter__(self) -> FreshDatabase:
        with _admin_conn() as conn:
            conn.execute(f'CREATE DATABASE "{self.name}"')
        return self

    def __exit__(self, *exc: object) -> None:
        with _admin_conn() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """A migrated Postgres database shared by the session; tables are emptied per test."""
    _require_postgres()
    with FreshDatabase() as db:
        upgrade(Settings(database_url=db.url))
        yield db.url


def _truncate(url: str) -> None:
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(text(f"TRUNCATE {', '.join(TABLES)} CASCADE"))
    engine.dispose()


@pytest.fixture
def sqlite_url(tmp_path) -> str:
    url = f"sqlite:///{tmp_path / 'headroom.db'}"
    upgrade(Settings(database_url=url))
    return url


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request) -> str:
    if request.param == "sqlite":
        return request.getfixturevalue("sqlite_url")
    url = request.getfixturevalue("pg_url")
    _truncate(url)
    return url


@pytest.fixture
def postgres_url(pg_url) -> str:
    """Postgres only, emptied: for tests about locking and transactions."""
    _truncate(pg_url)
    return pg_url


# The request limits are on by default with Postgres; the suite's clients send bursts no
# orchestrator does (and the tests of the limits set their own numbers).
LIMITS_OFF = dict.fromkeys(POSTGRES_LIMITS, 0)
# Moment declarations outside the table are calibrated in the background; the suite's apps
# run none unless a test asks (tests/service/test_calibrator.py), so that no test's CPU is
# another's child process.
BACKGROUND_OFF = {"calibration_workers": 0, "what_if_workers": 0}


def make_settings(url: str, **overrides) -> Settings:
    return Settings(database_url=url, **{**LIMITS_OFF, **BACKGROUND_OFF, **overrides})


@pytest.fixture
def app(db_url):
    return create_app(make_settings(db_url), configure_logs=False)


def admin_client(app, owner: str = "default", **client_options) -> TestClient:
    """A client of ``app`` carrying a fresh admin key of ``owner``. Pass
    ``raise_server_exceptions=False`` to get a 500 answer instead of the exception."""
    key = create_key(app.state.ctx, owner, ["admin"])["key"]
    return TestClient(app, headers={"Authorization": f"Bearer {key}"}, **client_options)


@pytest.fixture
def client(app) -> Iterator[TestClient]:
    with admin_client(app) as c:
        yield c
