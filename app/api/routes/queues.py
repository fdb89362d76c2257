"""Queued clusters: where a job is, and ticks that move the scheduler's clock.

Arrivals and departures go through the job routes (placement.py); this module adds what only
a queue has. Ticks carry no event id: "fire everything due before ``until``" means the same
thing twice, and a tick that finds nothing due is not logged at all.
"""

from __future__ import annotations

import uuid
from typing import Any

from fastapi import APIRouter, Request

from app.api.problems import responses
from app.api.routes.deps import Auth, Ctx, require_cluster
from app.api.schemas.common import SegmentId
from app.api.schemas.queues import JobOut, TickIn, TickOut
from app.policies.capabilities import TracksJobs
from app.service.events import submit_event
from app.service.forecasts import job_with_forecast

router = APIRouter(prefix="/v1/clusters/{cluster_id}", tags=["queues"],
                   responses=responses(401, 403, 404, 409))


@router.post("/tick", response_model=TickOut, operation_id="postTick",
             summary="Fire the scheduler's clocks and dummy departures due before `until`",
             responses=responses(400, 409, 413, 422, 503))
def tick(cluster_id: str, body: TickIn, ctx: Ctx, principal: Auth, request: Request
         ) -> dict[str, Any]:
    require_cluster(request, principal, cluster_id, "write")
    event: dict[str, Any] = {"kind": "tick", "event_id": f"tick-{uuid.uuid4()}"}
    if body.until is not None:
        event["until"] = body.until
    return submit_event(ctx, cluster_id, event)


@router.get("/jobs/{job_id}", response_model=JobOut, response_model_exclude_none=True,
            operation_id="getJob", summary="Where a job is: queued (with a forecast of its start), running or finished")
def job(cluster_id: str, job_id: SegmentId, ctx: Ctx, principal: Auth, request: Request
        ) -> dict[str, Any]:
    require_cluster(request, principal, cluster_id, "read", capability=TracksJobs)
    return job_with_forecast(ctx, cluster_id, job_id)
