"""Tenants and gangs: a cluster's tenants and their quotas, a quota change, a gang's arrival
and its decision, and the tenancy part of a cluster's state (docs/tenants.md)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, model_validator

from app.api.schemas.common import (
    Amount,
    ClientId,
    Delivery,
    Instant,
    Name,
    PreemptionOut,
    SegmentId,
    StrictModel,
)

MAX_TENANTS = 64  # per cluster: also bounds the per-tenant metrics' cardinality
MAX_GANG = 1024
PRIORITY_DOC = ("Within its tenant: a job of higher priority may preempt the tenant's own "
                "jobs of lower priority (0 when not given).")
TENANT_DOC = "The tenant the job runs for; required where the cluster declares tenants."

Priority = Field(0, ge=-1000, le=1000, description=PRIORITY_DOC)
GANG_TIMEOUT_DOC = ("Queued clusters: refuse the gang (withdraw its members) if it has not "
                    "started this many time units after it arrived; none: it waits until a "
                    "member departs. Placement clusters decide at once and refuse it.")
GANGS_TIMED_OUT_DOC = ("Queued clusters: gangs whose timeout passed up to this event, refused "
                       "(their members withdrawn).")
GangTimeout = Annotated[float | None, Field(gt=0, le=1e12, allow_inf_nan=False)]


class TenantPreemption(StrictModel):
    reclaim: bool = Field(True, description=(
        "An arrival that keeps the tenant within its nominal quota may preempt the jobs of "
        "cohort tenants that borrow."))
    within_tenant: bool = Field(True, description=(
        "A job may preempt the tenant's own jobs of lower priority."))


class TenantIn(StrictModel):
    """Vectors are keyed by the cluster's dimensions (every one, no other)."""

    model_config = {**StrictModel.model_config, "json_schema_extra": {"examples": [
        {"name": "ml", "cohort": "research", "nominal": {"cpu": 400, "memory": 3200},
         "borrowing_limit": {"cpu": 200, "memory": 1600}, "weight": 2}]}}

    name: Name
    nominal: dict[Name, Amount] = Field(description="The quota the tenant is guaranteed.")
    cohort: Name | None = Field(None, description=(
        "Tenants of one cohort lend each other their unused nominal quota; none: the tenant "
        "has its nominal quota only."))
    borrowing_limit: dict[Name, Amount] | None = Field(None, description=(
        "At most this much beyond nominal, borrowed from the cohort; none: no limit but the "
        "cohort's unused quota."))
    lending_limit: dict[Name, Amount] | None = Field(None, description=(
        "At most this much of its unused nominal quota is lent to the cohort; none: all of "
        "it."))
    weight: float = Field(1.0, gt=0, le=1e6, allow_inf_nan=False, description=(
        "Fair-sharing weight: a tenant's dominant share is divided by it."))
    preemption: TenantPreemption = Field(default_factory=TenantPreemption)


class QuotasIn(StrictModel):
    model_config = {**StrictModel.model_config, "json_schema_extra": {"examples": [
        {"generation": 1, "tenants": [{"name": "ml", "nominal": {"cpu": 200}}]}]}}

    event_id: ClientId | None = Field(None, description=(
        "Idempotency key of the change, unique per cluster (or the Idempotency-Key header)."))
    generation: int = Field(ge=1, description=(
        "The quotas' generation this change replaces (`tenancy.generation` in the state); "
        "another one is refused with 412, so two admins cannot undo each other unseen."))
    tenants: list[TenantIn] = Field(min_length=1, max_length=MAX_TENANTS)

    @model_validator(mode="after")
    def _names_unique(self) -> QuotasIn:
        names = [t.name for t in self.tenants]
        if len(set(names)) != len(names):
            raise ValueError("tenants: names must be unique")
        return self


class QuotasOut(Delivery):
    decision: Literal["quotas_set"]
    generation: int = Field(description="The new generation.")
    tenants: list[dict[str, Any]]
    started: list[dict[str, Any]] | None = Field(None, description=(
        "Queued clusters: jobs that waited for quota and started at once under the new "
        "quotas."))
    gangs_timed_out: list[str] | None = Field(None, description=GANGS_TIMED_OUT_DOC)


class GangMember(StrictModel):
    job_id: SegmentId
    job_type: Name


class GangIn(StrictModel):
    model_config = {**StrictModel.model_config, "json_schema_extra": {"examples": [
        {"event_id": "evt-9", "gang_id": "train-42", "tenant": "ml",
         "members": [{"job_id": "train-42-0", "job_type": "gpu"},
                     {"job_id": "train-42-1", "job_type": "gpu"}]}]}}

    event_id: ClientId | None = Field(None, description=(
        "Idempotency key, unique per cluster (or the Idempotency-Key header)."))
    gang_id: SegmentId
    members: list[GangMember] = Field(min_length=1, max_length=MAX_GANG, description=(
        "Placed in this order, each by the cluster's policy; each departs on its own."))
    tenant: Name | None = Field(None, description=TENANT_DOC)
    priority: int = Priority
    at: Instant | None = Field(None, description=(
        "When the gang arrived (never decreasing), where clients keep the cluster's time: "
        "queued clusters on the client clock, DRA with a client-clock migration budget. "
        "Other clusters refuse it."))
    timeout: GangTimeout = Field(None, description=GANG_TIMEOUT_DOC)
    dry_run: bool = Field(False, description="Decide without committing anything.")

    @model_validator(mode="after")
    def _ids_unique(self) -> GangIn:
        ids = [m.job_id for m in self.members]
        if len(set(ids)) != len(ids):
            raise ValueError("members: job ids must be unique")
        return self


class PlacedMember(BaseModel):
    job_id: str
    job_type: str
    server_id: str | None


class FailedMember(BaseModel):
    job_id: str
    job_type: str
    reason: str


class GangOut(Delivery):
    decision: Literal["placed", "rejected"]
    gang_id: str
    reason: str = Field(description="all_placed, quota_exceeded, or the refused member's.")
    members: list[PlacedMember] = Field(description="Where each member runs; empty if none.")
    failed: FailedMember | None = Field(None, description=(
        "The member the cluster could not place; null when the quota refused the gang."))
    preempted: list[PreemptionOut] = []
    details: dict[str, Any] = Field({}, description=(
        "quota_exceeded: `quota` (the tenant's usage, nominal and borrowed, what is short "
        "and which limit, and who holds the cohort's borrowed share)."))


class TenantView(BaseModel):
    name: str
    cohort: str | None
    weight: float | None
    declared: bool = Field(description="False for a tenant a quota change removed while its "
                                        "jobs still run.")
    usage: dict[str, float]
    nominal: dict[str, float]
    borrowed: dict[str, float]
    dominant_share: float = Field(description=(
        "Its fair-sharing value: what it borrows of the cohort's lendable quota, on the "
        "resource where that is most, over its weight; 0 within its nominal quota."))
    jobs: int
    preempted: int = Field(description="Its jobs preempted so far.")
    refused: int = Field(description="Its arrivals and gangs refused so far.")
    waiting: int | None = Field(None, description="Queued clusters: its jobs waiting for "
                                "quota.")


class TenancyView(BaseModel):
    generation: int
    tenants: list[TenantView]
