"""The background loop that keeps wall-clock clusters' time moving (the families declared
with a ``tick`` hook: queued clusters).

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
from sqlalchemy.exc import OperationalError

from app import tracing
from app.errors import ClusterNotFound, HeadroomError
from app.service.context import ServiceContext
from app.service.events import submit_event
from app.store.models import Cluster

log = logging.getLogger("headroom.ticker")

# Internal events (clock ticks, dummy departures) one tick-loop pass may fire on one cluster;
# the rest wait for the next pass and the clock's lag shows in the cluster's state. 2,000 is
# what a cluster at MAX_WALL_TICKS_PER_SECOND (app/families/clocks.py) fires per 1 s pass (1.6
# events per tick), so it keeps up, and caps a pass's share of the process at ~0.15 s of CPU
# per cluster (uniform sampling) whatever a cluster's backlog, so one tenant's backlog does
# not multiply the others' latency.
TICK_BUDGET_PER_PASS = 2_000


def wall_clock_clusters(ctx: ServiceContext) -> list[tuple[str, datetime]]:
    """Every wall-clock cluster of a ticked family (id, creation time): read on every pass, so
    a cluster created by any process ticks from the next pass on. The clock mode is read
    inside the database (JSON path), so the specs themselves are not shipped."""
    kinds = list(ctx.families.ticked())
    if not kinds:
        return []
    clock = Cluster.spec["policy"]["clock"].as_string()
    with ctx.db.connect() as conn:
        rows = conn.execute(select(Cluster.id, Cluster.created_at)
                            .where(Cluster.policy_kind.in_(kinds), clock == "wall")).all()
    return [(r.id, r.created_at) for r in rows]


def tick_cluster(ctx: ServiceContext, cluster_id: str, created_at: datetime
                 ) -> dict[str, Any] | None:
    """Fire what is due on one cluster; None when it was skipped: this process holds its
    engine at the committed version and its family's tick hook says it can wait."""
    with ctx.groups.exclusive(cluster_id):
        item = ctx.engines.peek(cluster_id)
        if item is not None:
            with ctx.db.connect() as conn:
                row = conn.execute(select(Cluster.version, Cluster.policy_kind)
                                   .where(Cluster.id == cluster_id)).first()
            if row is None:
                raise ClusterNotFound(f"cluster {cluster_id!r} does not exist")
            family = ctx.families.ticked().get(row.policy_kind)
            if family is not None and family.tick is not None and row.version == item.version \
                    and family.tick.can_wait(item.adapter, created_at):
                return None
    # No request holds this one: the span gives its lock, decide and commit spans one parent.
    with ctx.tracing.span(tracing.TICK, {"headroom.cluster_id": cluster_id}):
        return submit_event(ctx, cluster_id, {"kind": "tick",
                                              "event_id": f"tick-{uuid.uuid4()}",
                                              "budget": TICK_BUDGET_PER_PASS})


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
            except OperationalError as exc:  # the database is down or failing over: the
                # next pass fires what is due; an ERROR with a traceback would page for a pause
                log.warning("tick pass skipped: database unavailable (%s)", type(exc.orig).__name__)
            except Exception:  # a bad pass must not end the loop
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
