"""A steady-rate client for fault tests: unique event ids, the same id resent until answered.

Unlike tests/load.py's storm (as fast as it goes), each simulated orchestrator sends at a fixed
rate, so that seconds without service and latency before, during and after a fault can be read
off the record. Every attempt is kept: its status, its problem code, whether a 503 carried
Retry-After, and how long it took, so the test can assert that a failover was a pause (503
database_unavailable) and never a 500 or a hang.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

import httpx

from tests.load import LoadResult, Sent

# A retryable answer: the service says so (503), or the connection failed.
RETRY_STATUSES = (503,)


@dataclass
class Attempt:
    at: float  # time.monotonic() when sent
    took: float
    status: int | None  # None: a transport error (or the client's timeout)
    code: str | None = None
    retry_after: str | None = None
    error: str | None = None


@dataclass
class Request:
    event_id: str
    first_sent: float
    answered_at: float | None = None
    attempts: list[Attempt] = field(default_factory=list)

    @property
    def latency(self) -> float | None:
        return None if self.answered_at is None else self.answered_at - self.first_sent


@dataclass
class Record:
    result: LoadResult = field(default_factory=LoadResult)
    requests: list[Request] = field(default_factory=list)

    def attempts(self) -> list[Attempt]:
        return [a for r in self.requests for a in r.attempts]

    def answered_times(self) -> list[float]:
        return sorted(r.answered_at for r in self.requests if r.answered_at is not None)


class Deployments:
    """A moment cluster's orchestrator: new deployments, and scale-outs of admitted ones;
    ``at`` (hours) moves on with every request."""

    def __init__(self, n: int, cid: str, rng: random.Random):
        self.n, self.cid, self.rng = n, cid, rng
        self.admitted: list[str] = []
        self.count = 0

    def next_request(self) -> tuple[str, dict[str, Any]]:
        self.count += 1
        eid, at = f"m{self.n}-e{self.count}", self.count / 100
        base = f"/v1/clusters/{self.cid}/deployments"
        if self.admitted and self.rng.random() < 0.5:
            dep = self.rng.choice(self.admitted)
            return f"{base}/{dep}/scale-outs", {"event_id": eid, "cores": 1, "at": at}
        return base, {"event_id": eid, "deployment_id": f"m{self.n}-d{self.count}",
                      "cores": self.rng.choice((1, 2, 4)), "at": at}

    def note(self, path: str, body: dict[str, Any], answer: dict[str, Any]) -> None:
        if path.endswith("/deployments") and answer["decision"] == "admitted":
            self.admitted.append(body["deployment_id"])


class Observations:
    """A reservation stream's orchestrator: one demand observation per period."""

    def __init__(self, n: int, rid: str, rng: random.Random):
        self.n, self.rid, self.rng = n, rid, rng
        self.period = 0

    def next_request(self) -> tuple[str, dict[str, Any]]:
        self.period += 1
        return f"/v1/reservations/{self.rid}/observations", {
            "event_id": f"r{self.n}-p{self.period}", "period": self.period,
            "demand": {"cpu": round(4 + 4 * self.rng.random(), 3)}}

    def note(self, path: str, body: dict[str, Any], answer: dict[str, Any]) -> None:
        pass


async def drive(base_url: str, headers: dict[str, str], orchestrators: list[Any], rate: float,
                stop: asyncio.Event, record: Record, attempt_timeout: float = 45.0,
                answer_within: float = 120.0) -> None:
    """Each orchestrator (tests/load.py's Orchestrator, Deployments, Observations) sends
    ``rate`` requests a second, waiting for each answer, resends included, before the next,
    until ``stop`` is set."""

    async def one(orch: Any) -> None:
        period = 1.0 / rate
        next_at = time.monotonic()
        async with httpx.AsyncClient(base_url=base_url, headers=headers,
                                     timeout=attempt_timeout,
                                     limits=httpx.Limits(max_connections=1)) as http:
            while not stop.is_set():
                await asyncio.sleep(max(0.0, next_at - time.monotonic()))
                next_at = max(next_at + period, time.monotonic() - period)
                path, body = orch.next_request()
                sent = record.result.sent[body["event_id"]] = Sent(path, body)
                req = Request(body["event_id"], time.monotonic())
                record.requests.append(req)
                answer = await _until_answered(http, path, body, req, answer_within)
                if answer is None:
                    record.result.unanswered.append(body["event_id"])
                    continue
                sent.answers.append(answer)
                orch.note(path, body, answer)

    await asyncio.gather(*(one(o) for o in orchestrators))


async def _until_answered(http: httpx.AsyncClient, path: str, body: dict[str, Any],
                          req: Request, within: float) -> dict[str, Any] | None:
    """The 2xx answer, resending the same request (same event id) after a 503 or a failed
    connection; None when ``within`` passed, or on any other status (recorded)."""
    delay = 0.05
    while time.monotonic() - req.first_sent < within:
        at = time.monotonic()
        try:
            r = await http.post(path, json=body)
        except httpx.HTTPError as exc:
            req.attempts.append(Attempt(at, time.monotonic() - at, None,
                                        error=type(exc).__name__))
        else:
            code = None
            if r.status_code >= 300 and "json" in r.headers.get("content-type", ""):
                code = r.json().get("code")
            req.attempts.append(Attempt(at, time.monotonic() - at, r.status_code, code,
                                        r.headers.get("retry-after")))
            if r.status_code in (200, 202):  # 202: a queued arrival waits
                req.answered_at = time.monotonic()
                return r.json()
            if r.status_code not in RETRY_STATUSES:
                return None
        await asyncio.sleep(delay)
        delay = min(2 * delay, 0.5)
    return None


def p99(values: list[float]) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


def longest_gap(answered: list[float], start: float, end: float) -> float:
    """Longest stretch within [start, end] in which no request was answered: the seconds
    without service after a fault at ``start`` (``end``: before the load stopped)."""
    points = [start, *(t for t in answered if start < t <= end)]
    return max(b - a for a, b in pairwise(points)) if len(points) > 1 else end - start
