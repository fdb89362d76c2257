"""Reservation streams (THOR and its baselines): one observation per period, created and
served under /v1/reservations."""

from __future__ import annotations

from app.api.routes import reservations
from app.api.schemas.reservations import (
    RESERVATION_POLICY_MODELS,
    ObservationOut,
    ReservationCreate,
)
from app.families.base import Family
from app.policies.thor.family import ReservationAdapter

RESERVATIONS = Family(
    name="reservations", adapter=ReservationAdapter, collection="reservations",
    policy_models=RESERVATION_POLICY_MODELS, create_model=ReservationCreate,
    routers=(reservations.router,), answers={"observation": ObservationOut})
