"""Moment-admission clusters: /v1/clusters/{id}/deployments and their scale events.

A deployment is admitted or rejected when it arrives; later its scale-outs are granted whenever
the cores are free (a denial is an SLA failure) and its scale-ins release cores. Every event
carries ``at`` (hours), which never decreases per cluster."""

from __future__ import annotations

from typing import Annotated, Any

import anyio.to_thread
from fastapi import APIRouter, Query, Request

from app.api.lean import lean
from app.api.problems import responses
from app.api.routes.deps import (
    Auth,
    Ctx,
    IdempotencyKey,
    event_id_from,
    require_cluster,
    require_cluster_async,
)
from app.api.schemas.common import ClientId
from app.api.schemas.moments import (
    AdmissionOut,
    DeploymentIn,
    ScaleEvent,
    ScaleInOut,
    ScaleOutOut,
)
from app.api.schemas.state import DeploymentView
from app.policies.capabilities import HasDeployments
from app.service.decider import submit
from app.service.events import dry_run, read_adapter

router = APIRouter(prefix="/v1/clusters/{cluster_id}/deployments", tags=["deployments"],
                   responses=responses(400, 401, 403, 404, 409, 413, 422, 503))


@router.post("", response_model=AdmissionOut, operation_id="postDeployment",
             summary="A deployment arrives: admit it or not, bounding future scale-out failures")
@lean
async def arrive(cluster_id: str, body: DeploymentIn, ctx: Ctx, principal: Auth,
                 request: Request, idempotency_key: IdempotencyKey = None) -> dict[str, Any]:
    await require_cluster_async(request, principal, cluster_id, "write")
    event = {"kind": "deployment", "deployment_id": body.deployment_id, "cores": body.cores,
             "at": body.at, "category": body.category,
             "prior": None if body.prior is None else body.prior.engine_dict()}
    if body.tenant is not None:  # only when given: events without tenants hash as before
        event["tenant"] = body.tenant
    if body.dry_run:
        return await anyio.to_thread.run_sync(dry_run, ctx, cluster_id, event)
    event["event_id"] = event_id_from(body.event_id, idempotency_key)
    return await submit(ctx, cluster_id, event)


@router.post("/{deployment_id}/scale-outs", response_model=ScaleOutOut,
             operation_id="postScaleOut",
             summary="The deployment asks for more cores: all or nothing")
@lean
async def scale_out(cluster_id: str, deployment_id: str, body: ScaleEvent, ctx: Ctx,
                    principal: Auth, request: Request, idempotency_key: IdempotencyKey = None
                    ) -> dict[str, Any]:
    await require_cluster_async(request, principal, cluster_id, "write")
    return await _scale(ctx, cluster_id, deployment_id, "scale_out", body, idempotency_key)


@router.post("/{deployment_id}/scale-ins", response_model=ScaleInOut,
             operation_id="postScaleIn",
             summary="Cores of the deployment end; at zero cores the deployment dies")
@lean
async def scale_in(cluster_id: str, deployment_id: str, body: ScaleEvent, ctx: Ctx,
                   principal: Auth, request: Request, idempotency_key: IdempotencyKey = None
                   ) -> dict[str, Any]:
    await require_cluster_async(request, principal, cluster_id, "write")
    return await _scale(ctx, cluster_id, deployment_id, "scale_in", body, idempotency_key)


async def _scale(ctx: Ctx, cluster_id: str, deployment_id: str, kind: str,
                 body: ScaleEvent, idempotency_key: str | None) -> dict[str, Any]:
    return await submit(ctx, cluster_id, {
        "kind": kind, "deployment_id": deployment_id, "cores": body.cores, "at": body.at,
        "event_id": event_id_from(body.event_id, idempotency_key)})


@router.delete("/{deployment_id}", response_model=ScaleInOut, operation_id="deleteDeployment",
               summary="Shut the deployment down at once (its lifetime ended)")
async def shutdown(cluster_id: str, deployment_id: str, ctx: Ctx, principal: Auth,
                   request: Request, at: Annotated[float, Query(ge=0, le=1e9, allow_inf_nan=False)],
                   event_id: Annotated[ClientId | None, Query()] = None,
                   idempotency_key: IdempotencyKey = None) -> dict[str, Any]:
    await require_cluster_async(request, principal, cluster_id, "write")
    return await submit(ctx, cluster_id, {
        "kind": "shutdown", "deployment_id": deployment_id, "at": at,
        "event_id": event_id_from(event_id, idempotency_key)})


@router.get("/{deployment_id}", operation_id="getDeployment", response_model=None,
            summary="A deployment's belief (posterior parameters), expected-cores curve and migrate answer",
            responses={200: {"model": DeploymentView, "description": "The deployment"}})
def view(cluster_id: str, deployment_id: str, ctx: Ctx, principal: Auth, request: Request
         ) -> dict[str, Any]:
    require_cluster(request, principal, cluster_id, "read", capability=HasDeployments)
    return read_adapter(ctx, cluster_id, lambda adapter, _c: adapter.deployment_view(deployment_id),
                        HasDeployments)

