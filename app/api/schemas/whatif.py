"""What-if runs: a window of a cluster's log replayed under another policy (docs/what-if.md)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator

from app.api.schemas.common import StrictModel


class Window(StrictModel):
    """The logged events to replay, by position in the log (both ends included; default: the
    whole log). Both sides start from an empty cluster at ``from_seq``."""

    from_seq: int | None = Field(None, ge=1, le=2**62)
    to_seq: int | None = Field(None, ge=1, le=2**62)

    @model_validator(mode="after")
    def _ordered(self) -> Window:
        if self.from_seq is not None and self.to_seq is not None and self.to_seq < self.from_seq:
            raise ValueError("window.to_seq must be at least window.from_seq")
        return self


class Advise(StrictModel):
    """Rank every kind of the cluster's family (and a small grid of each one's main
    parameters) by ``objective`` over the window, against the policy that ran."""

    objective: Literal["reward_rate", "acceptance", "queue_wait", "utilization",
                       "cost_per_period"] | None = Field(None, description=(
        "What to rank by. Default: reward_rate on placement clusters, queue_wait on queued "
        "ones, utilization on moment clusters (among candidates that keep the cluster's τ), "
        "cost_per_period on reservation streams (among those that keep every ε)."))
    max_rejection: float | None = Field(None, ge=0, le=1, description=(
        "Placement clusters: a candidate that rejects a larger share of arrivals ranks after "
        "every one that keeps this budget."))


class WhatIfCreate(StrictModel):
    """The alternative policy, as the cluster's declaration would give it (``policy``, any kind
    of the cluster's family with its parameters), or ``advise`` to rank them all, and the
    window."""

    model_config = {**StrictModel.model_config, "json_schema_extra": {"examples": [
        {"policy": {"kind": "best_fit"}, "window": {"from_seq": 1, "to_seq": 50000},
         "seeds": [0, 1, 2, 3, 4], "differences": 20}]}}

    policy: dict[str, Any] | None = Field(None, description=(
        "The alternative's `policy` object, as POST /v1/clusters (or /v1/reservations) takes "
        "it; the rest of the cluster's declaration is kept. Give this or `advise`."),
        examples=[{"kind": "best_fit"}])
    advise: Advise | None = Field(None, description=(
        "Instead of one alternative: the policy advisor (docs/what-if.md)."))
    window: Window = Field(default_factory=Window)
    seeds: list[Annotated[int, Field(ge=0, lt=2**32)]] = Field(
        [0, 1, 2, 3, 4], min_length=1, max_length=20, json_schema_extra={"uniqueItems": True},
        description=(
        "Seeds of the lifetimes drawn for jobs only the alternative admits; several give "
        "the range over them where drawing entered."))
    differences: int = Field(20, ge=0, le=1000, description=(
        "How many of the first decisions that differ to return, each with both answers."))

    @model_validator(mode="after")
    def _one_question(self) -> WhatIfCreate:
        if (self.policy is None) == (self.advise is None):
            raise ValueError("give either policy (one alternative) or advise (rank them all)")
        return self

    @field_validator("seeds")
    @classmethod
    def _seeds(cls, seeds: list[int]) -> list[int]:
        if any(not 0 <= s < 2**32 for s in seeds) or len(set(seeds)) != len(seeds):
            raise ValueError("seeds must be distinct integers in [0, 2^32)")
        return seeds


class WhatIfProgress(StrictModel):
    events_done: int
    events_total: int


class WhatIfRun(StrictModel):
    id: str
    cluster_id: str
    status: Literal["queued", "running", "done", "failed", "cancelled"]
    request: dict[str, Any] = Field(description="The alternative's declaration, window, seeds.")
    progress: WhatIfProgress
    attempts: int
    created_at: str
    started_at: str | None = None
    finished_at: str | None = None
    error: str | None = None
    result: dict[str, Any] | None = Field(None, description=(
        "Once done: both sides' figures, the assumptions the alternative made and how many "
        "events each touched, and the first decisions that differ (docs/what-if.md)."))


class WhatIfPage(StrictModel):
    items: list[WhatIfRun]
