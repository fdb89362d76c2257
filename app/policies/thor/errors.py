"""Refusals of the reservation streams (THOR and its baselines)."""

from __future__ import annotations

from app.errors import REFUSED
from app.policies.errors import PolicyError


class ReservationError(PolicyError):
    """A refused input; ``field`` names what was wrong (for problem+json)."""

    code = "validation_error"
    title = REFUSED

    def __init__(self, field_name: str, detail: str):
        super().__init__(f"{field_name}: {detail}", field=field_name)


class PeriodConflict(PolicyError):
    """An observation for a period that is not the next one (a gap or a repeat): the service
    asks for consecutive periods, so that a lost observation is noticed by the client."""

    code = "period_conflict"
