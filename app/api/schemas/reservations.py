"""Reservation streams (THOR and its baselines)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Discriminator, Field, Tag, model_validator

from app.api.schemas.common import Amount, AsGiven, ClientId, Name, StrictModel
from app.policies.thor import (
    DEFAULT_POLICY,
    RESERVATION_POLICIES,
    CapParams,
    ThorParams,
    TrackingParams,
)
from app.policies.thor.baselines import (
    FollowTheLeader,
    PercentileParams,
    PercentileRecommender,
)
from app.policies.thor.engine import ThorStream
from app.policies.thor.stream import MAX_VALUE
from app.policies.thor.tracking import DEFAULT_ESTIMATOR, QuantileTrackingStream

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


# The policies' parameters: the types, ranges and defaults of the engines' own parameter
# classes (app/policies/thor), which check them again (a stored declaration is built without
# these models). Cross-field rules stay with the engines and are 422s naming the field too.
# Some lower bounds are tighter than the engines': on a grid of every parameter at its
# bounds against extreme demand (0, 5e-324, 1e12, alternating), THOR divides by zero or
# answers infinity within a few observations with alpha, queue_target or tracking_gain at
# 5e-324, a cap's sigma at 5e-324, or V = 0 without alpha (the derived alpha is then 0), and a
# percentile first_bucket of 5e-324 overflows the bucket count. At the bounds below the same
# grid (4,000 THOR streams at resource costs 1 and 1e9) answers finite numbers throughout.
THOR_SMALLEST = 1e-6


class CapEstimatorParams(AsGiven):
    """The online Gaussian N(μ, σ²) that forecasts the next period's demand (estimator.py)."""

    level_weight: float = Field(CapParams.level_weight, gt=0, le=1, description=(
        "β: weight of the newest demand in the level μ (an exponentially weighted mean)."))
    spread_weight: float = Field(CapParams.spread_weight, gt=0, le=1, description=(
        "γ: weight of the newest squared one-step forecast error in the spread."))
    tail_factor: float = Field(CapParams.tail_factor, gt=0, le=1e3, description=(
        "κ: σ is κ times the root mean square of the one-step forecast errors."))
    sigma_floor: float = Field(CapParams.sigma_floor, ge=0, le=1e3, description=(
        "σ is at least this share of the level |μ|."))
    sigma_floor_abs: float = Field(CapParams.sigma_floor_abs, ge=1e-9, le=MAX_VALUE,
                                   description="σ is at least this, in demand units.")
    initial_spread: float = Field(CapParams.initial_spread, ge=0, le=1e3, description=(
        "The first demand λ seeds the spread with (initial_spread · λ)²."))


class TrackingEstimatorParams(CapEstimatorParams):
    tail_factor: float = Field(DEFAULT_ESTIMATOR["tail_factor"], gt=0, le=1e3, description=(
        "κ: σ is κ times the root mean square of the one-step forecast errors (1: the "
        "feedback, not a tail factor, absorbs heavy tails)."))


class QuantileTrackingParams(AsGiven):
    step: float = Field(TrackingParams.step, gt=0, le=100, description=(
        "η: how far one period's violation (or its absence) moves the offset, in forecast "
        "errors."))
    initial_offset: float | None = Field(None, ge=-100, le=100, description=(
        "q_1, the starting offset in forecast errors; null: the Gaussian z_ε."))
    estimator: TrackingEstimatorParams | None = Field(
        default_factory=TrackingEstimatorParams, description="null: the defaults.")


class GaussianCap(StrictModel):
    mean: float = Field(ge=0, le=MAX_VALUE)
    sigma: float = Field(ge=1e-9, le=MAX_VALUE,
                         description="At least 1e-9, the learnt cap's smallest floor.")


class ThorPolicyParams(AsGiven):
    V: float | None = Field(None, ge=0, le=1e12, description=(
        "Eq. (8)'s V; null: derived from queue_target per resource."))
    alpha: float | None = Field(None, ge=THOR_SMALLEST, le=1e12, description=(
        "Eq. (8)'s α; null: derived from queue_target and tracking_gain per resource."))
    queue_target: float = Field(ThorParams.queue_target, ge=THOR_SMALLEST, le=1e6,
                                description="Q*, the predictor queue's working level.")
    tracking_gain: float = Field(ThorParams.tracking_gain, ge=THOR_SMALLEST, le=2, description=(
        "k: share of a standardised deviation corrected per period (below 2 for "
        "stability)."))
    normalize: bool = Field(ThorParams.normalize, description=(
        "Run eq. (8) in units of σ (V and α dimensionless); false needs V and alpha in "
        "demand units."))
    initial_queue: float | None = Field(None, ge=0, le=1e12, description=(
        "Q(1); null: the equilibrium of the first period's cap."))
    estimator: CapEstimatorParams | None = Field(default_factory=CapEstimatorParams,
                                                 description="null: the defaults.")
    caps: dict[Name, GaussianCap] | None = Field(None, description=(
        "A known cap N(mean, sigma²) per declared resource instead of the learnt one (the "
        "paper's setting, where Theorem 1 applies)."))

    @model_validator(mode="after")
    def _alpha_for_no_cost(self) -> ThorPolicyParams:
        if self.V == 0 and self.alpha is None:
            raise ValueError("V = 0 needs an explicit alpha: the derived alpha would be 0")
        return self


class PercentilePolicyParams(AsGiven):
    """Kubernetes VPA recommender's defaults."""

    percentile: float | None = Field(None, gt=0, le=1, description=(
        "The percentile reserved; null: 1 − ε of each resource."))
    margin: float = Field(PercentileParams.margin, ge=0, le=10,
                          description="Safety margin on top of the percentile.")
    half_life: float = Field(PercentileParams.half_life, gt=0, le=1e9,
                             description="Periods after which a sample weighs half.")
    first_bucket: float = Field(PercentileParams.first_bucket, ge=1e-9, le=MAX_VALUE,
                                description="Width of the histogram's first bucket.")
    bucket_ratio: float = Field(PercentileParams.bucket_ratio, gt=1, le=10,
                                description="Each bucket this much wider than the last.")
    max_value: float = Field(PercentileParams.max_value, gt=0, le=MAX_VALUE, description=(
        "The histogram's end: above first_bucket, at most 100,000 buckets."))


class NoParams(StrictModel):
    """Follow-the-leader takes no parameters."""


class QuantileTrackingPolicy(StrictModel):
    kind: Literal[QuantileTrackingStream.kind] = Field(
        QuantileTrackingStream.kind, description="The default: holds the realised violation rate at "
        "epsilon by feeding violations back.")
    params: QuantileTrackingParams = Field(default_factory=QuantileTrackingParams)


class ThorPolicy(StrictModel):
    kind: Literal[ThorStream.kind] = Field(description="The paper's policy, whose queue holds its "
                                  "Gaussian model's violation probability at epsilon.")
    params: ThorPolicyParams = Field(default_factory=ThorPolicyParams)


class FtlPolicy(StrictModel):
    kind: Literal[FollowTheLeader.kind] = Field(description="Follow-the-leader: the ε-feasible quantile of "
                                 "all past demand.")
    params: NoParams = Field(default_factory=NoParams)


class PercentilePolicy(StrictModel):
    kind: Literal[PercentileRecommender.kind] = Field(description="A VPA-style decaying histogram's "
                                        "percentile plus a margin.")
    params: PercentilePolicyParams = Field(default_factory=PercentilePolicyParams)


RESERVATION_POLICY_MODELS = (QuantileTrackingPolicy, ThorPolicy, FtlPolicy, PercentilePolicy)


def _policy_kind(policy: Any) -> str:
    """A policy names its kind, or is the default's; an unknown kind goes to the default's
    model, whose ``kind`` refuses it (a 422 naming policy.kind)."""
    kind = policy.get("kind", DEFAULT_POLICY) if isinstance(policy, dict) else \
        getattr(policy, "kind", DEFAULT_POLICY)
    return kind if isinstance(kind, str) and kind in RESERVATION_POLICIES else DEFAULT_POLICY


ReservationPolicy = Annotated[
    Annotated[QuantileTrackingPolicy, Tag("quantile_tracking")]
    | Annotated[ThorPolicy, Tag("thor")] | Annotated[FtlPolicy, Tag("ftl")]
    | Annotated[PercentilePolicy, Tag("percentile")], Discriminator(_policy_kind)]


class ReservationCreate(StrictModel):
    model_config = {**StrictModel.model_config, "json_schema_extra": {"examples": [{
        "name": "web-tier", "resources": [{"name": "cpu", "cost": 1, "epsilon": 0.05},
                                          {"name": "memory", "cost": 0.5, "epsilon": 0.05}],
        "policy": {"kind": "quantile_tracking"}}]}}

    name: Name
    resources: list[ResourceIn] = Field(min_length=1, max_length=16)
    policy: ReservationPolicy = Field(default_factory=QuantileTrackingPolicy)
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
