"""Liveness, readiness and metrics: unversioned, at the root, as probes expect."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, PlainTextResponse
from prometheus_client import CONTENT_TYPE_LATEST
from sqlalchemy import text

from app.api.routes.deps import Ctx
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


@router.get("/metrics", operation_id="metrics", response_class=PlainTextResponse,
            summary="Prometheus metrics, summed over the server's worker processes")
def metrics(ctx: Ctx) -> PlainTextResponse:
    return PlainTextResponse(ctx.metrics.render(), media_type=CONTENT_TYPE_LATEST)
