"""The background loop that keeps wall-clock queued clusters' time moving.

RMS starts queued jobs on Poisson clock ticks and frees dummy jobs' slots when they depart;
with the wall clock those happen between requests, so something must fire them. Every process
runs one loop: each pass ticks every wall-clock queued cluster up to now through the ordinary
event path (cluster row lock, log, commit), so several processes may tick one cluster and the
lock orders them; the second finds nothing due and is answered ``idle`` without writing.

A pass lists the wall-clock clusters (one query) and skips a cluster without a transaction when
this process holds its engine at the committed version and nothing is due yet: then the cluster
costs one indexed read.

Fairness: one pass fires at most ``TICK_BUDGET_PER_PASS`` internal events per cluster (the tick
carries the budget, and the log keeps it, so a replay fires the same events); a cluster with
more due is left behind until the next pass, its lag visible in its state. Passes start at a
different cluster each time (round robin), so a pass cut short by ``stop`` does not always
leave the same clusters waiting.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import select

from app import tracing
from app.errors import ClusterNotFound, HeadroomError
from app.policies.rms.family import QueueFamily
from app.service.clock import TICK_BUDGET_PER_PASS, wall_time
from app.service.context import ServiceContext
from app.service.events import submit_event
from app.store.models import Cluster

log = logging.getLogger("headroom.ticker")


def wall_clock_clusters(ctx: ServiceContext) -> list[tuple[str, datetime]]:
    """Every wall-clock queued cluster (id, creation time): read on every pass, so a cluster
    created by any process ticks from the next pass on. The clock mode is read inside the
    database (JSON path), so the specs themselves are not shipped."""
    clock = Cluster.spec["policy"]["clock"].as_string()
    with ctx.db.connect() as conn:
        rows = conn.execute(select(Cluster.id, Cluster.created_at)
                            .where(Cluster.policy_kind.in_(QueueFamily.kinds), clock == "wall")
                            ).all()
    return [(r.id, r.created_at) for r in rows]


def tick_cluster(ctx: ServiceContext, cluster_id: str, created_at: datetime
                 ) -> dict[str, Any] | None:
    """Fire what is due on one cluster; None when it was skipped (see ``_can_wait``)."""
    with ctx.groups.exclusive(cluster_id):
        item = ctx.engines.peek(cluster_id)
        if item is not None and isinstance(item.engine, QueueFamily):
            with ctx.db.connect() as conn:
                version = conn.execute(select(Cluster.version)
                                       .where(Cluster.id == cluster_id)).scalar()
            if version is None:
                raise ClusterNotFound(f"cluster {cluster_id!r} does not exist")
            if version == item.version and _can_wait(item.engine, created_at):
                return None
    # No request holds this one: the span gives its lock, decide and commit spans one parent.
    with ctx.tracing.span(tracing.TICK, {"headroom.cluster_id": cluster_id}):
        return submit_event(ctx, cluster_id, {"kind": "tick",
                                              "event_id": f"tick-{uuid.uuid4()}",
                                              "budget": TICK_BUDGET_PER_PASS})


def _can_wait(engine: QueueFamily, created_at: datetime) -> bool:
    """True when ticking now can wait: nothing is due, or no job waits and the clock is less
    than half a span (``max_span``) behind. Clocks that fire while no job waits only make and
    end dummy jobs, which no client sees until its next event, and that event fires them
    itself (the same draws: the engine's decisions do not depend on how time is split). So an
    idle RMS cluster writes a tick row every half span instead of every pass, and its next
    event never has more than half a span to catch up."""
    scheduler = engine.engine
    behind = wall_time(engine, created_at) - scheduler.now
    if scheduler.next_event_time() >= scheduler.now + behind:
        return True
    return not scheduler.queued and behind < engine.max_span / 2


class TickLoop:
    def __init__(self, ctx: ServiceContext, interval: float):
        self.ctx, self.interval = ctx, interval
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._passes = 0  # rotates where a pass starts

    def start(self) -> None:
        if self.interval > 0:
            self._thread = threading.Thread(target=self._run, name="headroom-ticker",
                                            daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            started = time.monotonic()
            try:
                self.run_once()
            except Exception:  # a bad pass must not end the loop (the database may be down)
                log.exception("tick pass failed")
            self.ctx.metrics.tick_pass(time.monotonic() - started)

    def run_once(self) -> int:
        """One pass over the wall-clock clusters; returns how many advanced."""
        advanced = 0
        clusters = sorted(wall_clock_clusters(self.ctx))
        if clusters:
            start = self._passes % len(clusters)
            clusters = clusters[start:] + clusters[:start]
        self._passes += 1
        for cluster_id, created_at in clusters:
            if self._stop.is_set():
                break
            try:
                out = tick_cluster(self.ctx, cluster_id, created_at)
            except ClusterNotFound:  # deleted since the list was read
                continue
            except HeadroomError as exc:  # busy or diverged: the next pass tries again
                log.warning("tick failed", extra={"cluster_id": cluster_id, "code": exc.code})
                continue
            if out is not None and out["decision"] == "advanced":
                advanced += 1
        return advanced
