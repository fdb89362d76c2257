"""Job events (arrivals, departures) and the decisions returned for them."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Discriminator, Field, Tag

from app.api.schemas.common import (
    ClientId,
    Delivery,
    Instant,
    Name,
    PreemptionOut,
    SegmentId,
    StrictModel,
)
from app.api.schemas.queues import QueueArrivalOut, QueueReleaseOut
from app.api.schemas.tenants import (
    GANG_TIMEOUT_DOC,
    MAX_GANG,
    PRIORITY_DOC,
    TENANT_DOC,
    GangMember,
    GangOut,
    GangTimeout,
    Priority,
)

AT_DOC = ("Clusters whose clients keep the clock only (queued clusters, DRA with a client-clock "
          "migration budget): when the event happened (time units, never decreasing). Other "
          "placement clusters and the wall clock refuse it.")

EVENT_ID_DOC = ("Idempotency key of this event, unique per cluster. A retry with the same id "
                "and body returns the stored decision; with another body it is a 409. May be "
                "given as the Idempotency-Key header instead.")


class ArrivalIn(StrictModel):
    model_config = {**StrictModel.model_config, "json_schema_extra": {"examples": [
        {"event_id": "evt-1", "job_id": "vm-17", "job_type": "large"}]}}

    event_id: ClientId | None = Field(None, description=EVENT_ID_DOC)
    job_id: SegmentId
    job_type: Name
    at: Instant | None = Field(None, description=AT_DOC)
    tenant: Name | None = Field(None, description=TENANT_DOC)
    priority: int | None = Field(None, ge=-1000, le=1000, description=PRIORITY_DOC)
    dry_run: bool = Field(False, description="Decide without committing anything.")


class DepartureIn(StrictModel):
    model_config = {**StrictModel.model_config, "json_schema_extra": {"examples": [
        {"event_id": "evt-2", "job_id": "vm-17"}]}}

    event_id: ClientId | None = Field(None, description=EVENT_ID_DOC)
    # ClientId, not SegmentId: a job that arrived before ids had to be path segments (one with
    # a "/") must still be able to leave and free its slot.
    job_id: ClientId
    at: Instant | None = Field(None, description=AT_DOC)


class BatchArrival(StrictModel):
    kind: Literal["arrival"]
    event_id: ClientId
    job_id: SegmentId
    job_type: Name
    at: Instant | None = Field(None, description=AT_DOC)
    tenant: Name | None = Field(None, description=TENANT_DOC)
    priority: int | None = Field(None, ge=-1000, le=1000, description=PRIORITY_DOC)


class BatchGang(StrictModel):
    kind: Literal["gang"]
    event_id: ClientId
    gang_id: SegmentId
    members: list[GangMember] = Field(min_length=1, max_length=MAX_GANG)
    tenant: Name | None = Field(None, description=TENANT_DOC)
    priority: int = Priority
    at: Instant | None = Field(None, description=AT_DOC)
    timeout: GangTimeout = Field(None, description=GANG_TIMEOUT_DOC)


class BatchDeparture(StrictModel):
    kind: Literal["departure"]
    event_id: ClientId
    job_id: ClientId
    at: Instant | None = Field(None, description=AT_DOC)


BatchEvent = Annotated[BatchArrival | BatchDeparture | BatchGang, Field(discriminator="kind")]


class BatchIn(StrictModel):
    model_config = {**StrictModel.model_config, "json_schema_extra": {"examples": [
        {"events": [{"kind": "arrival", "event_id": "evt-3", "job_id": "a", "job_type": "small"},
                    {"kind": "departure", "event_id": "evt-4", "job_id": "a"}]}]}}

    events: list[BatchEvent] = Field(min_length=1)
    dry_run: bool = Field(False, description=(
        "Decide the events in order as the batch would, and commit nothing: what would "
        "happen (Nomad's job plan). Event ids are not checked against the log."))


class MigrationOut(BaseModel):
    job_id: str
    from_server_id: str
    to_server_id: str


class ReconfigurationOut(BaseModel):
    server_id: str
    configuration: dict[str, int]


class PlacementOut(Delivery):
    decision: Literal["placed", "rejected"]
    server_id: str | None
    reason: str
    details: dict[str, Any]
    preempted: list[PreemptionOut] = Field(
        [], description="Jobs removed to make room (DRA with preemption); they are gone.")
    reconfigured: list[ReconfigurationOut] = Field(
        [], description="Empty servers given a new configuration while deciding (DRA).")


class ReleaseOut(Delivery):
    decision: Literal["released"]
    server_id: str
    migration: MigrationOut | None = None
    reconfigured: list[ReconfigurationOut] = []
    details: dict[str, Any] = Field(
        {}, description="DRA: migrations and departures so far, migrations_per_departure, "
        "and migration_skipped (\"migration_budget\" when the budget had no token).")


def _answer_kind(v: Any) -> str:
    started = v.get("started") if isinstance(v, dict) else getattr(v, "started", None)
    return "placement" if started is None else "queue"


# What an arrival or a departure answers: a placement cluster's decision, or a queued one's.
ArrivalOut = Annotated[Annotated[PlacementOut, Tag("placement")]
                       | Annotated[QueueArrivalOut, Tag("queue")], Discriminator(_answer_kind)]
DepartureOut = Annotated[Annotated[ReleaseOut, Tag("placement")]
                         | Annotated[QueueReleaseOut, Tag("queue")], Discriminator(_answer_kind)]


class BatchOut(BaseModel):
    results: list[ArrivalOut | DepartureOut | GangOut]


class LoggedEvent(BaseModel):
    seq: int
    event_id: str
    kind: str
    request: dict[str, Any]
    decision: str
    response: dict[str, Any]
    created_at: datetime


class EventPage(BaseModel):
    items: list[LoggedEvent]
    next_cursor: str | None = None


class LockWaitsOut(BaseModel):
    """How long the transactions of the process that answered waited for this cluster's
    lock (Postgres' row lock, SQLite's write lock), since that process started."""

    process: int = Field(description="The answering process's id: each worker counts its own.")
    transactions: int
    mean_ms: float | None
    max_ms: float | None
    last_ms: float | None


class DecisionSummary(BaseModel):
    """What the last ``events`` decisions were: a recent-window view of the log for
    dashboards (acceptance, top reasons) without reading whole answers."""

    cluster_id: str
    events: int = Field(description="Events in the window (at most the window asked for).")
    latest_seq: int = Field(description="The newest event's seq: the cluster's version.")
    first_seq: int | None = Field(description="The oldest event's seq in the window.")
    decisions: dict[str, int] = Field(description="Events per decision, e.g. placed, rejected.")
    reasons: dict[str, int] = Field(description="Events per reason code (answers with one).")
    last_at: datetime | None = Field(description="When the newest event was logged.")
    lock_waits: LockWaitsOut
