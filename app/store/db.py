"""Database engine setup for Postgres (production) and SQLite (embedded default)."""

from __future__ import annotations

import json
import time
from typing import Any

from sqlalchemy import Engine, create_engine, event, exc
from sqlalchemy.engine import ExceptionContext, make_url
from sqlalchemy.orm import Session, sessionmaker

from app.config import Settings


def json_text(value: Any) -> str:
    """How every JSON column is written, and how the API writes its answers (Starlette's
    JSONResponse.render, whose UTF-8 encoding ``json_bytes`` adds): no NaN or Infinity,
    characters as themselves. The database driver encodes the text as UTF-8 inside the
    transaction, so a value the API could not send (a lone surrogate, NaN) fails the
    statement, and with it the transaction, before anything is committed."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def json_bytes(value: Any) -> bytes:
    """The bytes the API sends for ``value``; ValueError (UnicodeEncodeError included) when
    it has none."""
    return json_text(value).encode("utf-8")


def make_engine(settings: Settings) -> Engine:
    url = settings.database_url
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30},
                               json_serializer=json_text)
        _sqlite_immediate_transactions(engine)
        return engine
    # A cluster's lock is held only for one decision; waiting longer than this means
    # something is stuck, and the client is better told (503) than left hanging.
    timeouts = {"lock_timeout": settings.lock_timeout_ms,
                "statement_timeout": settings.statement_timeout_ms}
    connect_args: dict[str, Any] = {
        "options": " ".join(f"-c {k}={v}" for k, v in timeouts.items()),
        # A host that does not answer (a node that died with its network) is given up on,
        # and the next host of a multi-host URL tried, after this long.
        "connect_timeout": settings.connect_timeout_seconds,
        # statement_timeout is the server's clock: a server that vanished mid-statement is
        # noticed by TCP keepalives instead, within 5 + 3 * 3 = 14 s of silence.
        "keepalives": 1, "keepalives_idle": 5, "keepalives_interval": 3, "keepalives_count": 3,
    }
    if settings.database_transaction_pooling:
        # A transaction pooler hands each transaction whichever server connection is free:
        # a statement psycopg prepared on one is missing on the next, and PgBouncer before
        # 1.20 refuses the `options` startup parameter outright.
        connect_args["prepare_threshold"] = None
        del connect_args["options"]
    query = make_url(url).query
    engine = create_engine(
        url,
        json_serializer=json_text,
        pool_size=20,
        max_overflow=20,
        connect_args={k: v for k, v in connect_args.items() if k not in query},
    )
    _ping_when_idle(engine)
    _invalidate_on_failover(engine)
    if settings.database_transaction_pooling:
        _timeouts_per_transaction(engine, timeouts)
    return engine


def _timeouts_per_transaction(engine: Engine, timeouts: dict[str, int]) -> None:
    """Set the timeouts at the start of every transaction (``SET LOCAL``: they end with it,
    so they never outlive it on a server connection another client gets next). One round
    trip more per transaction than setting them at connect."""
    sql = "SELECT " + ", ".join(f"set_config('{k}', '{v}', true)" for k, v in timeouts.items())

    @event.listens_for(engine, "begin")
    def _begin(conn):
        conn.exec_driver_sql(sql)


# A pooled connection unused this long is pinged before it is handed out.
PING_AFTER_IDLE_SECONDS = 5.0


def _ping_when_idle(engine: Engine) -> None:
    """SQLAlchemy's ``pool_pre_ping``, but only for a connection that sat idle in the pool:
    one round trip more on every transaction was measurable on the decision path, where
    connections are checked out back to back. A connection that dies while in use (the
    primary killed mid-burst) fails its next statement instead; ``_invalidate_on_failover``
    then drops it and every older pooled connection, the request answers 503 (retrying is
    safe), and the next checkout connects afresh."""

    @event.listens_for(engine, "checkin")
    def _checkin(_dbapi_conn, record):
        record.info["idle_since"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _checkout(dbapi_conn, record, _proxy):
        idle_since = record.info.get("idle_since")
        if idle_since is None or time.monotonic() - idle_since < PING_AFTER_IDLE_SECONDS:
            return
        try:
            alive = engine.dialect.do_ping(dbapi_conn)  # what pool_pre_ping runs
        except engine.dialect.loaded_dbapi.Error as error:
            raise exc.DisconnectionError(str(error)) from error  # reconnect and retry
        if not alive:
            raise exc.DisconnectionError("the connection did not answer a ping")


# SQLSTATEs after which a connection is worth nothing, though psycopg may not have marked it
# broken: the server shutting down or crashed (57P01-57P03), or a node that became read-only
# (25006: it was demoted; target_session_attrs=read-write chose it when it was the primary).
FAILOVER_SQLSTATES = frozenset({"57P01", "57P02", "57P03", "25006"})


def _invalidate_on_failover(engine: Engine) -> None:
    """Treat those errors as disconnects: SQLAlchemy then drops the connection, and with it
    every pooled connection older than it, which were to the same failed primary; the next
    checkout connects afresh (libpq picks the new primary) instead of reusing a dead one."""

    @event.listens_for(engine, "handle_error")
    def _handle_error(context: ExceptionContext) -> None:
        if getattr(context.original_exception, "sqlstate", None) in FAILOVER_SQLSTATES:
            context.is_disconnect = True


def _sqlite_immediate_transactions(engine: Engine) -> None:
    """Make every transaction ``BEGIN IMMEDIATE``: SQLite's answer to ``SELECT ... FOR UPDATE``.

    pysqlite otherwise starts transactions lazily (deferred), so two processes could both read
    a cluster and then race to write it. Taking the write lock at BEGIN serialises them.
    """

    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn, _record):
        dbapi_conn.isolation_level = None  # we issue BEGIN ourselves
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA busy_timeout=30000")
        cur.close()

    @event.listens_for(engine, "begin")
    def _begin(conn):
        conn.exec_driver_sql("BEGIN IMMEDIATE")


def make_sessionmaker(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)
