"""How a family's logged events relate to the jobs (or deployments) they are about, and what the
log says of each job's life: when it started and how long it held its place.

A what-if needs both. An alternative policy meets events that are no longer defined: the
departure of a job it never admitted, and no departure at all for one it admits that the
original refused. What the replay does about each (replay.py) depends on which events open a
job's life and which close it, whether the family's clock is the log's order (placement: a
lifetime is counted in logged events) or the events' own ``at`` (queues, moments), and where a
start shows in an answer (a queue starts a job later, in any answer's ``started`` list).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Clock = Literal["seq", "at"]


@dataclass(frozen=True)
class Logged:
    """One row of the decision log: the event as the engine saw it and the answer it got."""

    seq: int
    event_id: str
    request: Mapping[str, Any]
    response: Mapping[str, Any]


def _started_now(answer: Mapping[str, Any], job: str | None, at: float) -> list[tuple[str, float]]:
    return [(job, at)] if job is not None else []


def _queue_starts(answer: Mapping[str, Any], job: str | None, at: float) -> list[tuple[str, float]]:
    """The jobs an answer's ``started`` list names, and the arrival itself where it started
    at once (decision "started")."""
    now = [(job, at)] if job is not None and answer.get("decision") == "started" else []
    return now + [(s["job_id"], float(s["at"])) for s in answer.get("started") or ()]


@dataclass(frozen=True)
class JobModel:
    """A family's jobs as its events name them. ``id_field``: the field naming the job (None:
    the family has no jobs, its events are exogenous); ``opens`` / ``closes``: the event kinds
    that begin and end a job's life; ``admitted``: whether an opening answer let the job in;
    ``starts(answer, job, at)``: the (job, time) pairs an answer started; ``clock``: what a
    lifetime is measured in; ``type_of(request)``: the pool a job's lifetime is drawn from."""

    name: str
    id_field: str | None
    opens: str | None = None
    closes: str | None = None
    admitted: Callable[[Mapping[str, Any]], bool] = lambda answer: False
    starts: Callable[[Mapping[str, Any], str | None, float], list[tuple[str, float]]] = _started_now
    clock: Clock = "seq"
    type_of: Callable[[Mapping[str, Any]], str] = lambda request: ""
    # The jobs an answer ended other than by their close event (a preemption, a deployment
    # scaled in to nothing), from the request and its answer.
    ended: Callable[[Mapping[str, Any], Mapping[str, Any]], list[str]] = lambda request, answer: []


def _preempted(request: Mapping[str, Any], answer: Mapping[str, Any]) -> list[str]:
    return [p["job_id"] if isinstance(p, Mapping) else str(p) for p in answer.get("preempted") or ()]


def _scaled_to_nothing(request: Mapping[str, Any], answer: Mapping[str, Any]) -> list[str]:
    return [request["deployment_id"]] if answer.get("alive") is False else []


PLACEMENT = JobModel("placement", "job_id", "arrival", "departure",
                     admitted=lambda a: a.get("decision") == "placed",
                     type_of=lambda r: str(r.get("job_type")), ended=_preempted)
QUEUES = JobModel("queues", "job_id", "arrival", "departure",
                  admitted=lambda a: a.get("decision") != "rejected", starts=_queue_starts,
                  clock="at", type_of=lambda r: str(r.get("job_type")))
MOMENTS = JobModel("moments", "deployment_id", "deployment", "shutdown",
                   admitted=lambda a: a.get("decision") == "admitted", clock="at",
                   type_of=lambda r: str(r.get("category") or ""), ended=_scaled_to_nothing)
RESERVATIONS = JobModel("reservations", None)

MODELS = {m.name: m for m in (PLACEMENT, QUEUES, MOMENTS, RESERVATIONS)}


def clock_of(model: JobModel, row: Logged) -> float:
    """Where an event sits on the model's clock: its log position, or its time (a tick's
    ``until``)."""
    if model.clock == "seq":
        return float(row.seq)
    r = row.request
    return float(r["at"] if r.get("at") is not None else r.get("until", 0.0))


@dataclass
class Life:
    """What the log says of one job: its type, whether it was admitted, when it started and
    closed (None: not in the window), on the model's clock."""

    type: str
    admitted: bool = False  # by the policy that ran
    started: float | None = None
    closed: float | None = None

    @property
    def length(self) -> float | None:
        if self.started is None or self.closed is None:
            return None
        return max(0.0, self.closed - self.started)


@dataclass
class Lives:
    """Every job's life in a window of the log, and the lengths by type to draw from."""

    jobs: dict[str, Life] = field(default_factory=dict)

    def lengths(self, kind: str | None = None) -> list[float]:
        out = [life.length for life in self.jobs.values()
               if life.length is not None and (kind is None or life.type == kind)]
        return [x for x in out if x is not None]


def logged_lives(model: JobModel, rows: Iterable[Logged]) -> Lives:
    """The lives the log holds: a job starts where an answer started it and closes at its
    logged close (or where an answer ended it)."""
    lives = Lives()
    if model.id_field is None:
        return lives
    for row in rows:
        r, a = row.request, row.response
        now = clock_of(model, row)
        job = r.get(model.id_field)
        if r.get("kind") == model.opens and job is not None and job not in lives.jobs:
            lives.jobs[job] = Life(model.type_of(r))
        opened = job if r.get("kind") == model.opens and model.admitted(a) else None
        if opened is not None:
            lives.jobs[opened].admitted = True
        for started, at in model.starts(a, opened, now):
            if started in lives.jobs and lives.jobs[started].started is None:
                lives.jobs[started].started = at
        if r.get("kind") == model.closes and job in lives.jobs:
            lives.jobs[job].closed = now
        for gone in model.ended(r, a):
            if gone in lives.jobs and lives.jobs[gone].closed is None:
                lives.jobs[gone].closed = now
    return lives
