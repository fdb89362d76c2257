"""Liveness, readiness and metrics: unversioned, at the root, as probes expect."""

from __future__ import annotations

import hashlib
import hmac
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse, PlainTextResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from prometheus_client import CONTENT_TYPE_LATEST
from sqlalchemy import text

from app.api.problems import PROBLEM_JSON
from app.api.routes.deps import Ctx
from app.errors import MetricsUnauthorized
from app.store.migrate import is_at_head

router = APIRouter(tags=["health"])


@router.get("/livez", operation_id="livez", summary="The process is up")
def livez() -> dict[str, str]:
    return {"status": "ok"}


@router.get("/readyz", operation_id="readyz",
            summary="The database answers, its schema is at the newest migration, and the "
                    "compiled decision paths are built",
            responses={503: {"description": "Not ready: database unreachable, schema behind, "
                                            "or still compiling (warming)"}})
def readyz(ctx: Ctx, request: Request) -> JSONResponse:
    warmup = request.app.state.warmup
    if not warmup.ready:
        return JSONResponse({"status": "unavailable", "warming": warmup.pending,
                             "detail": "compiling the decision kernels at start"},
                            status_code=503)
    try:
        with ctx.db.connect() as conn:
            conn.execute(text("SELECT 1"))
        at_head, current, head = is_at_head(ctx.db, ctx.settings)
    except Exception as exc:  # noqa: BLE001 - any failure means "not ready", said plainly
        return JSONResponse({"status": "unavailable", "database": "unreachable",
                             "detail": type(exc).__name__}, status_code=503)
    body = {"status": "ok" if at_head else "unavailable", "database": "ok",
            "migration": current, "head": head}
    return JSONResponse(body, status_code=200 if at_head else 503)


_scrape_token = HTTPBearer(auto_error=False, scheme_name="metricsToken",
                           description="HEADROOM_METRICS_TOKEN, when the server sets one, "
                                       "sent as `Authorization: Bearer <token>`.")


@router.get("/metrics", operation_id="metrics", response_class=PlainTextResponse,
            summary="Prometheus metrics, summed over the server's worker processes",
            # The token is asked for only where the server sets one: {} (added to the
            # requirement the dependency declares) says a scrape without it may be served too.
            openapi_extra={"security": [{}]},
            responses={401: {"description": "HEADROOM_METRICS_TOKEN is set and the request "
                                            "does not carry it",
                             "content": {PROBLEM_JSON: {"schema": {
                                 "$ref": "#/components/schemas/Problem"}}}}})
def metrics(ctx: Ctx, credentials: Annotated[HTTPAuthorizationCredentials | None,
                                             Depends(_scrape_token)]) -> PlainTextResponse:
    """Open, with aggregates only, unless HEADROOM_METRICS_TOKEN is set: then only a scrape
    carrying it, and with the per-cluster series (labelled by every owner's cluster ids)."""
    token = ctx.settings.metrics_token
    if token is not None:
        sent = credentials.credentials if credentials is not None else ""
        # Digests of equal length, so the comparison's time says nothing about the token.
        if not hmac.compare_digest(hashlib.sha256(sent.encode()).digest(),
                                   hashlib.sha256(token.get_secret_value().encode()).digest()):
            raise MetricsUnauthorized("this server's /metrics needs its scrape token as "
                                      "'Authorization: Bearer <HEADROOM_METRICS_TOKEN>'")
    return PlainTextResponse(ctx.metrics.render(), media_type=CONTENT_TYPE_LATEST)
