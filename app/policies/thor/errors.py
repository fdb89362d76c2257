"""Refusals of the reservation streams (THOR and its baselines)."""

from __future__ import annotations

from app.policies.errors import PolicyError


class ReservationError(PolicyError, ValueError):
    """A refused input; ``field`` names what was wrong (for problem+json)."""

    code = "validation_error"

    def __init__(self, field_name: str, detail: str):
        super().__init__(f"{field_name}: {detail}")
        self.field = field_name


class PeriodConflict(PolicyError):
    """An observation for a period that is not the next one (a gap or a repeat): the service
    asks for consecutive periods, so that a lost observation is noticed by the client."""

    code, category, title = "period_conflict", "conflict", "Period out of order"
