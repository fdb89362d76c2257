"""Job events: a job arrives, a job departs, or a batch of both.

A placement cluster answers an arrival at once (placed / rejected, 200); a queued cluster
(RMS and the greedy queue baselines) answers 202 with the job's place in the queue, or 200 if
it started at once. Which model an answer takes, and which decisions are a 202, is what the
cluster's family declares (``app/families``). ``GET .../jobs`` lists the jobs a cluster holds,
so that a client which lost track (the Kubernetes pod watcher after a restart) can reconcile."""

from __future__ import annotations

from typing import Annotated, Any

import anyio.to_thread
from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse

from app.api.lean import lean
from app.api.problems import responses
from app.api.routes.deps import (
    Auth,
    Ctx,
    IdempotencyKey,
    answer_with,
    event_id_from,
    require_cluster,
    require_cluster_async,
)
from app.api.schemas.clusters import JobPage
from app.api.schemas.common import CLIENT_ID_PATTERN
from app.api.schemas.events import (
    ArrivalIn,
    ArrivalOut,
    BatchIn,
    BatchOut,
    DepartureIn,
    DepartureOut,
)
from app.api.schemas.queues import QueueArrivalOut
from app.errors import Unprocessable, WrongClusterKind
from app.policies.capabilities import HoldsJobs
from app.service.decider import submit, submit_batch
from app.service.engines import ClusterRow
from app.service.events import dry_run, dry_run_batch, read_adapter

router = APIRouter(prefix="/v1/clusters/{cluster_id}", tags=["placement"],
                   responses=responses(400, 401, 403, 404, 409, 413, 422, 503))



@router.post("/arrivals", response_model=ArrivalOut, operation_id="postArrival",
             summary="A job arrives: place it or reject it (queued clusters: queue it)",
             responses={202: {"model": QueueArrivalOut,
                              "description": "Queued: the job waits for the scheduler."}})
@lean
async def arrival(cluster_id: str, body: ArrivalIn, ctx: Ctx, principal: Auth,
                  request: Request, idempotency_key: IdempotencyKey = None) -> JSONResponse:
    family = await require_cluster_async(request, principal, cluster_id, "write")
    event = _with_time({"kind": "arrival", "job_id": body.job_id, "job_type": body.job_type},
                       body.at)
    # Only present when given, so that the events of clusters without tenants hash as before.
    if body.tenant is not None:
        event["tenant"] = body.tenant
    if body.priority is not None:
        event["priority"] = body.priority
    if body.dry_run:
        return answer_with(family, "arrival",
                           await anyio.to_thread.run_sync(dry_run, ctx, cluster_id, event))
    event["event_id"] = event_id_from(body.event_id, idempotency_key)
    return answer_with(family, "arrival", await submit(ctx, cluster_id, event))


@router.post("/departures", response_model=DepartureOut, operation_id="postDeparture",
             summary="A job departs: free its slot, maybe migrate, reconfigure or start "
                     "queued jobs; a job still waiting in a queue is withdrawn from it")
@lean
async def departure(cluster_id: str, body: DepartureIn, ctx: Ctx, principal: Auth,
                    request: Request, idempotency_key: IdempotencyKey = None) -> JSONResponse:
    family = await require_cluster_async(request, principal, cluster_id, "write")
    event = _with_time({"kind": "departure", "job_id": body.job_id,
                        "event_id": event_id_from(body.event_id, idempotency_key)}, body.at)
    return answer_with(family, "departure", await submit(ctx, cluster_id, event))


def _with_time(event: dict[str, Any], at: float | None) -> dict[str, Any]:
    # Only present when given, so that placement events hash as they always did.
    return event if at is None else {**event, "at": at}


@router.post("/events:batch", response_model=BatchOut, operation_id="postEventBatch",
             summary="Several events decided in order in one transaction, all or nothing")
async def batch(cluster_id: str, body: BatchIn, ctx: Ctx, principal: Auth, request: Request
                ) -> JSONResponse:
    family = await require_cluster_async(request, principal, cluster_id, "write")
    limit = ctx.settings.max_batch_events
    if len(body.events) > limit:
        raise Unprocessable(f"at most {limit} events per batch",
                            errors=[{"field": "events", "message": f"more than {limit}"}])
    events = [e.model_dump(exclude_none=True) for e in body.events]
    unserved = sorted({e["kind"] for e in events} - family.answers.keys())
    if unserved:
        raise WrongClusterKind(f"{cluster_id!r} is a {family.name} cluster, which takes no "
                               f"{', '.join(unserved)} events")
    if body.dry_run:
        results = await anyio.to_thread.run_sync(dry_run_batch, ctx, cluster_id, events)
    else:
        results = await submit_batch(ctx, cluster_id, events)
    return JSONResponse({"results": [
        family.answers[e["kind"]].model_validate(r).model_dump(mode="json")
        for e, r in zip(events, results)]})


@router.get("/jobs", response_model=JobPage, operation_id="listJobs",
            summary="The jobs the cluster holds (running, and on queued clusters waiting), "
                    "in job id order", responses=responses(404, 409, 422))
def jobs(cluster_id: str, ctx: Ctx, principal: Auth, request: Request,
         limit: Annotated[int, Query(ge=1, le=1000)] = 500,
         cursor: Annotated[str | None, Query(
             pattern=CLIENT_ID_PATTERN,  # any id a job was ever given (older ones had "/")
             description="The previous page's next_cursor: jobs whose id sorts after it")] = None
         ) -> dict[str, Any]:
    require_cluster(request, principal, cluster_id, "read", capability=HoldsJobs)

    def reader(adapter: HoldsJobs, _cluster: ClusterRow) -> dict[str, Any]:
        # A cursor is a job id, not an offset, so a job that arrives or departs between two
        # pages moves no other job from one page to the next.
        page, total = adapter.held_jobs(cursor, limit + 1)
        more = len(page) > limit
        return {"items": page[:limit], "total": total,
                "next_cursor": page[limit - 1]["job_id"] if more else None}

    return read_adapter(ctx, cluster_id, reader, HoldsJobs)
