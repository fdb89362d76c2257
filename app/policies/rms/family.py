"""Queued clusters (RMS and the greedy queue baselines) as the service drives them.

Arrivals wait until the scheduler starts them, so time is an input: every event carries
``at`` (ticks ``until``) and the engine fires, with its own seeded generator, whatever falls
before it. Where that time comes from (the wall clock, stamped by the service, or the
clients) is part of the declaration (``policy.clock``), kept here beside the engine rather
than set on it: the engine itself only ever sees times.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import chain
from typing import Any, Literal, Self

import numpy as np

from app.policies.capabilities import HoldsJobs, TracksJobs
from app.policies.model import ClusterModel, cluster_model
from app.policies.protocol import Answer, Event, Gauges, PolicyAdapter, Spec, first_ids
from app.policies.rms import GREEDY, make_scheduler
from app.policies.rms.core import QueueScheduler
from app.policies.rms.errors import RmsInputError
from app.policies.rms.rms import RmsScheduler

# Spec keys that configure the clock around a queue engine, not the engine itself.
_CLOCK_KEYS = ("kind", "clock", "time_unit_seconds")

# RMS's M (the weight floor of (4)) is the most jobs of all types together on one server. Every
# RMS cluster's spec stores the rule (the API fills in the default); a stored spec without it
# was declared under the one-type rule and keeps it: its logged decisions were made with that
# rule, and its replay must not diverge.
_RULE_BEFORE_15 = {"max_jobs_rule": "one_type"}

# At most about this many clock ticks fire within one event. RMS's clocks tick at a steady rate
# whether or not jobs wait, so a jump far ahead in time (a client's `at`, or a cluster whose
# loop was off for a day) would fire them by the million while holding the cluster's lock.
MAX_TICKS_PER_EVENT = 100_000


@dataclass(frozen=True)
class Tick:
    """A tick's answer: ``advanced`` (logged) or ``idle`` (nothing was due: not logged)."""

    decision: Literal["advanced", "idle"]
    now: float
    started: list[dict[str, Any]]

    def to_dict(self) -> dict[str, Any]:
        return {"decision": self.decision, "now": self.now, "started": self.started}


class QueueAdapter(PolicyAdapter[QueueScheduler], HoldsJobs, TracksJobs):
    # The service offers RMS under its one name (its variants are parameters) and the
    # greedy baselines under theirs.
    kinds = (RmsScheduler.kind, *GREEDY)
    event_kinds = frozenset({"arrival", "departure", "tick"})

    def __init__(self, engine: QueueScheduler, clock: Literal["wall", "client"],
                 time_unit: float):
        super().__init__(engine)
        self._clock: Literal["wall", "client"] = clock
        self.time_unit = time_unit

    @classmethod
    def build(cls, spec: Spec) -> Self:
        policy = spec["policy"]
        params = {k: v for k, v in policy.items() if k not in _CLOCK_KEYS}
        if policy["kind"] == "rms":
            params = {**_RULE_BEFORE_15, **params}
        try:
            engine = make_scheduler(policy["kind"], cluster_model(spec), params,
                                    np.random.default_rng(spec["seed"]))
        except RmsInputError as exc:  # the engine's own parameter checks: a bad declaration
            raise ValueError(str(exc)) from exc
        return cls(engine, policy.get("clock", "wall"),
                   float(policy.get("time_unit_seconds", 1.0)))

    @classmethod
    def from_state(cls, spec: Spec, state: Mapping[str, Any]) -> Self:
        fresh = cls.build(spec)
        engine = type(fresh.engine).from_state(fresh.engine.model, fresh.engine.params,
                                                dict(state))
        engine.kind = fresh.engine.kind
        return cls(engine, fresh.clock, fresh.time_unit)

    @property
    def clock(self) -> Literal["wall", "client"]:
        return self._clock

    @property
    def now(self) -> float:
        return self.engine.now

    @property
    def model(self) -> ClusterModel:
        return self.engine.model

    def next_event_time(self) -> float:
        """When the engine's next internal event fires (clock tick, dummy departure); inf if
        never."""
        return self.engine.next_event_time()

    @property
    def waiting(self) -> bool:
        """Whether a job waits in a queue."""
        return bool(self.engine.queued)

    def job_view(self, job_id: str) -> dict[str, Any]:
        return self.engine.job_view(job_id)

    @property
    def max_span(self) -> float:
        """How far (time units) one event may move the clock; inf without clocks."""
        rate = getattr(self.engine, "total_rate", 0.0)
        return MAX_TICKS_PER_EVENT / rate if rate > 0 else math.inf

    def idle(self, until: float) -> Tick | None:
        """The answer of a tick to ``until`` that finds nothing due (None: something is):
        it would change nothing, so the service neither applies nor logs it."""
        if until <= self.engine.now or self.engine.next_event_time() >= until:
            return Tick("idle", self.engine.now, [])
        return None

    def apply(self, event: Event) -> Answer | Tick:
        kind = event["kind"]
        if kind == "arrival":
            out = self.engine.arrive(event["job_id"], event["job_type"], event["at"])
        elif kind == "departure":
            out = self.engine.depart(event["job_id"], event["at"])
        else:
            budget = event.get("budget")
            started = (self.engine.advance(event["until"]) if budget is None
                       else self._advance_within(event["until"], budget))
            return Tick("advanced", self.engine.now, started)
        return Answer.of({**out, "at": self.engine.now})

    def _advance_within(self, until: float, budget: int) -> list[dict[str, Any]]:
        """Fire internal events before ``until``, at most ``budget`` of them; the clock stops
        at the last one fired when the budget runs out. Exact, not an expected count, so a
        pass is bounded even while dummy departures outnumber ticks. Deterministic for a given
        state and (until, budget), which is what the log keeps, so a replay fires the same."""
        engine = self.engine
        started: list[dict[str, Any]] = []
        for _ in range(budget):
            if engine.next_event_time() >= until:
                return started + engine.advance(until)
            started += engine.step()
        return started

    def describe(self) -> dict[str, Any]:
        return {**self.engine.describe(), "clock": self.clock_view(None)}

    def held_jobs(self, after: str | None, limit: int) -> tuple[list[dict[str, Any]], int]:
        """The first ``limit`` jobs waiting or running whose ids sort after ``after``, by id,
        and how many there are in all (``GET .../jobs``); finished and withdrawn ones are
        kept only as a bounded history and are not listed."""
        e = self.engine
        ids, types = e.model.server_ids, e.model.job_types
        page = []
        for jid in first_ids(chain(e.queued, e.running), after, limit):
            if jid in e.queued:
                page.append({"job_id": jid, "job_type": types[e.queued[jid][0]].name,
                             "status": "queued", "server_id": None})
            else:
                s, j, _qa, _sa = e.running[jid]
                page.append({"job_id": jid, "job_type": types[j].name, "status": "running",
                             "server_id": ids[s]})
        return page, len(e.queued) + len(e.running)

    def clock_view(self, behind: float | None) -> dict[str, Any]:
        """``behind``: time units the clock trails the wall clock, which only the service
        knows (None: client clock, or not known)."""
        nxt = self.engine.next_event_time()
        return {"mode": self.clock, "time_unit_seconds": self.time_unit,
                "next_event_at": nxt if math.isfinite(nxt) else None, "behind": behind}

    def to_state(self) -> dict[str, Any]:
        return self.engine.to_state()

    def gauges(self, answer: Mapping[str, Any]) -> Gauges:
        return {"queue_length": sum(self.engine.queue_lengths())}
