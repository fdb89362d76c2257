"""Cluster declarations: dimensions, server pools, job types and the placement policy."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, model_validator

from app.api.schemas.common import Amount, Name, PositiveAmount, StrictModel
from app.api.schemas.queues import GreedyQueuePolicy, RmsPolicy
from app.api.schemas.state import AdmissibleView
from app.api.schemas.tenants import MAX_TENANTS, TenantIn
from app.policies.best_fit import BestFit
from app.policies.dra.engine import DRAEngine
from app.policies.first_fit import MAX_INDEX_ENTRIES, FirstFit
from app.policies.power_of_d import PowerOfD
from app.policies.tenancy import tenant_errors


class ServerPoolIn(StrictModel):
    name: Name = "pool"
    count: int = Field(ge=1, le=1_000_000, description="Number of identical servers.")
    capacity: dict[Name, PositiveAmount] = Field(
        description="Capacity per resource dimension, e.g. {\"cpu\": 80, \"memory\": 640}.")


class JobTypeIn(StrictModel):
    name: Name
    demand: dict[Name, Amount] = Field(description="Demand per resource dimension.")
    reward: Amount = Field(1.0, description="Reward per unit time while running (u_j).")
    priority: int = Field(0, ge=0, le=9, description="Used by DRA's optional preemption.")


class FirstFitPolicy(StrictModel):
    kind: Literal[FirstFit.kind]


class BestFitPolicy(StrictModel):
    kind: Literal[BestFit.kind]


class PowerOfDPolicy(StrictModel):
    kind: Literal[PowerOfD.kind]
    d: int = Field(5, ge=1, le=1000, description="Servers sampled per arrival.")
    only_feasible: bool = Field(
        False, description="false: the least loaded sampled server, rejected if the job does "
        "not fit there (DRA paper §7.2, read literally); true: the least loaded sampled "
        "server where it fits.")


class ReservationExponent(StrictModel):
    # b > 0: Theorem 3 needs g(L) = ω(log L). Checked here, at declaration, not by the engine:
    # clusters declared with b = 0 before this rule still load and replay.
    b: float = Field(0.5, gt=0, le=10, description="g(L) = ln(L)^(1+b) reserved slots per type; "
                     "b > 0 (Theorem 3 needs g(L) to grow faster than log L).")


class ReservationSlots(StrictModel):
    slots: float = Field(gt=0, le=1e9, description="A fixed number of reserved slots per type.")


class RefreshEvery(StrictModel):
    every_events: int = Field(ge=1, le=1_000_000, description="Refresh GPA's targets after "
                              "every n-th admission or departure.")


class RefreshBand(StrictModel):
    band: float = Field(ge=0, lt=1, description="Refresh GPA's targets when some type's jobs "
                        "in system plus g(L) differ from the targets' input by more than band "
                        "times g(L) (below 1, or a type whose slots are full never grows).")


class MigrationBudget(StrictModel):
    rate: float = Field(gt=0, le=1e9, description="Migrations per time unit (per server with "
                        "per=server, for the whole cluster with per=cluster).")
    per: Literal["server", "cluster"] = "cluster"
    burst: float | None = Field(None, ge=1, le=1e9, description="Bucket size in migrations "
                                "(default: one time unit's worth, at least 1).")
    clock: Literal["wall", "client"] = Field(
        "wall", description="wall: time is seconds since the cluster's creation, stamped by "
        "the service into each logged event; client: every event carries `at`.")


class DraPolicy(StrictModel):
    """Dynamic Reservation Algorithm (Psychas & Ghaderi, Algorithm 2)."""

    kind: Literal[DRAEngine.kind]
    reservation: ReservationExponent | ReservationSlots = Field(
        default_factory=ReservationExponent,
        description="The reservation factor g(L): {\"b\": 0.5} or {\"slots\": n}.")
    migrations: bool | Literal["on", "off_no_drain", "off_drain"] = Field(
        "on", description="on (true): after a departure from the Accept Group, migrate a job "
        "of its type from the Reject Group into the freed slot. off_no_drain (false, the old "
        "spelling): never migrate and keep DRA's Reject Group (one server per configuration); "
        "does not converge after a change in the mix. off_drain (§8): never migrate, and every "
        "server beyond GPA's targets (rank J+1) takes no new job until it empties.")
    preemption: bool | Literal["off", "rebuild", "admit"] = Field(
        "off", description="rebuild (true, §7.2): a rejected job of priority >= 1 preempts "
        "priority-0 Reject-Group jobs, smallest first, up to g(L) times its size, and stays "
        "rejected. admit: a rejected job of priority p >= 1 preempts jobs of priority < p on "
        "the server where that makes it fit losing the least reward, and is placed there.")
    gpa_refresh: Literal["every_event"] | RefreshEvery | RefreshBand = Field(
        "every_event", description="When GPA's targets follow the jobs in the system: after "
        "every admission and departure (the paper), every n of them, or when some type's "
        "count moves more than a band from the targets in use (hysteresis). Fewer target "
        "changes mean fewer Reject-Group servers, hence fewer migrations.")
    migration_budget: MigrationBudget | None = Field(
        None, description="At most `rate` migrations per time unit (per server or per "
        "cluster), as a token bucket of `burst` tokens; a departure with no token left "
        "migrates nothing.")

    @model_validator(mode="after")
    def _budget_needs_migrations(self) -> DraPolicy:
        if self.migration_budget is not None and self.migrations not in (True, "on"):
            raise ValueError("migration_budget limits migrations: it needs migrations \"on\"")
        return self


# Placement policies answer at once (placed / rejected); queue policies (RMS and the greedy
# queue baselines) make a job wait until it can start.
PolicyIn = Annotated[DraPolicy | FirstFitPolicy | BestFitPolicy | PowerOfDPolicy
                     | RmsPolicy | GreedyQueuePolicy, Field(discriminator="kind")]


EXAMPLE_CLUSTER = {
    "name": "prod-east",
    "dimensions": ["cpu", "memory"],
    "server_pools": [{"name": "m5", "count": 100, "capacity": {"cpu": 80, "memory": 640}}],
    "job_types": [
        {"name": "small", "demand": {"cpu": 4, "memory": 16}, "reward": 48},
        {"name": "large", "demand": {"cpu": 32, "memory": 256}, "reward": 512},
    ],
    "policy": {"kind": "dra", "reservation": {"b": 0.5}},
}


class ClusterCreate(StrictModel):
    """Vectors are keyed by the declared ``dimensions`` (every one, no other)."""

    model_config = {**StrictModel.model_config,
                    "json_schema_extra": {"examples": [EXAMPLE_CLUSTER]}}

    name: Name
    dimensions: list[Name] = Field(min_length=1, max_length=16)
    server_pools: list[ServerPoolIn] = Field(min_length=1, max_length=64)
    job_types: list[JobTypeIn] = Field(min_length=1, max_length=256)
    policy: PolicyIn
    seed: int = Field(0, ge=0, le=2**63 - 1,
                      description="Seeds the policy's random generator (power-of-d, RMS).")
    tenants: list[TenantIn] | None = Field(None, max_length=MAX_TENANTS, description=(
        "The tenants its arrivals run for, with their quotas "
        "(docs/tenants.md); none: one anonymous stream of jobs."))

    @model_validator(mode="after")
    def _names_unique(self) -> ClusterCreate:
        for label, names in (("dimensions", self.dimensions),
                             ("server_pools", [p.name for p in self.server_pools]),
                             ("job_types", [t.name for t in self.job_types])):
            if len(set(names)) != len(names):
                raise ValueError(f"{label}: names must be unique")
        return self


class ClusterUpdate(StrictModel):
    model_config = {**StrictModel.model_config,
                    "json_schema_extra": {"examples": [{"name": "prod-east-2"}]}}

    name: Name


class ClusterPreview(BaseModel):
    """A cluster as its declaration makes it: what a dry run of the declaration answers, and
    what creation stores and answers, less what only creation gives (ClusterOut)."""

    owner: str = Field(description="The owner of the API key that declared it.")
    name: str
    family: str = Field(description="The policy family of its kind (placement, queues, "
                                    "moments): which routes serve the cluster.")
    policy: dict[str, Any]
    # Placement clusters:
    dimensions: list[str] | None = None
    server_pools: list[dict[str, Any]] | None = None
    job_types: list[dict[str, Any]] | None = None
    seed: int | None = None
    tenants: list[dict[str, Any]] | None = Field(None, description=(
        "The tenants as declared; a change of quotas since is in `GET .../state`."))
    # Moment admission clusters:
    capacity_cores: int | None = None
    sla: float | None = None
    admissible: AdmissibleView | None = Field(None, description=(
        "Moment clusters, in the creation answer and a dry run: what the empty cluster can "
        "admit (GET .../state has it for the cluster as it is now); null for other families "
        "and where no engine is read (GET, list, rename)."))


class ClusterOut(ClusterPreview):
    id: str
    version: int = Field(description="Number of events applied so far.")
    generation: int = Field(description="Changes with every admin update; use as If-Match.")
    created_at: datetime
    updated_at: datetime


class ClusterPage(BaseModel):
    items: list[ClusterOut]
    next_cursor: str | None = None


def spec_errors(body: ClusterCreate, max_servers: int, max_job_types: int
                ) -> list[dict[str, str]]:
    """Checks that span fields; each error names the field it is about."""
    errors: list[dict[str, str]] = []
    dims = set(body.dimensions)

    def vector(field: str, vec: dict[str, float]) -> None:
        missing, extra = dims - set(vec), set(vec) - dims
        if missing:
            errors.append({"field": field, "message": f"missing dimensions {sorted(missing)}"})
        if extra:
            errors.append({"field": field, "message": f"unknown dimensions {sorted(extra)}"})

    for i, pool in enumerate(body.server_pools):
        vector(f"server_pools[{i}].capacity", pool.capacity)
    total = sum(p.count for p in body.server_pools)
    if total > max_servers:
        errors.append({"field": "server_pools", "message":
                       f"{total} servers in all; at most {max_servers} per cluster"})
    if len(body.job_types) > max_job_types:
        errors.append({"field": "job_types", "message": f"at most {max_job_types} job types"})
    for i, t in enumerate(body.job_types):
        field = f"job_types[{i}].demand"
        vector(field, t.demand)
        if dims - set(t.demand) or set(t.demand) - dims:
            continue
        if all(v == 0 for v in t.demand.values()):
            errors.append({"field": field, "message": "a job must demand some resource"})
        elif not any(all(t.demand[d] <= p.capacity.get(d, 0) for d in dims)
                     for p in body.server_pools):
            errors.append({"field": field, "message":
                           f"job type {t.name!r} demands more than any server has"})
    if isinstance(body.policy, RmsPolicy):
        errors += body.policy.wall_rate_errors(total, len(body.job_types))
    if body.tenants is not None:
        errors += tenant_errors([t.model_dump() for t in body.tenants], body.dimensions)
    entries = total * len(body.job_types)
    if body.policy.kind in ("first_fit", "best_fit") and entries > MAX_INDEX_ENTRIES:
        errors.append({"field": "server_pools", "message":
                       f"{body.policy.kind} indexes every server for every job type: {total} "
                       f"servers x {len(body.job_types)} job types = {entries} entries, at most "
                       f"{MAX_INDEX_ENTRIES} (declare fewer servers or job types, or use dra "
                       "or power_of_d)"})
    return errors


class ServerSummary(BaseModel):
    server_id: str
    pool: str
    fill: float = Field(description="The fullest dimension's used / capacity, 0 to 1.")
    jobs: int
    jobs_per_type: dict[str, int]
    configuration: dict[str, int] | None = Field(
        None, description="DRA only: the server's configuration (slots per job type).")
    rank: int | None = Field(None, description="DRA only: its configuration's rank in GPA.")
    group: Literal["accept", "reject"] | None = Field(
        None, description="DRA only: whether it is in its configuration's Accept Group.")


class ServerPage(BaseModel):
    items: list[ServerSummary]
    total: int = Field(description="Servers in the cluster.")
    next_cursor: str | None = None


class HeldJob(BaseModel):
    job_id: str
    job_type: str
    status: Literal["running", "queued"]
    server_id: str | None = Field(description="Where it runs; null while it waits.")


class JobPage(BaseModel):
    items: list[HeldJob] = Field(description="In job id order (Python string order).")
    total: int = Field(description="Jobs the cluster holds now, on every page.")
    next_cursor: str | None = Field(
        None, description="The last job id of this page: pass it as ``cursor`` for the next.")
