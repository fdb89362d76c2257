"""The toy's own routes: take tokens, give them back."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from app.api.routes.deps import Auth, Ctx, answer_with, require_cluster
from app.service.events import submit_event
from tests.plugins.toy.schemas import TokensIn, TokensOut

router = APIRouter(prefix="/v1/clusters/{cluster_id}/tokens", tags=["toy"])


def _event(kind: str, cluster_id: str, body: TokensIn, ctx: Ctx, principal: Auth,
           request: Request) -> JSONResponse:
    family = require_cluster(request, principal, cluster_id, "write")
    return answer_with(family, kind, submit_event(ctx, cluster_id, {
        "kind": kind, "event_id": body.event_id, "holder": body.holder,
        "tokens": body.tokens}))


@router.post(":take", response_model=TokensOut, operation_id="toyTake")
def take(cluster_id: str, body: TokensIn, ctx: Ctx, principal: Auth, request: Request
         ) -> JSONResponse:
    return _event("take", cluster_id, body, ctx, principal, request)


@router.post(":give", response_model=TokensOut, operation_id="toyGive")
def give(cluster_id: str, body: TokensIn, ctx: Ctx, principal: Auth, request: Request
         ) -> JSONResponse:
    return _event("give", cluster_id, body, ctx, principal, request)
