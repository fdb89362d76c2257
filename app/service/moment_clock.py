"""The moment family's time hook: every event carries its own ``at`` (hours, on the clients'
clock, or hours since 1970 from the Kubernetes webhook), never decreasing (the engine checks)
and at most ten years past the cluster's clock (checked here, for new events only: a replay
applies the logged events without this hook, so logs from before the bound replay as they
were)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from app.policies.errors import check_clock_jump
from app.policies.moments.family import MomentFamily


class MomentClock:
    """``TimeHook`` of moment clusters."""

    def prepare(self, engine: MomentFamily, created_at: datetime, event: dict[str, Any]
                ) -> dict[str, Any]:
        if isinstance(event.get("at"), (int, float)):
            check_clock_jump("at", event["at"], engine.engine.now, 3600.0, "hours")
        return event

    def describe(self, engine: MomentFamily, created_at: datetime) -> dict[str, Any]:
        return {}
