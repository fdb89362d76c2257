"""Headroom behind a real PgBouncer in transaction pooling mode (issue #60).

What a transaction pooler breaks, and what HEADROOM_DATABASE_TRANSACTION_POOLING does about
it: PgBouncer 1.18 refuses the ``options`` startup parameter Headroom sets its timeouts with,
and a statement psycopg prepared on one server connection is missing on the next. With the
setting, many client connections from two workers share a few server connections, every
decision is logged once and replays, and the lock timeout still holds (set per transaction).
The failover run behind PgBouncer is tests/ha/test_failover.py.
"""

from __future__ import annotations

import asyncio
import random
import threading

import httpx
import psycopg
import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError

from app.config import Settings
from app.store.db import make_engine
from tests.conftest import IN_CI
from tests.helpers import cluster_spec
from tests.live import LiveServer
from tests.load import LoadResult, Orchestrator, Sent, audit
from tests.pgbouncer import PgBouncer, missing_tools

pytestmark = [pytest.mark.postgres]
POOL = 3  # server connections PgBouncer may open to the database


@pytest.fixture
def bouncer():
    missing = missing_tools()
    if missing:
        msg = f"needs {missing}: apt-get install pgbouncer (.ci/run installs it)"
        if IN_CI:
            pytest.fail(msg, pytrace=False)
        pytest.skip(msg)
    b = PgBouncer("127.0.0.1:5432", pool_size=POOL).start()
    try:
        yield b
    finally:
        b.close()


def _through(bouncer: PgBouncer, postgres_url: str) -> str:
    return bouncer.url(make_url(postgres_url).database)


def test_without_the_setting_pgbouncer_refuses_the_connection(bouncer, postgres_url):
    engine = make_engine(Settings(database_url=_through(bouncer, postgres_url)))
    try:
        with pytest.raises(OperationalError, match="unsupported startup parameter"):
            with engine.connect():
                pass
    finally:
        engine.dispose()


def test_the_timeouts_hold_in_every_transaction(bouncer, postgres_url):
    settings = Settings(database_url=_through(bouncer, postgres_url), lock_timeout_ms=750,
                        statement_timeout_ms=4_000, database_transaction_pooling=True)
    engine = make_engine(settings)
    try:
        for _ in range(3 * POOL):  # whichever server connection each transaction gets
            with engine.begin() as conn:
                assert conn.execute(text("SHOW lock_timeout")).scalar() == "750ms"
                assert conn.execute(text("SHOW statement_timeout")).scalar() == "4s"
        # ... and only there: a server connection handed on keeps no setting of ours.
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            assert conn.execute(text("SHOW lock_timeout")).scalar() == "0"
    finally:
        engine.dispose()


def test_a_held_cluster_answers_busy_after_the_lock_timeout(bouncer, postgres_url):
    env = {"HEADROOM_DATABASE_TRANSACTION_POOLING": "true", "HEADROOM_LOCK_TIMEOUT_MS": "500"}
    with LiveServer(_through(bouncer, postgres_url), env=env) as server:
        with server.client() as c:
            cid = c.post("/v1/clusters", json=cluster_spec()).json()["id"]
            direct = psycopg.connect(make_url(postgres_url).set(drivername="postgresql")
                                     .render_as_string(hide_password=False))
            try:
                direct.execute("SELECT 1 FROM clusters WHERE id = %s FOR UPDATE", (cid,))
                r = c.post(f"/v1/clusters/{cid}/arrivals",
                           json={"event_id": "e1", "job_id": "j1", "job_type": "small"})
                assert r.status_code == 503, r.text
                assert r.json()["code"] == "cluster_busy"
            finally:
                direct.close()
            r = c.post(f"/v1/clusters/{cid}/arrivals",
                       json={"event_id": "e1", "job_id": "j1", "job_type": "small"})
            assert r.status_code == 200 and r.json()["event_seq"] == 1, r.text


def test_two_workers_share_a_few_server_connections_and_lose_nothing(bouncer, postgres_url):
    url = _through(bouncer, postgres_url)
    result = LoadResult()
    held: list[int] = []
    with LiveServer(url, workers=2, env={"HEADROOM_DATABASE_TRANSACTION_POOLING": "true"}
                    ) as server:
        with server.client() as c:
            cids = [c.post("/v1/clusters", json=cluster_spec(name=f"pooled-{i}")).json()["id"]
                    for i in range(4)]
        stop = threading.Event()

        def watch() -> None:
            while not stop.wait(0.2):
                held.append(bouncer.servers(make_url(postgres_url).database))

        watcher = threading.Thread(target=watch)
        watcher.start()
        try:
            asyncio.run(_drive(server.url, server.headers, cids, result, per_client=60))
        finally:
            stop.set()
            watcher.join()
        clients = bouncer.clients(make_url(postgres_url).database)
    assert not result.errors and not result.unanswered, (result.errors[:3], result.unanswered)
    # More client connections than server connections: that is what pooling is for.
    assert max(held) <= POOL, held
    assert clients > POOL, clients
    for cid in cids:
        mine = LoadResult({e: s for e, s in result.sent.items() if f"/{cid}/" in s.path})
        stats = audit(postgres_url, cid, mine)
        assert stats["answered"] == len(mine.sent) > 0


async def _drive(base: str, headers: dict[str, str], cids: list[str], result: LoadResult,
                 per_client: int) -> None:
    """Eight orchestrators, two per cluster, as fast as answers come."""

    async def one(n: int) -> None:
        cid = cids[n % len(cids)]
        orch = Orchestrator(n, cid, random.Random(n))
        async with httpx.AsyncClient(base_url=base, headers=headers, timeout=60) as http:
            for _ in range(per_client):
                path, body = orch.next_request()
                sent = result.sent[body["event_id"]] = Sent(path, body)
                r = await http.post(path, json=body)
                if r.status_code != 200:
                    result.errors.append((r.status_code, r.text))
                    continue
                sent.answers.append(r.json())
                if path.endswith("arrivals") and r.json()["decision"] == "placed":
                    orch.running.append(body["job_id"])

    await asyncio.gather(*(one(n) for n in range(8)))


def test_the_shipped_file_is_what_the_harness_runs():
    import configparser

    from tests.pgbouncer import SHIPPED
    ini = configparser.ConfigParser(interpolation=None)
    ini.read(SHIPPED)
    s = ini["pgbouncer"]
    assert s["pool_mode"] == "transaction"
    # Failover: retry a server within a second, and a queued query answers within seconds.
    assert int(s["server_login_retry"]) <= 1
    assert int(s["query_wait_timeout"]) <= 10
    harness = PgBouncer("127.0.0.1:1")
    try:
        config = harness.config()
    finally:
        harness.close()
    for key in ("pool_mode", "server_login_retry", "query_wait_timeout"):
        assert f"{key} = {s[key]}" in config
