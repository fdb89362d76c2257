"""Tenants and gangs on placement clusters: a gang's all-or-nothing arrival, and an admin's
change of the tenants' quotas (docs/tenants.md)."""

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
from app.api.schemas.tenants import GangIn, GangOut, QuotasIn, QuotasOut
from app.service.decider import submit
from app.service.events import dry_run

router = APIRouter(prefix="/v1/clusters/{cluster_id}", tags=["tenants"],
                   responses=responses(400, 401, 403, 404, 409, 413, 422, 503))


def gang_event(body: GangIn) -> dict[str, Any]:
    event: dict[str, Any] = {"kind": "gang", "gang_id": body.gang_id,
                             "members": [m.model_dump() for m in body.members],
                             "priority": body.priority}
    if body.tenant is not None:
        event["tenant"] = body.tenant
    if body.at is not None:
        event["at"] = body.at
    return event


@router.post("/gangs", response_model=GangOut, operation_id="postGang",
             summary="A gang of jobs arrives: place every member or none")
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


@router.put("/tenants", response_model=QuotasOut, operation_id="setQuotas",
            summary="Replace the tenants' quotas (admin), from the next decision on",
            responses=responses(412))
async def set_quotas(cluster_id: str, body: QuotasIn, ctx: Ctx, principal: Auth,
                     request: Request, idempotency_key: IdempotencyKey = None) -> JSONResponse:
    family = await require_cluster_async(request, principal, cluster_id, "admin")
    event = {"kind": "quotas", "generation": body.generation,
             "tenants": [t.model_dump(mode="json") for t in body.tenants],
             "event_id": event_id_from(body.event_id, idempotency_key)}
    return answer_with(family, "quotas", await submit(ctx, cluster_id, event))
