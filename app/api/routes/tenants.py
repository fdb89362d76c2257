"""Tenants and gangs: a gang's all-or-nothing arrival (placement clusters), and an admin's
change of the tenants' quotas (placement and queued clusters) (docs/tenants.md)."""

from __future__ import annotations

from typing import Any

import anyio.to_thread
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from app.api.lean import lean
from app.api.problems import responses
from app.api.routes.deps import (
    Auth,
    Ctx,
    IdempotencyKey,
    answer_with,
    event_id_from,
    require_cluster_async,
)
from app.api.schemas.queues import QueueGangOut
from app.api.schemas.tenants import GangIn, GangOut, QuotasIn, QuotasOut
from app.service.decider import submit
from app.service.events import dry_run

_PREFIX, _RESPONSES = "/v1/clusters/{cluster_id}", responses(400, 401, 403, 404, 409, 413, 422,
                                                              503)
gangs_router = APIRouter(prefix=_PREFIX, tags=["tenants"], responses=_RESPONSES)
quotas_router = APIRouter(prefix=_PREFIX, tags=["tenants"], responses=_RESPONSES)


def gang_event(body: GangIn) -> dict[str, Any]:
    event: dict[str, Any] = {"kind": "gang", "gang_id": body.gang_id,
                             "members": [m.model_dump() for m in body.members],
                             "priority": body.priority}
    if body.tenant is not None:
        event["tenant"] = body.tenant
    if body.at is not None:
        event["at"] = body.at
    if body.timeout is not None:
        event["timeout"] = body.timeout
    return event


@gangs_router.post("/gangs", response_model=GangOut, operation_id="postGang",
             summary="A gang of jobs arrives: place (or start) every member or none",
             responses={202: {"model": QueueGangOut,
                              "description": "A queued cluster: the gang waits whole."}})
@lean
async def gang(cluster_id: str, body: GangIn, ctx: Ctx, principal: Auth, request: Request,
               idempotency_key: IdempotencyKey = None) -> JSONResponse:
    family = await require_cluster_async(request, principal, cluster_id, "write")
    event = gang_event(body)
    if body.dry_run:
        return answer_with(family, "gang",
                           await anyio.to_thread.run_sync(dry_run, ctx, cluster_id, event))
    event["event_id"] = event_id_from(body.event_id, idempotency_key)
    return answer_with(family, "gang", await submit(ctx, cluster_id, event))


@quotas_router.put("/tenants", response_model=QuotasOut, operation_id="setQuotas",
            summary="Replace the tenants' quotas (admin), from the next decision on",
            responses=responses(412))
async def set_quotas(cluster_id: str, body: QuotasIn, ctx: Ctx, principal: Auth,
                     request: Request, idempotency_key: IdempotencyKey = None) -> JSONResponse:
    family = await require_cluster_async(request, principal, cluster_id, "admin")
    event = {"kind": "quotas", "generation": body.generation,
             "tenants": [t.model_dump(mode="json") for t in body.tenants],
             "event_id": event_id_from(body.event_id, idempotency_key)}
    return answer_with(family, "quotas", await submit(ctx, cluster_id, event))
