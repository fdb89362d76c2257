"""One decider per cluster on a host (app/service/affinity.py), with real processes:
``headroom serve --workers 2`` on Postgres, clients on fresh connections so that both workers
take requests for every cluster.

- Each cluster's events, single or in batches, are decided by one worker: they reach both
  workers, some are forwarded, and no engine ever catches up on what the other decided.
- A worker killed (SIGKILL) under load, then the other: every event a client sent (retried
  with its id until answered) is in the log exactly once, with the answer the client got,
  and no request was answered 500.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, text

from tests.helpers import cluster_spec
from tests.live import LiveServer

pytestmark = pytest.mark.postgres

CLUSTERS = 4


def _metric(url: str, name: str, label: str = "") -> float:
    body = httpx.get(url + "/metrics", timeout=30).text
    return sum(float(line.split()[-1]) for line in body.splitlines()
               if line.startswith((name + " ", name + "{")) and label in line)


def _send(url: str, headers: dict[str, str], cid: str, event: dict[str, Any],
          statuses: list[int]) -> dict[str, Any]:
    """POST one event on a fresh connection, retried with the same id until it is answered
    (a killed worker drops its connections; a 503 asks for a retry)."""
    kind = "arrivals" if "job_type" in event else "departures"
    deadline = time.monotonic() + 120
    while True:
        try:
            with httpx.Client(base_url=url, headers=headers, timeout=30) as client:
                r = client.post(f"/v1/clusters/{cid}/{kind}", json=event)
        except httpx.TransportError:
            r = None
        if r is not None:
            statuses.append(r.status_code)
            if r.status_code != 503:
                assert r.status_code == 200, r.text
                return r.json()
        assert time.monotonic() < deadline, "an event was never answered"
        time.sleep(0.05)


def _stream(url: str, headers: dict[str, str], cid: str, prefix: str, count: int,
            answers: dict[tuple[str, str], dict[str, Any]], statuses: list[int]) -> None:
    """Arrivals and departures of one cluster, each job leaving after the next arrives."""
    for i in range(count):
        event = {"event_id": f"{prefix}a{i}", "job_id": f"{prefix}j{i}", "job_type": "small"}
        answers[cid, event["event_id"]] = _send(url, headers, cid, event, statuses)
        if i:
            event = {"event_id": f"{prefix}d{i - 1}", "job_id": f"{prefix}j{i - 1}"}
            answers[cid, event["event_id"]] = _send(url, headers, cid, event, statuses)


def _batch(url: str, headers: dict[str, str], cid: str, prefix: str,
           answers: dict[tuple[str, str], dict[str, Any]]) -> None:
    """Three jobs arrive and leave in one events:batch."""
    events = [{"kind": "arrival", "event_id": f"{prefix}a{i}", "job_id": f"{prefix}j{i}",
               "job_type": "small"} for i in range(3)]
    events += [{"kind": "departure", "event_id": f"{prefix}d{i}", "job_id": f"{prefix}j{i}"}
               for i in range(3)]
    with httpx.Client(base_url=url, headers=headers, timeout=30) as client:
        r = client.post(f"/v1/clusters/{cid}/events:batch", json={"events": events})
    assert r.status_code == 200, r.text
    for event, answer in zip(events, r.json()["results"], strict=True):
        answers[cid, event["event_id"]] = answer


def _audit(url: str, answers: dict[tuple[str, str], dict[str, Any]]) -> None:
    """Every answered event is in the log once, at the seq and with the decision answered;
    nothing else is."""
    engine = create_engine(url)
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT cluster_id, event_id, seq, decision FROM events")).all()
    engine.dispose()
    logged = {(r.cluster_id, r.event_id): (r.seq, r.decision) for r in rows}
    assert len(logged) == len(rows)
    assert logged.keys() == answers.keys()
    for key, answer in answers.items():
        assert logged[key] == (answer["event_seq"], answer["decision"]), key


def test_each_cluster_is_decided_by_one_worker_which_may_die(postgres_url):
    with LiveServer(postgres_url, workers=2) as server:
        with server.client() as client:
            ids = [client.post("/v1/clusters", json=cluster_spec(f"a{i}", servers=8)
                               ).json()["id"] for i in range(CLUSTERS)]
        answers: dict[tuple[str, str], dict[str, Any]] = {}
        statuses: list[int] = []

        # Until both workers took requests of a cluster the other one decides.
        deadline, rounds = time.monotonic() + 90, 0
        while _metric(server.url, "headroom_forwarded_events_total", "answered") < 20 \
                or rounds < 3:
            assert time.monotonic() < deadline, "no event was forwarded"
            for cid in ids:
                _stream(server.url, server.headers, cid, f"r{rounds}-", 10, answers, statuses)
                _batch(server.url, server.headers, cid, f"b{rounds}-", answers)
            rounds += 1
        assert _metric(server.url, "headroom_catch_up_replayed_events_total") == 0
        assert _metric(server.url, "headroom_forwarded_events_total", "owner_unreachable") == 0

        # Kill each worker in turn under load; clients retry until answered.
        threads = [threading.Thread(target=_stream, args=(
            server.url, server.headers, cid, f"k{n}-", 60, answers, statuses))
            for n, cid in enumerate(ids * 2)]
        for t in threads:
            t.start()
        for _ in range(2):
            time.sleep(1.5)
            victim = server.workers()[0]
            os.kill(victim, signal.SIGKILL)
            deadline = time.monotonic() + 90
            while victim in server.workers() or len(server.workers()) < 2:
                assert time.monotonic() < deadline, "the dead worker was not replaced"
                time.sleep(0.2)
        for t in threads:
            t.join(timeout=300)
            assert not t.is_alive()
        assert 500 not in statuses
    _audit(postgres_url, answers)
