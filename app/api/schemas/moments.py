"""Moment-based admission clusters: deployments that scale out later (Dierks, Kash & Seuken)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from app.api.schemas.common import ClientId, Name, SegmentId, StrictModel

Cores = Annotated[int, Field(gt=0, le=10_000_000, strict=True)]
Hours = Annotated[float, Field(ge=0, le=1e9, allow_inf_nan=False,
                               description="Event time in hours; never decreases per cluster.")]


class MomentPolicy(StrictModel):
    kind: Literal["threshold", "first_moment", "second_moment"]
    threshold: float | None = Field(
        None, gt=0, le=1e9, allow_inf_nan=False,
        description="threshold / first_moment: t in cores; second_moment: the overflow bound "
                    "ρ (default: the paper's Table 2 values; calibrate with `headroom "
                    "calibrate moment`).")
    marginal: bool = Field(True, description="The marginal heuristic of §6.1.")


class MomentClusterCreate(StrictModel):
    model_config = {**StrictModel.model_config, "json_schema_extra": {"examples": [
        {"name": "paas-east", "capacity_cores": 20000, "sla": 0.0001,
         "policy": {"kind": "second_moment"}}]}}

    name: Name
    capacity_cores: Cores
    sla: float = Field(0.0001, gt=0, lt=1, allow_inf_nan=False,
                       description="Target scale-out failure rate τ (reported against).")
    policy: MomentPolicy


class GammaPrior(StrictModel):
    shape: float = Field(gt=0, le=1e6, allow_inf_nan=False)
    rate: float = Field(gt=0, le=1e6, allow_inf_nan=False)


class DeploymentIn(StrictModel):
    event_id: ClientId | None = None
    deployment_id: SegmentId
    cores: Cores
    at: Hours
    category: Name | None = Field(None, description="User label; deployments with the same "
                                                    "label share a learnt prior (§7).")
    prior: dict[str, Any] | None = Field(
        None, description='{"gamma": {"lambda": [shape, rate], "mu": [...], "sigma": [...]}} '
                          'and/or {"observations": {...}} pseudo-observations (§6).')
    dry_run: bool = False


class ScaleEvent(StrictModel):
    event_id: ClientId | None = None
    cores: Cores
    at: Hours


class AdmissionOut(BaseModel):
    decision: Literal["admitted", "rejected"]
    reason: str
    details: dict[str, Any]
    event_seq: int | None
    replayed: bool
    dry_run: bool = False


class ScaleOutOut(BaseModel):
    decision: Literal["granted", "denied"]
    active_cores: int
    sla_failure_rate: float
    event_seq: int
    replayed: bool


class ScaleInOut(BaseModel):
    decision: Literal["released"]
    active_cores: int
    alive: bool
    event_seq: int
    replayed: bool
