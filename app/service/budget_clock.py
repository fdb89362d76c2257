"""The placement family's time hook: time for DRA's migration budget.

A placement cluster decides at once and takes no time, except a DRA cluster with a
``migration_budget``, whose token bucket refills with time. With the budget's wall clock,
``prepare`` stamps each event with the seconds since the cluster's creation *inside* its
transaction, and the log keeps the stamped event, so a replay refills the bucket exactly as
the live engine did. With the client clock, every event must carry ``at`` (never decreasing),
at most ten years past the cluster's clock (``check_clock_jump``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from app.policies.errors import ClockRefused, check_clock_jump
from app.policies.placement import PlacementFamily
from app.store.models import as_utc, utcnow


class BudgetClock:
    """``TimeHook`` of placement clusters (a no-op unless the engine takes time)."""

    def prepare(self, engine: PlacementFamily, created_at: datetime, event: dict[str, Any]
                ) -> dict[str, Any]:
        clock = engine.clock
        if clock == "client" and isinstance(event.get("at"), (int, float)):
            # the engine checks the rest of ``at`` (present, never decreasing)
            check_clock_jump("at", event["at"], engine.engine.now, 1.0, "time units")
        if clock != "wall":
            return event
        if event.get("at") is not None:
            raise ClockRefused("at", "this cluster's migration budget keeps time by the wall "
                               "clock; leave at out")
        seconds = (utcnow() - as_utc(created_at)).total_seconds()
        # max(): another process's clock may run a little behind the last stamp.
        return {**event, "at": max(seconds, engine.engine.now)}

    def describe(self, engine: PlacementFamily, created_at: datetime) -> dict[str, Any]:
        return {}
