"""What-if runs: a window of a cluster's decision log replayed under another policy, off the
decision path.

``start`` stores a run (queued) for a cluster and the alternative's declaration the API
checked; ``view``, ``page`` and ``cancel`` read and stop runs, always within their cluster (the
API has checked the caller may use it, so a run is its owner's alone). Every process runs a
``WhatIfLoop``: each pass it tends its children, and claims queued runs (or runs whose lease
expired) while it runs fewer than ``HEADROOM_WHAT_IF_WORKERS``. A run is computed by a child
process (app/sim/whatif/background.py) at the lowest CPU priority that reads the log without
the cluster's lock, writes its progress, and stores the result; a run whose process died is
taken over and started again (a replay is deterministic, so the result is the same).
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from sqlalchemy import func, insert, select, update

from app.errors import TooManyWhatIfs, WhatIfNotFound
from app.service.background import Leases, Loop, Pool
from app.service.context import ServiceContext
from app.store.models import Event, WhatIf, as_utc, utcnow

log = logging.getLogger("headroom.whatifs")

MAX_ATTEMPTS = 3
CHILD = "app.sim.whatif.background"
# At most this many runs a cluster keeps queued or running at once: a what-if costs a replay of
# up to the whole log, and one client must not queue the pool full.
OPEN_PER_CLUSTER = 4


def start(ctx: ServiceContext, cluster_id: str, request: dict[str, Any]) -> dict[str, Any]:
    """A queued run of ``request`` (policy, the alternative's declaration, window, seeds)."""
    t = WhatIf.__table__
    now = utcnow()
    wid = str(uuid.uuid4())
    with ctx.db.begin() as conn:
        open_runs = conn.execute(select(func.count()).select_from(t).where(
            t.c.cluster_id == cluster_id, t.c.status.in_(("queued", "running")))).scalar_one()
        if open_runs >= OPEN_PER_CLUSTER:
            raise TooManyWhatIfs(f"this cluster has {open_runs} what-if runs queued or "
                                 "running; wait for one or cancel it")
        total = conn.execute(select(func.count()).select_from(Event).where(
            *window_clauses(cluster_id, request.get("window") or {}))).scalar_one()
        conn.execute(insert(t).values(id=wid, cluster_id=cluster_id, request=request,
                                      status="queued", events_total=total, created_at=now,
                                      updated_at=now))
    return view(ctx, cluster_id, wid)


def window_clauses(cluster_id: str, window: dict[str, Any]) -> list[Any]:
    out = [Event.cluster_id == cluster_id]
    if window.get("from_seq") is not None:
        out.append(Event.seq >= window["from_seq"])
    if window.get("to_seq") is not None:
        out.append(Event.seq <= window["to_seq"])
    return out


def _view(row: Any) -> dict[str, Any]:
    def at(ts: Any) -> str | None:
        return None if ts is None else as_utc(ts).isoformat()
    return {"id": row.id, "cluster_id": row.cluster_id, "status": row.status,
            "request": row.request,
            "progress": {"events_done": row.events_done, "events_total": row.events_total},
            "attempts": row.attempts, "created_at": at(row.created_at),
            "started_at": at(row.started_at), "finished_at": at(row.finished_at),
            "error": row.error if row.status == "failed" else None,
            "result": row.result}


def view(ctx: ServiceContext, cluster_id: str, wid: str) -> dict[str, Any]:
    t = WhatIf.__table__
    with ctx.db.connect() as conn:
        row = conn.execute(t.select().where(t.c.id == wid, t.c.cluster_id == cluster_id)).first()
    if row is None:
        raise WhatIfNotFound(f"what-if {wid!r} does not exist on this cluster")
    return _view(row)


def page(ctx: ServiceContext, cluster_id: str, limit: int) -> list[dict[str, Any]]:
    """The cluster's runs, newest first, without their results (GET one for it)."""
    t = WhatIf.__table__
    with ctx.db.connect() as conn:
        rows = conn.execute(t.select().where(t.c.cluster_id == cluster_id)
                            .order_by(t.c.created_at.desc(), t.c.id).limit(limit)).all()
    return [{**_view(r), "result": None} for r in rows]


def cancel(ctx: ServiceContext, cluster_id: str, wid: str) -> dict[str, Any]:
    """Cancel a queued or running run (its child stops at the next progress write); a finished
    one is left as it is."""
    t = WhatIf.__table__
    with ctx.db.begin() as conn:
        conn.execute(update(t).where(t.c.id == wid, t.c.cluster_id == cluster_id,
                                     t.c.status.in_(("queued", "running")))
                     .values(status="cancelled", worker=None, lease_until=None,
                             updated_at=utcnow()))
    return view(ctx, cluster_id, wid)


class WhatIfLoop(Loop):
    name = "headroom-what-if"

    def __init__(self, ctx: ServiceContext, interval: float = 1.0):
        super().__init__(ctx, interval)
        t = WhatIf.__table__
        self.pool = Pool(Leases(ctx, t, t.c.id, self.me), CHILD,
                         ctx.settings.what_if_workers, MAX_ATTEMPTS, log, "what_if")

    def run_once(self) -> None:
        pool = self.pool
        assert pool is not None
        pool.tend()
        if pool.workers <= len(pool.children):
            return
        t = WhatIf.__table__
        now = utcnow()
        with self.ctx.db.connect() as conn:
            ids = conn.execute(select(t.c.id).where(
                (t.c.status == "queued") | ((t.c.status == "running") & (t.c.lease_until < now)))
                .order_by(t.c.created_at).limit(pool.workers * 4)).scalars().all()
        pool.claim(list(ids), self.stopping)
