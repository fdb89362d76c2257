"""Reliability under real processes on Postgres: concurrent clients with retry storms, a killed
worker, a restarted database. Each run ends with an audit of the log against every answer the
clients received (tests/load.py)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import threading
import time

import pytest

from tests.helpers import cluster_spec
from tests.live import LiveServer
from tests.load import LoadResult, audit, drive, replay

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

# Per request, resends included; far above a loaded run's worst lock wait (lock_timeout 5 s).
ANSWER_WITHIN_S = 180.0
SPEC = cluster_spec(servers=40, policy={"kind": "dra", "reservation": {"slots": 3}})


def _setup(server: LiveServer) -> tuple[str, int, str]:
    with server.client() as c:
        r = c.post("/v1/clusters", json=SPEC)
        assert r.status_code == 201, r.text
        cid = r.json()["id"]
    host, port = server.url.removeprefix("http://").split(":")
    return host, int(port), cid


def test_32_clients_20000_events_with_retry_storms(postgres_url):
    """≥ 32 concurrent clients, ≥ 20,000 distinct events, each request sent 1-3 times (some
    copies racing their original) against 3 worker processes; then the full audit.

    Every copy is resent until answered (a dropped connection or a 503 busy, as a real client
    would, within a generous per-request deadline): on a loaded machine a copy could wait out
    the lock timeout or find its idle keep-alive connection closed, and the run failed with
    "unanswered" events although nothing was wrong. The audit is unchanged: every answer must
    be in the log with the same decision, every 4xx or 500 is an error, nothing unanswered."""
    result = LoadResult()
    with LiveServer(postgres_url, workers=3, extra_args=("--no-migrate",)) as server:
        host, port, cid = _setup(server)
        started = time.monotonic()
        asyncio.run(drive(host, port, server.headers, cid, clients=32, events_per_client=625,
                          seed=1, result=result, answer_within=ANSWER_WITHIN_S))
        elapsed = time.monotonic() - started
    assert not result.unanswered and not result.errors, (result.unanswered[:5],
                                                         result.errors[:5])
    copies = sum(len(s.answers) for s in result.sent.values())
    stats = audit(postgres_url, cid, result)
    assert stats["events"] == len(result.sent) == 20_000
    assert copies > 27_000, "the storm really retried"
    print(f"\n{stats['events']} events, {copies} answered copies in {elapsed:.1f} s")


def test_killed_worker_and_restarted_database(postgres_url):
    """SIGKILL a worker mid-load, then restart Postgres mid-load: every answer a client got is
    in the log, nothing unanswered is half-applied, and replaying the unanswered requests with
    their own event ids converges to a consistent state."""
    result = LoadResult()
    with LiveServer(postgres_url, workers=2, extra_args=("--no-migrate",)) as server:
        host, port, cid = _setup(server)

        def chaos() -> None:
            time.sleep(2.0)
            workers = server.workers()
            assert workers, "uvicorn workers not found"
            os.kill(workers[0], signal.SIGKILL)
            time.sleep(3.0)
            _restart_postgres()

        t = threading.Thread(target=chaos)
        t.start()
        asyncio.run(drive(host, port, server.headers, cid, clients=16, events_per_client=500,
                          seed=2, result=result, retries=False))
        t.join()
        _wait_ready(server)
        asyncio.run(replay(host, port, server.headers, result))
    assert not result.errors, result.errors[:5]
    assert all(s.answers for s in result.sent.values()), "a replayed request went unanswered"
    stats = audit(postgres_url, cid, result)
    assert stats["events"] == len(result.sent)
    print(f"\n{len(result.unanswered)} requests unanswered by the faults, all replayed; "
          f"{stats['events']} events in the log")


def _restart_postgres() -> None:
    version = sorted(os.listdir("/etc/postgresql"))[0]
    subprocess.run(["pg_ctlcluster", "--skip-systemctl-redirect", version, "main", "restart"],
                   check=True, capture_output=True, timeout=120)


def _wait_ready(server: LiveServer) -> None:
    import httpx

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(server.url + "/readyz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise AssertionError("server did not become ready again")
