"""Placement events: a job arrives, a job departs, or a batch of both."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from app.api.problems import responses
from app.api.routes.deps import Auth, Ctx, IdempotencyKey, event_id_from, require_cluster
from app.api.schemas.events import (ArrivalIn, BatchIn, BatchOut, DepartureIn, PlacementOut,
                                    ReleaseOut)
from app.errors import Unprocessable
from app.service.events import apply_batch, dry_run, submit_event

router = APIRouter(prefix="/v1/clusters/{cluster_id}", tags=["placement"],
                   responses=responses(400, 401, 403, 404, 409, 413, 422, 503))



@router.post("/arrivals", response_model=PlacementOut, operation_id="postArrival",
             summary="A job arrives: place it or reject it")
def arrival(cluster_id: str, body: ArrivalIn, ctx: Ctx, principal: Auth,
            idempotency_key: IdempotencyKey = None) -> dict[str, Any]:
    require_cluster(ctx, principal, cluster_id, "write")
    event = {"kind": "arrival", "job_id": body.job_id, "job_type": body.job_type}
    if body.dry_run:
        return dry_run(ctx, cluster_id, event)
    event["event_id"] = event_id_from(body.event_id, idempotency_key)
    return submit_event(ctx, cluster_id, event)


@router.post("/departures", response_model=ReleaseOut, operation_id="postDeparture",
             summary="A job departs: free its slot, maybe migrate or reconfigure")
def departure(cluster_id: str, body: DepartureIn, ctx: Ctx, principal: Auth,
              idempotency_key: IdempotencyKey = None) -> dict[str, Any]:
    require_cluster(ctx, principal, cluster_id, "write")
    event = {"kind": "departure", "job_id": body.job_id,
             "event_id": event_id_from(body.event_id, idempotency_key)}
    return submit_event(ctx, cluster_id, event)


@router.post("/events:batch", response_model=BatchOut, operation_id="postEventBatch",
             summary="Several events decided in order in one transaction, all or nothing")
def batch(cluster_id: str, body: BatchIn, ctx: Ctx, principal: Auth) -> dict[str, Any]:
    require_cluster(ctx, principal, cluster_id, "write")
    limit = ctx.settings.max_batch_events
    if len(body.events) > limit:
        raise Unprocessable(f"at most {limit} events per batch",
                            errors=[{"field": "events", "message": f"more than {limit}"}])
    events = [e.model_dump() for e in body.events]
    return {"results": apply_batch(ctx, cluster_id, events)}
