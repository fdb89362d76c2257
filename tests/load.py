"""A mixed arrival/departure load against one cluster, with retries, for reliability tests.

Each simulated orchestrator keeps its own jobs, sends each request once, twice in a row, twice
at the same time (a retry racing its original), or three times (two racing, one after), and
records every answer it received.
Requests that got no answer (connection reset, server killed) are kept to be replayed later
with the same event ids.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass, field
from typing import Any

from app.bench.rawhttp import RawConnection

JOB_TYPES = ("small", "large")


@dataclass
class Sent:
    path: str
    body: dict[str, Any]
    answers: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class LoadResult:
    sent: dict[str, Sent] = field(default_factory=dict)  # event_id -> request and answers
    unanswered: list[str] = field(default_factory=list)
    errors: list[tuple[int, Any]] = field(default_factory=list)


class Orchestrator:
    def __init__(self, n: int, cid: str, rng: random.Random, clock: bool = False):
        """``clock``: the cluster keeps the client's time; every event says when (``at``,
        moving on by 0.01 with every request)."""
        self.n, self.cid, self.rng, self.clock = n, cid, rng, clock
        self.running: list[str] = []
        self.count = 0

    def next_request(self) -> tuple[str, dict[str, Any]]:
        self.count += 1
        eid = f"o{self.n}-e{self.count}"
        at = {"at": self.count / 100} if self.clock else {}
        if self.running and self.rng.random() < 0.45:
            job = self.running.pop(self.rng.randrange(len(self.running)))
            return f"/v1/clusters/{self.cid}/departures", {"event_id": eid, "job_id": job, **at}
        job = f"o{self.n}-j{self.count}"
        return f"/v1/clusters/{self.cid}/arrivals", {
            "event_id": eid, "job_id": job, "job_type": self.rng.choice(JOB_TYPES), **at}

    def note(self, path: str, body: dict[str, Any], answer: dict[str, Any]) -> None:
        """A job the cluster holds (placed, or waiting or started on a queued cluster) may
        depart later."""
        if path.endswith("arrivals") and answer["decision"] in ("placed", "queued", "started"):
            self.running.append(body["job_id"])


TRANSPORT_ERRORS = (ConnectionError, asyncio.IncompleteReadError, OSError, ValueError)


async def send_until_answered(conn: RawConnection, path: str, body: dict[str, Any],
                              deadline: float | None) -> tuple[int, Any]:
    """POST once, or (with a ``deadline``, time.monotonic()) resend the same request, same
    event id, after a dropped connection or a ``503 cluster_busy`` until it gets any other
    answer. This is what a real orchestrator does, and it is safe because the event id makes
    every resend a replay. Other answers, 500s included, are returned as they are, so the
    audit judges them. At the deadline the last failure stands."""
    delay = 0.05
    while True:
        try:
            status, answer = await conn.post_json(path, body)
            if status != 503 or deadline is None or time.monotonic() >= deadline:
                return status, answer
        except TRANSPORT_ERRORS:
            await conn.close()  # a half-read connection cannot be reused
            if deadline is None or time.monotonic() >= deadline:
                raise
        await asyncio.sleep(delay)
        delay = min(2 * delay, 1.0)


async def drive(host: str, port: int, headers: dict[str, str], cid: str, clients: int,
                events_per_client: int, seed: int, result: LoadResult,
                retries: bool = True, answer_within: float | None = None) -> None:
    """``answer_within`` (seconds per request): resend a request the server dropped or was
    too busy to decide (send_until_answered) instead of giving up at once. A loaded machine
    then makes the run slower, not red; without it each failure is recorded as unanswered."""
    async def one(n: int) -> None:
        rng = random.Random(seed * 10_000 + n)
        orch = Orchestrator(n, cid, rng)
        a, b = RawConnection(host, port, headers), RawConnection(host, port, headers)
        for _ in range(events_per_client):
            path, body = orch.next_request()
            sent = result.sent[body["event_id"]] = Sent(path, body)
            mode = rng.random() if retries else 1.0
            deadline = None if answer_within is None else time.monotonic() + answer_within

            def post(conn: RawConnection, path: str = path, body: dict[str, Any] = body,
                     deadline: float | None = deadline) -> Any:
                return send_until_answered(conn, path, body, deadline)

            copies: list[Any]
            try:
                if mode < 0.15:  # a retry racing its original, and a third after both
                    copies = list(await asyncio.gather(post(a), post(b)))
                    copies.append(await post(a))
                elif mode < 0.3:  # a retry racing its original
                    copies = await asyncio.gather(post(a), post(b))
                elif mode < 0.45:  # a retry after the answer
                    copies = [await post(a), await post(a)]
                else:
                    copies = [await post(a)]
            except TRANSPORT_ERRORS:
                result.unanswered.append(body["event_id"])
                await a.close()
                await b.close()
                # A job whose arrival may or may not have happened is not departed later.
                continue
            if all(status >= 500 for status, _ in copies):
                result.unanswered.append(body["event_id"])  # e.g. the database restarting
                continue
            for status, answer in copies:
                if status == 200:
                    sent.answers.append(answer)
                else:
                    result.errors.append((status, answer))
            if sent.answers and path.endswith("arrivals") \
                    and sent.answers[0]["decision"] == "placed":
                orch.running.append(body["job_id"])
        await a.close()
        await b.close()

    await asyncio.gather(*(one(n) for n in range(clients)))


async def replay(host: str, port: int, headers: dict[str, str], result: LoadResult) -> None:
    """Send every unanswered request again, with its own event id, until each is answered."""
    conn = RawConnection(host, port, headers)
    for eid in result.unanswered:
        sent = result.sent[eid]
        status, answer = await conn.post_json(sent.path, sent.body)
        if status == 200:
            sent.answers.append(answer)
        else:
            result.errors.append((status, answer))
    await conn.close()


def _log(database_url: str, cid: str) -> tuple[str, dict[str, Any], list[Any]]:
    """A cluster's (or stream's) policy kind, spec and log, checked gap-free, in version
    order and with no event id twice."""
    import json

    from sqlalchemy import create_engine, text

    engine = create_engine(database_url)
    with engine.connect() as conn:
        kind, spec, version = conn.execute(text(
            "SELECT policy_kind, spec, version FROM clusters WHERE id = :c"), {"c": cid}).one()
        rows = conn.execute(text("SELECT seq, event_id, request, response FROM events "
                                 "WHERE cluster_id = :c ORDER BY seq"), {"c": cid}).all()
    engine.dispose()
    if isinstance(spec, str):  # SQLite hands JSON back as text
        spec = json.loads(spec)
    assert [r.seq for r in rows] == list(range(1, len(rows) + 1)), "log has gaps"
    assert version == len(rows), (version, len(rows))
    assert len({r.event_id for r in rows}) == len(rows), "an event id was logged twice"
    return kind, spec, rows


def audit_answers(database_url: str, cid: str, result: LoadResult,
                  unsent_kinds: frozenset[str] = frozenset({"tick"})) -> dict[str, int]:
    """Every answer a client received is in the log at its seq, and all copies of it got the
    logged answer; nothing is logged that no client sent (but the service's own events, such
    as a queued cluster's clock ticks). For every family."""
    from app.service.engines import DELIVERY_KEYS

    _kind, _spec, rows = _log(database_url, cid)
    logged = {r.event_id: r for r in rows}
    answered = 0
    for eid, sent in result.sent.items():
        if not sent.answers:
            continue
        answered += 1
        assert eid in logged, f"acknowledged event {eid} is not in the log"
        row = logged[eid]
        for a in sent.answers:
            assert a["event_seq"] == row.seq, (eid, a, row.seq)
            # Every key the client saw is the logged one (a log row may hold more: a
            # stream's logged answer names its decision, which the API leaves out).
            differ = {k: (v, row.response.get(k)) for k, v in a.items()
                      if k not in DELIVERY_KEYS and v != row.response.get(k)}
            assert not differ, (eid, differ)
    theirs = {r.event_id for r in rows if r.request.get("kind") not in unsent_kinds}
    assert theirs <= set(result.sent), theirs - set(result.sent)
    return {"events": len(rows), "answered": answered}


def audit(database_url: str, cid: str, result: LoadResult) -> dict[str, int]:
    """Check a placement cluster's log and the engine it produces against every answer the
    clients received."""
    from app.families.registry import REGISTRY
    from app.service.engines import DELIVERY_KEYS

    kind, spec, rows = _log(database_url, cid)
    # Replaying the log re-decides every event identically and never overfills a server.
    family = REGISTRY.family_for(kind)
    adapter = family.build(spec)
    eng = adapter.engine
    cap = [eng.model.capacity(s) for s in range(eng.model.num_servers)]
    for r in rows:
        got = adapter.apply(r.request).to_dict()
        want = {k: v for k, v in r.response.items() if k not in DELIVERY_KEYS}
        assert got == want, (r.seq, got, want)
        for s in range(eng.model.num_servers):
            assert all(u <= c + 1e-9 for u, c in zip(eng.used[s], cap[s])), (r.seq, s)

    # Every job is on exactly one server, and the indexes agree with the job table.
    seen: dict[str, int] = {}
    for s, jobs in enumerate(eng.on_server):
        for j in jobs:
            assert j not in seen, f"job {j} on servers {seen[j]} and {s}"
            seen[j] = s
    assert seen == {j: s for j, (s, _) in eng.jobs.items()}
    stats = audit_answers(database_url, cid, result, unsent_kinds=frozenset())
    return {**stats, "jobs": len(eng.jobs)}
