"""Multi-host Postgres URLs and what a failover does to pooled connections (issue #60).

The Patroni run itself is tests/ha/test_failover.py; these pin the pieces on their own: the
URL forms accepted, the connection settings, and that a node turned read-only (as a demoted
primary is) answers 503 database_unavailable and leaves no poisoned connection in the pool.
"""

from __future__ import annotations

import pytest
from sqlalchemy import create_engine, event, text
from sqlalchemy.dialects.postgresql.psycopg import PGDialect_psycopg
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError

from app.config import Settings
from app.main import create_app
from app.store import db
from app.store.db import make_engine
from app.store.multihost import normalise
from tests.conftest import admin_client, make_settings
from tests.helpers import assert_problem, cluster_spec

THREE = "127.0.0.1:5001,127.0.0.1:5002,127.0.0.1:5003"
WANT = ("postgresql+psycopg://postgres@/headroom?host=127.0.0.1:5001&host=127.0.0.1:5002"
        "&host=127.0.0.1:5003&target_session_attrs=read-write")


@pytest.mark.parametrize("written", [
    f"postgresql://postgres@/headroom?host={THREE}&target_session_attrs=read-write",
    f"postgres://postgres@{THREE}/headroom?target_session_attrs=read-write",
    f"postgresql+psycopg://postgres@/headroom?host={THREE}&target_session_attrs=read-write",
    WANT,
])
def test_libpq_host_lists_become_what_sqlalchemy_reads(written):
    url = Settings(database_url=written).database_url
    assert url == WANT
    args = PGDialect_psycopg().create_connect_args(make_url(url))[1]
    assert args["host"] == "127.0.0.1,127.0.0.1,127.0.0.1"
    assert args["port"] == "5001,5002,5003"
    assert args["target_session_attrs"] == "read-write"


@pytest.mark.parametrize("url", [
    "postgresql+psycopg://u:p@db:5432/headroom",
    "postgresql+psycopg://u@/headroom?host=a,b&port=5432,5433",  # libpq's other spelling
    "sqlite:///./a,b.db",
])
def test_other_urls_are_left_alone(url):
    assert normalise(url) == url


def test_connection_settings_bound_every_wait():
    kwargs = _connect_kwargs(Settings(database_url=WANT, connect_timeout_seconds=7))
    assert kwargs["connect_timeout"] == 7 and kwargs["keepalives"] == 1
    assert "statement_timeout=" in kwargs["options"]
    assert kwargs["target_session_attrs"] == "read-write"
    assert kwargs["port"] == "5001,5002,5003"
    # A value the URL sets wins over the default.
    assert _connect_kwargs(Settings(database_url=WANT + "&connect_timeout=2")
                           )["connect_timeout"] == "2"


def _connect_kwargs(settings: Settings) -> dict:
    """What make_engine's engine hands psycopg.connect (captured, nothing connects)."""
    seen: dict = {}
    engine = make_engine(settings)

    @event.listens_for(engine, "do_connect")
    def _capture(dialect, conn_rec, cargs, cparams):
        seen.update(cparams)
        raise RuntimeError("captured")

    with pytest.raises(RuntimeError, match="captured"):
        engine.connect()
    engine.dispose()
    return seen


@pytest.mark.postgres
def test_a_read_only_node_is_a_503_and_its_connections_are_dropped(postgres_url):
    """What a pooled connection to a demoted primary meets: 25006 read_only_sql_transaction.
    It must answer 503 with Retry-After (never 500), and the pool must not hand that
    connection out again: once the node takes writes, the next request succeeds."""
    app = create_app(make_settings(postgres_url), configure_logs=False)
    db = make_url(postgres_url).database
    admin = create_engine(postgres_url, isolation_level="AUTOCOMMIT")
    try:
        with admin_client(app, raise_server_exceptions=False) as c:
            cid = c.post("/v1/clusters", json=cluster_spec(policy={"kind": "first_fit"})
                         ).json()["id"]
            arrive = lambda n: c.post(f"/v1/clusters/{cid}/arrivals",
                                      json={"event_id": f"e{n}", "job_id": f"j{n}",
                                            "job_type": "small"})
            assert arrive(0).json()["event_seq"] == 1
            # The node turns read-only under the pool, as a demoted primary comes back: its
            # sessions end (pre-ping reconnects) and new sessions refuse every write.
            with admin.connect() as conn:
                conn.execute(text(f'ALTER DATABASE "{db}" SET default_transaction_read_only = on'))
                conn.execute(text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                  "WHERE datname = :d AND pid <> pg_backend_pid()"), {"d": db})
            r = arrive(1)
            assert_problem(r, 503, "database_unavailable")
            assert r.headers["Retry-After"] == "1"
            with admin.connect() as conn:
                conn.execute(text(f'ALTER DATABASE "{db}" RESET default_transaction_read_only'))
            # The same event id again: decided once, at the next seq.
            assert arrive(1).json()["event_seq"] == 2
            assert arrive(1).json()["replayed"] is True
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'ALTER DATABASE "{db}" RESET default_transaction_read_only'))
        admin.dispose()
        app.state.ctx.close()


@pytest.mark.postgres
def test_read_only_error_invalidates_the_connection(postgres_url):
    engine = make_engine(Settings(database_url=postgres_url))
    try:
        with engine.connect() as conn:
            conn.execute(text("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY"))
            conn.commit()
            with pytest.raises(DBAPIError) as caught:
                conn.execute(text("CREATE TEMP TABLE t (x int)"))
            assert caught.value.connection_invalidated
        with engine.connect() as conn:  # a new connection, not the read-only one
            assert conn.execute(text("SHOW transaction_read_only")).scalar_one() == "off"
    finally:
        engine.dispose()


@pytest.mark.postgres
@pytest.mark.parametrize("idle_enough", [True, False])
def test_a_connection_that_idled_is_pinged_and_replaced_one_in_use_is_not(
        postgres_url, monkeypatch, idle_enough):
    """The pool pings a connection only after it sat idle (app/store/db.py): one killed
    while idle is replaced before the caller sees it; without the idle time the same dead
    connection reaches the caller, whose statement fails and drops it."""
    monkeypatch.setattr(db, "PING_AFTER_IDLE_SECONDS", 0.0 if idle_enough else 3600.0)
    engine = make_engine(Settings(database_url=postgres_url))
    try:
        with engine.connect() as conn:
            pid = conn.execute(text("SELECT pg_backend_pid()")).scalar_one()
        with engine.connect() as other:  # the pool's only connection, checked out again
            assert other.execute(text("SELECT pg_backend_pid()")).scalar_one() == pid
        killer = create_engine(postgres_url)
        with killer.begin() as conn:
            assert conn.execute(text("SELECT pg_terminate_backend(:p)"), {"p": pid}).scalar()
        killer.dispose()
        if idle_enough:
            with engine.connect() as conn:
                assert conn.execute(text("SELECT pg_backend_pid()")).scalar_one() != pid
        else:
            with pytest.raises(DBAPIError) as raised, engine.connect() as conn:
                conn.execute(text("SELECT 1"))
            assert raised.value.connection_invalidated
            with engine.connect() as conn:  # dropped: the next checkout connects afresh
                assert conn.execute(text("SELECT pg_backend_pid()")).scalar_one() != pid
    finally:
        engine.dispose()
