"""Reservation streams (THOR and its baselines) as the service drives them: one observation
per period, answered with the reservation for the next one.

The engines accept any increasing period; the service asks for consecutive ones, so that a
lost observation is noticed by the client (409 ``period_conflict``) rather than skipped.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Self

from app.policies.protocol import Event, Gauges, PolicyAdapter, Spec
from app.policies.thor import (
    RESERVATION_POLICIES,
    ReservationDecision,
    ReservationStream,
    make_stream,
    stream_from_state,
)
from app.policies.thor.errors import PeriodConflict


@dataclass(frozen=True)
class Observed:
    """An observation's answer: the engine's decision, under the decision word ``observed``."""

    reservation: ReservationDecision

    def to_dict(self) -> dict[str, Any]:
        return {**self.reservation.to_dict(), "decision": "observed"}


class ReservationAdapter(PolicyAdapter[ReservationStream]):
    kinds = tuple(RESERVATION_POLICIES)
    event_kinds = frozenset({"observation"})

    @classmethod
    def build(cls, spec: Spec) -> Self:
        initial = spec.get("initial") or {}
        resources = [{**r, "initial": initial.get(r["name"])} for r in spec["resources"]]
        # A refusal is a ReservationError (a ValueError naming the field).
        return cls(make_stream(spec["policy"]["kind"], resources,
                               spec["policy"].get("params") or None))

    @classmethod
    def from_state(cls, spec: Spec, state: Mapping[str, Any]) -> Self:
        return cls(stream_from_state(state))

    def apply(self, event: Event) -> Observed:
        period, last = event["period"], self.engine.last_period
        if last is not None and period != last + 1:
            raise PeriodConflict(f"expected period {last + 1}, got {period}: periods are "
                                 "consecutive and each is observed once")
        return Observed(self.engine.observe(period, event["demand"]))

    def describe(self) -> dict[str, Any]:
        return self.engine.describe()

    def to_state(self) -> dict[str, Any]:
        return self.engine.to_state()

    def gauges(self, answer: Mapping[str, Any]) -> Gauges:
        return {"epsilon": {spec.name: spec.epsilon for spec in self.engine.resources},
                "violation": dict(answer.get("violation_rate", {}))}
