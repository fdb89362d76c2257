"""The FastAPI application: ``create_app()`` is the factory uvicorn runs."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from app import __version__
from app.api import problems
from app.api.middleware import RequestContextMiddleware
from app.api.routes import (clusters, deployments, health, keys, placement, queues,
                            reservations)
from app.config import Settings, get_settings
from app.logs import configure_logging
from app.service.context import ServiceContext
from app.service.ticker import TickLoop

DESCRIPTION = """Admission control for cloud clusters.

Orchestrators POST what happens in a cluster (a job arrives, a job departs); a stateful policy
engine answers where to place it or why it is rejected, or, on a queued cluster, queues it
until the scheduler starts it. Every decision is in the database
before it is answered, explains itself, and is safe to retry with the same `event_id`.
Errors are `application/problem+json` (RFC 9457) with a stable `code`.
"""


def create_app(settings: Settings | None = None, *, configure_logs: bool = True) -> FastAPI:
    settings = settings or get_settings()
    if configure_logs:
        configure_logging(settings.log_level)
    ctx = ServiceContext.from_settings(settings)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        loop = TickLoop(ctx, settings.tick_interval_seconds)
        loop.start()
        try:
            yield
        finally:
            loop.stop()
            ctx.close()

    app = FastAPI(title="Headroom", version=__version__, description=DESCRIPTION,
                  lifespan=lifespan)
    app.state.ctx = ctx
    problems.install(app)
    problems.document_problems(app)
    app.include_router(health.router)
    app.include_router(clusters.router)
    app.include_router(placement.router)
    app.include_router(queues.router)
    app.include_router(deployments.router)
    app.include_router(reservations.router)
    app.include_router(keys.router)
    app.add_middleware(RequestContextMiddleware, metrics=ctx.metrics,
                       max_body_bytes=settings.max_body_bytes)
    return app
