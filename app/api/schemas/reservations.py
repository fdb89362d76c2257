"""Reservation streams (THOR and its baselines)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, model_validator

from app.api.schemas.common import Amount, ClientId, Name, StrictModel

# THOR's envelope needs the (1-ε) quantile at or above the mean (paper §III-D): ε <= 1/2.
Epsilon = Annotated[float, Field(ge=1e-6, le=0.5, allow_inf_nan=False,
                                 description="Share of periods whose demand may exceed the "
                                             "reservation, e.g. 0.05 (at most 0.5).")]


class ResourceIn(StrictModel):
    name: Name
    cost: Annotated[float, Field(gt=0, le=1e9, allow_inf_nan=False)] = Field(
        1.0, description="Cost c_i of reserving one unit for one period. It scores the "
        "stream (cost_so_far) and does not change any reservation: each resource's budget is "
        "met separately, so its cheapest feasible reservation does not depend on its price. "
        "Only THOR with an explicit params.V weighs it.")
    epsilon: Epsilon


class ReservationPolicy(StrictModel):
    kind: Literal["quantile_tracking", "thor", "ftl", "percentile"] = Field(
        "quantile_tracking", description="quantile_tracking (default) holds the realised "
        "violation rate at epsilon by feeding violations back; thor is the paper's policy, "
        "whose queue holds its Gaussian model's violation probability at epsilon.")
    params: dict[str, Any] = Field(
        default_factory=dict, description="Policy parameters; see docs/reproduction/thor.md "
        "(quantile_tracking: step, initial_offset, estimator; thor: queue_target, "
        "tracking_gain, estimator...). Checked by the policy.")


class ReservationCreate(StrictModel):
    model_config = {**StrictModel.model_config, "json_schema_extra": {"examples": [{
        "name": "web-tier", "resources": [{"name": "cpu", "cost": 1, "epsilon": 0.05},
                                          {"name": "memory", "cost": 0.5, "epsilon": 0.05}],
        "policy": {"kind": "quantile_tracking"}}]}}

    name: Name
    resources: list[ResourceIn] = Field(min_length=1, max_length=16)
    policy: ReservationPolicy = Field(default_factory=ReservationPolicy)
    initial: dict[Name, Amount] | None = Field(
        None, description="Reservation in force for the first period (default: nothing).")

    @model_validator(mode="after")
    def _consistent(self) -> ReservationCreate:
        names = [r.name for r in self.resources]
        if len(set(names)) != len(names):
            raise ValueError("resources: names must be unique")
        if self.initial is not None and set(self.initial) - set(names):
            raise ValueError("initial: names a resource that is not declared")
        return self


class ObservationIn(StrictModel):
    model_config = {**StrictModel.model_config, "json_schema_extra": {"examples": [
        {"event_id": "obs-17", "period": 17, "demand": {"cpu": 41.5, "memory": 80.2}}]}}

    event_id: ClientId | None = Field(None, description="Idempotency key (or the "
                                                        "Idempotency-Key header).")
    period: int = Field(ge=0, le=10**12, description="Consecutive: 0 (or any start), then +1.")
    demand: dict[Name, Amount] = Field(description="Observed demand per resource.")


class ObservationOut(BaseModel):
    period: int
    reserved: dict[str, float] = Field(description="The reservation this period was judged "
                                                   "against.")
    demand: dict[str, float]
    violated: dict[str, bool]
    next_reservation: dict[str, float] = Field(description="Reserve this for the next period.")
    violation_rate: dict[str, float]
    queue: dict[str, float] = Field(description="THOR's predictor queues Q_i (empty for "
                                                "baselines).")
    details: dict[str, Any]
    event_seq: int
    replayed: bool


class ReservationOut(BaseModel):
    id: str
    owner: str
    name: str
    resources: list[dict[str, Any]]
    policy: dict[str, Any]
    initial: dict[str, float] | None
    version: int
    generation: int
    created_at: datetime
    updated_at: datetime
    state: dict[str, Any] | None = Field(
        None, description="Reservation in force, violation rate vs ε, queues, cost so far.")


class ReservationPage(BaseModel):
    items: list[ReservationOut]
    next_cursor: str | None = None


class HistoryItem(BaseModel):
    period: int
    demand: dict[str, float]
    reserved: dict[str, float]
    violated: dict[str, bool]
    next_reservation: dict[str, float]
    event_id: str
    created_at: datetime


class HistoryPage(BaseModel):
    items: list[HistoryItem]
    next_cursor: str | None = None


class HindsightResource(BaseModel):
    name: str
    epsilon: float
    periods: int
    oracle_reservation: float | None = Field(
        description="x*: the smallest fixed reservation whose violations over the periods so "
                    "far stay within ε.")
    oracle_cost: float | None = Field(description="What x* held for every period would cost.")
    policy_cost: float = Field(description="What the stream's reservations cost (cost_so_far).")
    cost_ratio: float | None = Field(description="policy_cost / oracle_cost.")
    oracle_violation_rate: float | None
    policy_violation_rate: float | None


class Hindsight(BaseModel):
    reservation_id: str
    resources: list[HindsightResource]
