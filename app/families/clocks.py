"""The families' time hooks (``TimeHook``): time the service keeps for engines that take it
as an input. A hook runs inside its event's transaction, for new events only: a replay applies
the logged events, already prepared, without it.

- Queued clusters (``QueueClock``): with the wall clock, ``prepare`` writes the time since the
  cluster's creation into the event *inside* its transaction (so that, with several
  processes, stamps follow the log order) and the stamped event is what the log keeps: a
  replay sees the same times and the engine's own generator draws the same clocks. A tick
  that finds nothing due is ``NothingToDo``: answered ``idle`` without touching the engine or
  the log, which keeps the background loop from writing a row per cluster per second when
  nothing happens.
- Placement clusters (``BudgetClock``): a placement cluster decides at once and takes no time,
  except a DRA cluster with a ``migration_budget``, whose token bucket refills with time. With
  the budget's wall clock, ``prepare`` stamps each event with the seconds since the cluster's
  creation, and the log keeps the stamped event, so a replay refills the bucket exactly as the
  live engine did. With the client clock, every event must carry ``at`` (never decreasing), at
  most ten years past the cluster's clock (``check_clock_jump``).
- Moment clusters (``MomentClock``): every event carries its own ``at`` (hours, on the clients'
  clock, or hours since 1970 from the Kubernetes webhook), never decreasing (the engine
  checks) and at most ten years past the cluster's clock (checked here, so logs from before
  the bound replay as they were).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from app.families.base import NothingToDo
from app.policies.capabilities import KeepsTime
from app.policies.errors import ClockRefused, check_clock_jump
from app.policies.rms.family import MAX_TICKS_PER_EVENT, QueueAdapter
from app.store.models import as_utc, utcnow

# Clock ticks per second of wall time that a wall-clock RMS cluster may ask for (the sum of
# its clock rates over time_unit_seconds), checked at creation. Measured on the 2-core CI
# machine (shared, RMS over 10 to 1,000 servers, `advance` over 200,000 ticks): 9,000 to 16,000
# ticks/s with uniform sampling, 1,400 to 2,800 with Best-Fit's scan over the servers, and
# about 1.6 internal events (ticks and dummy departures) per tick. 1,000 ticks/s keeps one such
# cluster under about a tenth of a core with uniform sampling; faster clocks could not be
# served by one process at all for long.
MAX_WALL_TICKS_PER_SECOND = 1_000

def wall_time(adapter: QueueAdapter, created_at: datetime) -> float:
    """Time units since the cluster was created: the wall clock of a queued cluster."""
    return (utcnow() - as_utc(created_at)).total_seconds() / adapter.time_unit


class QueueClock:
    """``TimeHook`` and ``TickHook`` of queued clusters."""

    def can_wait(self, adapter: QueueAdapter, created_at: datetime) -> bool:
        """True when ticking now can wait: nothing is due, or no job waits and the clock is
        less than half a span (``max_span``) behind. Clocks that fire while no job waits only
        make and end dummy jobs, which no client sees until its next event, and that event
        fires them itself (the same draws: the engine's decisions do not depend on how time
        is split). So an idle RMS cluster writes a tick row every half span instead of every
        pass, and its next event never has more than half a span to catch up."""
        behind = wall_time(adapter, created_at) - adapter.now
        if adapter.next_event_time() >= adapter.now + behind:
            return True
        return not adapter.waiting and behind < adapter.max_span / 2

    def prepare(self, adapter: QueueAdapter, created_at: datetime, event: dict[str, Any]
                ) -> dict[str, Any] | NothingToDo:
        """The event with its time filled in (wall clock) or checked present (client), and
        bounded: no event moves the clock further than ``max_span`` past the engine's, and
        no client time is more than ten years past it (``check_clock_jump``)."""
        stamped = self._stamp(adapter, created_at, event)
        if stamped["kind"] == "tick":
            idle = adapter.idle(stamped["until"])
            if idle is not None:
                return NothingToDo(idle)
        return stamped

    @staticmethod
    def _stamp(adapter: QueueAdapter, created_at: datetime, event: dict[str, Any]
               ) -> dict[str, Any]:
        field = "until" if event["kind"] == "tick" else "at"
        now = adapter.now
        if event["kind"] == "quotas" and adapter.clock == "client":
            return event  # an admin's change takes effect at the cluster's time
        limit = now + adapter.max_span
        if adapter.clock == "wall":
            if event.get(field) is not None:
                raise ClockRefused(field, "this cluster keeps time by the wall clock; leave "
                                   f"{field} out")
            # max(): another process's clock may run a little behind the last stamp. min():
            # after a long pause (loop off, process down) the clock catches up in steps; an
            # event in between is stamped at the step it reached, not at the wall time.
            return {**event, field: min(max(wall_time(adapter, created_at), now), limit)}
        t = event.get(field)
        if t is None:
            raise ClockRefused(field, "required: this cluster's clock is kept by its clients")
        # Two bounds: this one refuses a time no cluster should reach in one step (a tick
        # too), leaving the clock where it is; the one below bounds the work of one event
        # (RMS's clocks fire by the million), so a tick stops there and a later one goes on.
        check_clock_jump(field, t, now, adapter.time_unit, "time units")
        if t > limit:
            if field == "until":  # a tick goes as far as allowed; its answer says where
                return {**event, "until": limit}
            raise ClockRefused(field, f"{t - now:g} time units past the scheduler's "
                               f"clock; one event may move it at most {limit - now:g} "
                               f"(about {MAX_TICKS_PER_EVENT:,} clock ticks): tick first")
        return event

    def describe(self, adapter: QueueAdapter, created_at: datetime) -> dict[str, Any]:
        if adapter.clock != "wall":
            return {}
        # Time units the engine's clock trails the wall clock while something is due: grows
        # while the tick loop's per-pass budget cannot keep up with the cluster's clocks. An
        # engine with nothing due (a greedy queue, or RMS before its next clock) is not
        # behind, so the view of a cluster nothing happens to stays the same.
        wall = wall_time(adapter, created_at)
        due = adapter.next_event_time() <= wall
        return {"clock": adapter.clock_view(max(0.0, wall - adapter.now) if due else 0.0)}


class BudgetClock:
    """``TimeHook`` of placement clusters (a no-op unless the engine takes time)."""

    def prepare(self, adapter: KeepsTime, created_at: datetime, event: dict[str, Any]
                ) -> dict[str, Any]:
        clock = adapter.clock
        if clock == "client" and isinstance(event.get("at"), (int, float)):
            # the engine checks the rest of ``at`` (present, never decreasing)
            check_clock_jump("at", event["at"], adapter.now, 1.0, "time units")
        if clock != "wall":
            return event
        if event.get("at") is not None:
            raise ClockRefused("at", "this cluster's migration budget keeps time by the wall "
                               "clock; leave at out")
        seconds = (utcnow() - as_utc(created_at)).total_seconds()
        # max(): another process's clock may run a little behind the last stamp.
        return {**event, "at": max(seconds, adapter.now)}

    def describe(self, adapter: KeepsTime, created_at: datetime) -> dict[str, Any]:
        return {}


class MomentClock:
    """``TimeHook`` of moment clusters."""

    def prepare(self, adapter: KeepsTime, created_at: datetime, event: dict[str, Any]
                ) -> dict[str, Any]:
        if isinstance(event.get("at"), (int, float)):
            check_clock_jump("at", event["at"], adapter.now, 3600.0, "hours")
        return event

    def describe(self, adapter: KeepsTime, created_at: datetime) -> dict[str, Any]:
        return {}
