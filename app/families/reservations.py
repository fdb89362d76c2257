"""Reservation streams (THOR and its baselines): one observation per period, created and
served under /v1/reservations."""

from __future__ import annotations

from app.api.routes import reservations
from app.api.schemas.reservations import (
    ObservationOut,
    ReservationCreate,
    ReservationPolicy,
)
from app.families.base import Family
from app.policies.thor.family import ReservationFamily

RESERVATIONS = Family(
    name="reservations", engine=ReservationFamily, collection="reservations",
    policy_models=(ReservationPolicy,), create_model=ReservationCreate,
    routers=(reservations.router,), answers={"observation": ObservationOut})
