"""The queue family's time hook: the service keeps a wall-clock queued cluster's time.

With the wall clock, ``prepare`` writes the time since the cluster's creation into the event
*inside* its transaction (so that, with several processes, stamps follow the log order) and
the stamped event is what the log keeps: a replay sees the same times and the engine's own
generator draws the same clocks. A tick that finds nothing due is ``NothingToDo``: answered
``idle`` without touching the engine or the log, which keeps the background loop from writing
a row per cluster per second when nothing happens.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from app.families.base import NothingToDo
from app.policies.errors import ClockRefused, check_clock_jump
from app.policies.rms.family import MAX_TICKS_PER_EVENT, QueueFamily
from app.store.models import as_utc, utcnow

# Clock ticks per second of wall time that a wall-clock RMS cluster may ask for (the sum of
# its clock rates over time_unit_seconds), checked at creation. Measured on the 2-core CI
# machine (shared, RMS over 10 to 1,000 servers, `advance` over 200,000 ticks): 9,000 to 16,000
# ticks/s with uniform sampling, 1,400 to 2,800 with Best-Fit's scan over the servers, and
# about 1.6 internal events (ticks and dummy departures) per tick. 1,000 ticks/s keeps one such
# cluster under about a tenth of a core with uniform sampling; faster clocks could not be
# served by one process at all for long (a rate of 1e9 would take the whole tick loop).
MAX_WALL_TICKS_PER_SECOND = 1_000

# Internal events (clock ticks, dummy departures) one tick-loop pass may fire on one cluster;
# the rest wait for the next pass and the clock's lag shows in the cluster's state. 2,000 is
# what a cluster at MAX_WALL_TICKS_PER_SECOND fires per 1 s pass (1.6 events per tick), so it
# keeps up, and caps a pass's share of the process at ~0.15 s of CPU per cluster (uniform
# sampling) whatever a cluster's backlog, so one tenant cannot multiply the others' latency.
TICK_BUDGET_PER_PASS = 2_000


def wall_time(engine: QueueFamily, created_at: datetime) -> float:
    """Time units since the cluster was created: the wall clock of a queued cluster."""
    return (utcnow() - as_utc(created_at)).total_seconds() / engine.time_unit


class QueueClock:
    """``TimeHook`` of queued clusters."""

    def prepare(self, engine: QueueFamily, created_at: datetime, event: dict[str, Any]
                ) -> dict[str, Any] | NothingToDo:
        """The event with its time filled in (wall clock) or checked present (client), and
        bounded: no event moves the clock further than ``max_span`` past the engine's, and
        no client time is more than ten years past it (``check_clock_jump``)."""
        stamped = self._stamp(engine, created_at, event)
        if stamped["kind"] == "tick":
            idle = engine.idle(stamped["until"])
            if idle is not None:
                return NothingToDo(idle)
        return stamped

    @staticmethod
    def _stamp(engine: QueueFamily, created_at: datetime, event: dict[str, Any]
               ) -> dict[str, Any]:
        field = "until" if event["kind"] == "tick" else "at"
        now = engine.engine.now
        limit = now + engine.max_span
        if engine.clock == "wall":
            if event.get(field) is not None:
                raise ClockRefused(field, "this cluster keeps time by the wall clock; leave "
                                   f"{field} out")
            # max(): another process's clock may run a little behind the last stamp. min():
            # after a long pause (loop off, process down) the clock catches up in steps; an
            # event in between is stamped at the step it reached, not at the wall time.
            return {**event, field: min(max(wall_time(engine, created_at), now), limit)}
        t = event.get(field)
        if t is None:
            raise ClockRefused(field, "required: this cluster's clock is kept by its clients")
        # Two bounds: this one refuses a time no cluster should reach in one step (a tick
        # too), leaving the clock where it is; the one below bounds the work of one event
        # (RMS's clocks fire by the million), so a tick stops there and a later one goes on.
        check_clock_jump(field, t, now, engine.time_unit, "time units")
        if t > limit:
            if field == "until":  # a tick goes as far as allowed; its answer says where
                return {**event, "until": limit}
            raise ClockRefused(field, f"{t - now:g} time units past the scheduler's "
                               f"clock; one event may move it at most {limit - now:g} "
                               f"(about {MAX_TICKS_PER_EVENT:,} clock ticks): tick first")
        return event

    def describe(self, engine: QueueFamily, created_at: datetime) -> dict[str, Any]:
        if engine.clock != "wall":
            return {}
        # Time units the engine's clock trails the wall clock while something is due: grows
        # while the tick loop's per-pass budget cannot keep up with the cluster's clocks. An
        # engine with nothing due (a greedy queue, or RMS before its next clock) is not
        # behind, so the view of a cluster nothing happens to stays the same.
        wall, scheduler = wall_time(engine, created_at), engine.engine
        due = scheduler.next_event_time() <= wall
        return {"clock": engine.clock_view(max(0.0, wall - scheduler.now) if due else 0.0)}
