"""The FastAPI application: ``create_app()`` is the factory uvicorn runs."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_redoc_html
from fastapi.responses import HTMLResponse
from fastapi_offline import FastAPIOffline

from app import __version__, dashboard, tracing
from app.api import problems
from app.api.lean import LeanPath
from app.api.middleware import InFlightRequests, RequestContextMiddleware
from app.api.routes import clusters, health, keys, whatif
from app.api.throttle import RequestLimitMiddleware, RequestLimits
from app.config import Settings, get_settings
from app.families.base import Family, FamilyRegistry
from app.families.registry import REGISTRY
from app.logs import configure_logging
from app.service import affinity
from app.service.calibrator import CalibrationLoop
from app.service.context import ServiceContext
from app.service.ticker import TickLoop
from app.service.warmup import Warmup
from app.service.whatifs import WhatIfLoop

if TYPE_CHECKING:
    from opentelemetry.sdk.trace.export import SpanExporter

DESCRIPTION = """Admission control for cloud clusters.

Orchestrators POST what happens in a cluster (a job arrives, a job departs); a stateful policy
engine answers where to place it or why it is rejected, or, on a queued cluster, queues it
until the scheduler starts it. Every decision is in the database
before it is answered, explains itself, and is safe to retry with the same `event_id`.
Errors are `application/problem+json` (RFC 9457) with a stable `code`.
"""

# Where fastapi-offline serves Swagger UI's and ReDoc's files on this service.
DOCS_ASSETS = "/docs-assets"


log = logging.getLogger("headroom.shutdown")


def _add_redoc(app: FastAPI) -> None:
    """/redoc from the same local assets as /docs.

    fastapi-offline's own /redoc page is replaced because ReDoc 2.5's bundle hard-codes a
    decorative logo at cdn.redoc.ly: the page's Content-Security-Policy forbids images from
    other hosts, so the browser never sends that request (ReDoc hides the logo on error).
    """

    @app.get("/redoc", include_in_schema=False)
    def redoc(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        page = get_redoc_html(openapi_url=f"{root}{app.openapi_url}",
                              title=f"{app.title} - ReDoc",
                              redoc_js_url=f"{root}{DOCS_ASSETS}/redoc.standalone.js",
                              redoc_favicon_url=f"{root}{DOCS_ASSETS}/favicon.png",
                              with_google_fonts=False)
        page.headers["Content-Security-Policy"] = "img-src 'self' data:"
        return page


def _exit_if_requests_are_stuck(in_flight: InFlightRequests, timeout: int) -> None:
    """At the end of the lifespan's shutdown: if requests are still running (a thread busy in
    CPU work that the graceful timeout could not cancel), end the process now. The thread
    pool's threads are not daemonic, so the interpreter would otherwise wait for them.

    Exiting is safe: a decision is answered only after its commit, so a committed transaction
    is durable and was (or will be, on retry) answered from the log, and an uncommitted one
    is rolled back by the database when the connection drops (SQLite: by its journal on the
    next open). A client whose request was abandoned gets no answer and retries with the same
    event id."""
    stuck = in_flight.describe()
    if not stuck:
        return
    log.error("shutdown: abandoning %d request(s) still running after the %d s graceful "
              "timeout: %s", len(stuck), timeout, "; ".join(stuck))
    logging.shutdown()
    os._exit(1)


def create_app(settings: Settings | None = None, *, configure_logs: bool = True,
               span_exporter: SpanExporter | None = None,
               limits_clock: Callable[[], float] = time.monotonic,
               families: Iterable[Family[Any]] | None = None) -> FastAPI:
    """The application; ``span_exporter`` turns tracing on with that exporter whatever the
    ``OTEL_*`` environment says (see app/tracing.py); ``limits_clock`` is what the request
    limits read the time from (seconds; tests pass their own); ``families``: the policy
    families served (``app/families``; by default every one declared there), in the order
    their routers are mounted."""
    settings = settings or get_settings()
    if configure_logs:
        configure_logging(settings.log_level)
    registry = REGISTRY if families is None else FamilyRegistry(families)
    ctx = ServiceContext.from_settings(settings, registry)
    ctx.tracing = tracing.setup(ctx.db, span_exporter)

    in_flight = InFlightRequests()
    warmup = Warmup((f.name, f.warm) for f in registry.families if f.warm is not None)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        _app.state.warmup.start()
        loop = TickLoop(ctx, settings.tick_interval_seconds)
        loop.start()
        calibrations = CalibrationLoop(ctx)
        calibrations.start()
        what_ifs = WhatIfLoop(ctx)
        what_ifs.start()
        ctx.affinity = affinity.from_environment(ctx)
        if ctx.affinity is not None:
            await ctx.affinity.start()
        try:
            yield
        finally:
            if ctx.affinity is not None:
                await ctx.affinity.close()
            what_ifs.stop()
            calibrations.stop()
            loop.stop()
            ctx.metrics.worker_exit()
            ctx.close()
            ctx.tracing.shutdown()
            _exit_if_requests_are_stuck(in_flight, settings.shutdown_timeout_seconds)

    # /docs and /redoc load Swagger UI and ReDoc from this service, not from a CDN: an
    # air-gapped cluster has no CDN, and there FastAPI's default pages are blank. The assets
    # come from the fastapi-offline package, so upgrading them is a dependency bump.
    # FastAPI traces requests itself once given a tracer provider (the contrib
    # opentelemetry-instrumentation-fastapi middleware would only switch that off).
    # No redirect_slashes: Starlette's 307 to the path with or without a trailing slash
    # echoes the path in its Location header, API key and all on the Kubernetes routes
    # (app/redact.py); every client here sends the documented paths, so a stray slash is a
    # 404 that names the mistake. FastAPI's telemetry logs (validation failures, with the
    # values sent) stay off: the JSON log lines are the service's log.
    app = FastAPIOffline(title="Headroom", version=__version__, description=DESCRIPTION,
                         lifespan=lifespan, static_url=DOCS_ASSETS, redoc_url=None,
                         redirect_slashes=False,
                         telemetry={"tracer_provider": ctx.tracing.provider, "logs": False}
                         if ctx.tracing.on else None)
    _add_redoc(app)
    app.state.ctx = ctx
    app.state.warmup = warmup
    problems.install(app)
    problems.document_problems(app)
    app.include_router(health.router)
    app.include_router(clusters.router_for(registry))
    for router in registry.routers():  # each family's own routes, as it declares them
        app.include_router(router)
    app.include_router(keys.router)
    app.include_router(whatif.router)
    dashboard.install(app)
    limits = RequestLimits(settings.key_requests_per_second or 0,
                           settings.owner_requests_per_second or 0,
                           settings.owner_expensive_in_flight or 0, limits_clock)
    app.state.limits = limits
    # Innermost: inside the request context and limits, in front of the router.
    app.add_middleware(LeanPath, fastapi=app)
    if limits.on:  # added before the context, so it runs inside it, before routing
        app.add_middleware(RequestLimitMiddleware, ctx=ctx, metrics=ctx.metrics, limits=limits)
    app.add_middleware(RequestContextMiddleware, metrics=ctx.metrics,
                       max_body_bytes=settings.max_body_bytes, in_flight=in_flight)
    return app
