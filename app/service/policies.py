"""How the service drives a cluster's engine: build it from the stored spec, apply one event.

A *family* groups policy kinds that take the same events: placement (DRA and the baselines:
arrivals and departures answered placed/rejected), queues (RMS and the greedy queue baselines:
arrivals wait, ticks fire clocks), reservations (THOR: observations) and moment admission
(deployments and their scale events).
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any, Protocol

import numpy as np

from app.policies.base import DuplicateJob, PlacementEngine, PolicyError
from app.policies.model import cluster_model
from app.policies.moments import errors as moment_errors
from app.policies.moments.engine import MomentEngine
from app.policies.moments.errors import MomentsError
from app.policies.registry import PLACEMENT_ENGINES
from app.policies.rms import make_scheduler
from app.policies.rms.core import QueueScheduler
from app.policies.rms.errors import RmsInputError
from app.policies.thor import (RESERVATION_POLICIES, ReservationError, ReservationStream,
                               make_stream, stream_from_state)
from app.store.models import as_utc, utcnow


class Family(Protocol):
    event_kinds: frozenset[str]

    def build(self, spec: dict[str, Any]) -> Any: ...

    def restore(self, spec: dict[str, Any], state: dict[str, Any]) -> Any: ...

    def snapshot(self, engine: Any) -> dict[str, Any]: ...

    def apply(self, engine: Any, event: dict[str, Any]) -> dict[str, Any]: ...

    def dry_run(self, engine: Any, event: dict[str, Any]) -> dict[str, Any]: ...

    def describe(self, engine: Any) -> dict[str, Any]: ...


class PlacementFamily:
    event_kinds = frozenset({"arrival", "departure"})

    def _engine_class(self, spec: dict[str, Any]) -> type[PlacementEngine]:
        return PLACEMENT_ENGINES[spec["policy"]["kind"]]

    @staticmethod
    def _params(spec: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in spec["policy"].items() if k != "kind"}

    def build(self, spec: dict[str, Any]) -> PlacementEngine:
        cls = self._engine_class(spec)
        return cls(cluster_model(spec), self._params(spec), np.random.default_rng(spec["seed"]))

    def restore(self, spec: dict[str, Any], state: dict[str, Any]) -> PlacementEngine:
        return self._engine_class(spec).from_state(cluster_model(spec), self._params(spec), state)

    def snapshot(self, engine: PlacementEngine) -> dict[str, Any]:
        return engine.to_state()

    def apply(self, engine: PlacementEngine, event: dict[str, Any]) -> dict[str, Any]:
        _no_time(event)
        if event["kind"] == "arrival":
            return engine.arrive(event["job_id"], event["job_type"]).to_dict()
        return engine.depart(event["job_id"]).to_dict()

    def dry_run(self, engine: PlacementEngine, event: dict[str, Any]) -> dict[str, Any]:
        if event["kind"] != "arrival":
            raise ValueError("only arrivals can be dry-run")
        _no_time(event)
        if event["job_id"] in engine.jobs:
            raise DuplicateJob(event["job_id"])
        return engine.decide_arrival(event["job_type"]).to_dict()

    def describe(self, engine: PlacementEngine) -> dict[str, Any]:
        return engine.describe()


def _no_time(event: dict[str, Any]) -> None:
    if event.get("at") is not None:
        raise ClockRefused("at", "a placement cluster decides at once and takes no time")


PLACEMENT = PlacementFamily()


class PeriodConflict(PolicyError):
    """An observation for a period that is not the next one (a gap or a repeat)."""

    code = "period_conflict"


class InvalidObservation(PolicyError):
    """A refused observation (missing resource, negative or non-finite demand...)."""

    code = "validation_error"

    def __init__(self, field_name: str, detail: str):
        super().__init__(f"{field_name}: {detail}")
        self.field = field_name


class ReservationFamily:
    """Reservation streams (THOR and its baselines): one observation per period.

    The engines accept any increasing period; the service asks for consecutive ones, so that
    a lost observation is noticed by the client (409) rather than silently skipped.
    """

    event_kinds = frozenset({"observation"})

    def build(self, spec: dict[str, Any]) -> ReservationStream:
        initial = spec.get("initial") or {}
        resources = [{**r, "initial": initial.get(r["name"])} for r in spec["resources"]]
        # A refusal is a ReservationError (a ValueError naming the field).
        return make_stream(spec["policy"]["kind"], resources, spec["policy"].get("params") or None)

    def restore(self, spec: dict[str, Any], state: dict[str, Any]) -> ReservationStream:
        return stream_from_state(state)

    def snapshot(self, engine: ReservationStream) -> dict[str, Any]:
        return engine.to_state()

    def apply(self, engine: ReservationStream, event: dict[str, Any]) -> dict[str, Any]:
        period = event["period"]
        last = engine.last_period
        if last is not None and period != last + 1:
            raise PeriodConflict(f"expected period {last + 1}, got {period}: periods are "
                                 "consecutive and each is observed once")
        try:
            decision = engine.observe(period, event["demand"])
        except ReservationError as exc:
            raise InvalidObservation(exc.field, exc.detail) from exc
        out = decision.to_dict()
        out["decision"] = "observed"
        return out

    def dry_run(self, engine: ReservationStream, event: dict[str, Any]) -> dict[str, Any]:
        raise ValueError("observations cannot be dry-run")

    def describe(self, engine: ReservationStream) -> dict[str, Any]:
        return engine.describe()


RESERVATION = ReservationFamily()

MOMENT_POLICIES = ("threshold", "first_moment", "second_moment")


class MomentRefused(PolicyError):
    """A moment-engine refusal; ``status`` is what it means over HTTP."""

    def __init__(self, exc: MomentsError, code: str, status: int):
        super().__init__(str(exc))
        self.code, self.status, self.field = code, status, exc.field


def moment_error(exc: MomentsError) -> MomentRefused:
    if isinstance(exc, (moment_errors.UnknownDeployment, moment_errors.DeadDeployment)):
        return MomentRefused(exc, "unknown_deployment", 404)
    if isinstance(exc, moment_errors.TimeWentBackwards):
        return MomentRefused(exc, "time_went_backwards", 409)
    if isinstance(exc, moment_errors.DuplicateDeployment):
        return MomentRefused(exc, "deployment_exists", 409)
    return MomentRefused(exc, "validation_error", 422)


class MomentFamily:
    """Deployment admission on a pool of cores (the moment paper): admit a deployment now so
    that its and everyone's future scale-outs keep failing less than the SLA."""

    event_kinds = frozenset({"deployment", "scale_out", "scale_in", "shutdown"})

    def build(self, spec: dict[str, Any]) -> MomentEngine:
        policy = spec["policy"]
        engine = MomentEngine(capacity=spec["capacity_cores"], policy=policy["kind"],
                              threshold=policy.get("threshold"),
                              marginal=policy.get("marginal", True))
        engine.sla = spec.get("sla")  # reported against; the engine itself does not use it
        return engine

    def restore(self, spec: dict[str, Any], state: dict[str, Any]) -> MomentEngine:
        engine = MomentEngine.from_state(state)
        engine.sla = spec.get("sla")
        return engine

    def snapshot(self, engine: MomentEngine) -> dict[str, Any]:
        return engine.to_state()

    def apply(self, engine: MomentEngine, event: dict[str, Any], dry_run: bool = False
              ) -> dict[str, Any]:
        kind = event["kind"]
        try:
            if kind == "deployment":
                return engine.admit(event["deployment_id"], event["cores"], event["at"],
                                    event.get("category"), event.get("prior"), dry_run)
            if kind == "scale_out":
                return engine.scale_out(event["deployment_id"], event["cores"], event["at"])
            if kind == "scale_in":
                out = engine.scale_in(event["deployment_id"], event["cores"], event["at"])
            else:
                out = engine.shutdown(event["deployment_id"], event["at"])
        except MomentsError as exc:
            raise moment_error(exc) from exc
        return {"decision": "released", "active_cores": out["active_cores"],
                "alive": out["alive"]}

    def dry_run(self, engine: MomentEngine, event: dict[str, Any]) -> dict[str, Any]:
        if event["kind"] != "deployment":
            raise ValueError("only deployments can be dry-run")
        return self.apply(engine, event, dry_run=True)

    def describe(self, engine: MomentEngine) -> dict[str, Any]:
        out = engine.describe()
        sla = getattr(engine, "sla", None)
        out["sla"] = sla
        out["meets_sla"] = None if sla is None else out["sla_failure_rate"] <= sla
        return out


MOMENT = MomentFamily()


QUEUE_POLICIES = ("rms", "best_fit_queue", "first_fit_queue", "random_fit_queue")
# Spec keys that configure the service around a queue engine, not the engine itself.
_CLOCK_KEYS = ("kind", "clock", "time_unit_seconds")


class ClockRefused(PolicyError):
    """``at``/``until`` given where the wall clock rules, or missing where clients keep time."""

    code = "validation_error"

    def __init__(self, field_name: str, detail: str):
        super().__init__(f"{field_name}: {detail}")
        self.field = field_name


class NoDryRun(PolicyError):
    code = "dry_run_unsupported"


class QueueFamily:
    """Queued clusters (the RMS paper): arrivals wait until the scheduler starts them.

    Time: with the wall clock, ``stamp`` writes the time since the cluster's creation into
    the event *inside* its transaction (so that, with several processes, stamps follow the log
    order) and the stamped event is what the log keeps: a replay sees the same times and the
    engine's own generator draws the same clocks. A tick that finds nothing due is answered
    ``idle`` without touching the engine, so the service need not log it; this keeps the
    background loop from writing a row per cluster per second when nothing happens.
    """

    event_kinds = frozenset({"arrival", "departure", "tick"})

    @staticmethod
    def _engine_args(spec: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        policy = spec["policy"]
        return policy["kind"], {k: v for k, v in policy.items() if k not in _CLOCK_KEYS}

    def build(self, spec: dict[str, Any]) -> QueueScheduler:
        name, params = self._engine_args(spec)
        try:
            engine = make_scheduler(name, cluster_model(spec), params,
                                    np.random.default_rng(spec["seed"]))
        except RmsInputError as exc:  # the engine's own parameter checks
            raise ValueError(str(exc)) from exc
        return self._with_clock(engine, spec)

    def restore(self, spec: dict[str, Any], state: dict[str, Any]) -> QueueScheduler:
        fresh = self.build(spec)
        engine = type(fresh).from_state(fresh.model, fresh.params, state)
        engine.kind = fresh.kind
        return self._with_clock(engine, spec)

    @staticmethod
    def _with_clock(engine: QueueScheduler, spec: dict[str, Any]) -> QueueScheduler:
        policy = spec["policy"]
        engine.clock = policy.get("clock", "wall")
        engine.time_unit = float(policy.get("time_unit_seconds", 1.0))
        return engine

    def snapshot(self, engine: QueueScheduler) -> dict[str, Any]:
        return engine.to_state()

    def stamp(self, engine: QueueScheduler, created_at: datetime, event: dict[str, Any]
              ) -> dict[str, Any]:
        """The event with its time filled in (wall clock) or checked present (client), and
        bounded: no event moves the clock further than ``max_span`` past the engine's."""
        field = "until" if event["kind"] == "tick" else "at"
        limit = engine.now + max_span(engine)
        if engine.clock == "wall":
            engine.wall_origin = created_at  # for describe()'s lag; the spec does not hold it
            if event.get(field) is not None:
                raise ClockRefused(field, "this cluster keeps time by the wall clock; leave "
                                   f"{field} out")
            # max(): another process's clock may run a little behind the last stamp. min():
            # after a long pause (loop off, process down) the clock catches up in steps; an
            # event in between is stamped at the step it reached, not at the wall time.
            return {**event, field: min(max(wall_time(engine, created_at), engine.now), limit)}
        t = event.get(field)
        if t is None:
            raise ClockRefused(field, "required: this cluster's clock is kept by its clients")
        if t > limit:
            if field == "until":  # a tick goes as far as allowed; its answer says where
                return {**event, "until": limit}
            raise ClockRefused(field, f"{t - engine.now:g} time units past the scheduler's "
                               f"clock; one event may move it at most {limit - engine.now:g} "
                               f"(about {MAX_TICKS_PER_EVENT:,} clock ticks): tick first")
        return event

    def apply(self, engine: QueueScheduler, event: dict[str, Any]) -> dict[str, Any]:
        kind = event["kind"]
        if kind == "arrival":
            out = engine.arrive(event["job_id"], event["job_type"], event["at"])
        elif kind == "departure":
            out = engine.depart(event["job_id"], event["at"])
        else:
            until = event["until"]
            if until <= engine.now or engine.next_event_time() >= until:
                return {"decision": "idle", "now": engine.now, "started": []}
            budget = event.get("budget")
            if budget is None:
                started = engine.advance(until)
            else:
                started = _advance_within(engine, until, budget)
            return {"decision": "advanced", "now": engine.now, "started": started}
        return {**out, "at": engine.now}

    def dry_run(self, engine: QueueScheduler, event: dict[str, Any]) -> dict[str, Any]:
        raise NoDryRun("queued clusters decide when a job starts, not whether: there is "
                       "nothing to dry-run")

    def describe(self, engine: QueueScheduler) -> dict[str, Any]:
        out = engine.describe()
        origin = getattr(engine, "wall_origin", None)
        out["clock"] = {"mode": engine.clock, "time_unit_seconds": engine.time_unit,
                        "next_event_at": _finite(engine.next_event_time()),
                        # Time units the engine's clock trails the wall clock (null: client
                        # clock, or not yet known to this process): grows while the tick
                        # loop's per-pass budget cannot keep up with the cluster's clocks.
                        "behind": None if origin is None else
                        max(0.0, wall_time(engine, origin) - engine.now)}
        return out


# At most about this many clock ticks fire within one event. RMS's clocks tick at a steady rate
# whether or not jobs wait, so a jump far ahead in time (a client's `at`, or a cluster whose
# loop was off for a day) would fire them by the million while holding the cluster's lock.
MAX_TICKS_PER_EVENT = 100_000


# Clock ticks per second of wall time that a wall-clock RMS cluster may ask for (the sum of
# its clock rates over time_unit_seconds), checked at creation. Measured on the 2-core CI
# machine (shared, RMS over 10 to 1,000 servers, `advance` over 200,000 ticks): 9,000 to 16,000
# ticks/s with uniform sampling, 1,400 to 2,800 with Best-Fit's scan over the servers, and
# about 1.6 internal events (ticks and dummy departures) per tick. 1,000 ticks/s keeps one such
# cluster under about a tenth of a core with uniform sampling; faster clocks could not be
# served by one process at all for long (1e9 used to be accepted).
MAX_WALL_TICKS_PER_SECOND = 1_000

# Internal events (clock ticks, dummy departures) one tick-loop pass may fire on one cluster;
# the rest wait for the next pass and the clock's lag shows in the cluster's state. 2,000 is
# what a cluster at MAX_WALL_TICKS_PER_SECOND fires per 1 s pass (1.6 events per tick), so it
# keeps up, and caps a pass's share of the process at ~0.15 s of CPU per cluster (uniform
# sampling) whatever a cluster's backlog: one tenant no longer multiplies the others' latency.
TICK_BUDGET_PER_PASS = 2_000


def _advance_within(engine: QueueScheduler, until: float, budget: int) -> list[dict[str, Any]]:
    """Fire internal events before ``until``, at most ``budget`` of them; the clock stops at
    the last one fired when the budget runs out. Exact, not an expected count, so a pass is
    bounded even while dummy departures outnumber ticks. Deterministic for a given state and
    (until, budget), which is what the log keeps, so a replay fires the same events."""
    started: list[dict[str, Any]] = []
    for _ in range(budget):
        if engine.next_event_time() >= until:
            return started + engine.advance(until)
        started += engine.step()
    return started


def max_span(engine: QueueScheduler) -> float:
    """How far (time units) one event may move ``engine``'s clock; inf without clocks."""
    rate = getattr(engine, "total_rate", 0.0)
    return MAX_TICKS_PER_EVENT / rate if rate > 0 else math.inf


def wall_time(engine: QueueScheduler, created_at: datetime) -> float:
    """Time units since the cluster was created: the wall clock of a queued cluster."""
    return (utcnow() - as_utc(created_at)).total_seconds() / engine.time_unit


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


QUEUE = QueueFamily()


def family_for(kind: str) -> Family:
    if kind in PLACEMENT_ENGINES:
        return PLACEMENT
    if kind in QUEUE_POLICIES:
        return QUEUE
    if kind in RESERVATION_POLICIES:
        return RESERVATION
    if kind in MOMENT_POLICIES:
        return MOMENT
    raise KeyError(kind)


def cluster_kinds() -> list[str]:
    """Policy kinds served under /v1/clusters: placement, queues and moment admission."""
    return sorted([*PLACEMENT_ENGINES, *QUEUE_POLICIES, *MOMENT_POLICIES])
