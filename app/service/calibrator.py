"""The background loop that calibrates moment clusters' thresholds for their declarations.

A moment cluster declared without a threshold, and not in the table, is stored with
``derivation.status`` "calibrating" and the key of its calibration's inputs
(app/policies/moments/recipe.py). Every process runs one loop; each pass:

1. lists the clusters still waiting: calibrating declarations with no ``threshold_calibrated``
   event in their log;
2. makes sure each waiting key has a job row (``moment_calibrations``), re-queues a cancelled
   one, and cancels a queued or running job no cluster waits for any more (its clusters were
   deleted);
3. tells every cluster waiting for a finished job through the ordinary event path (cluster
   lock, log, commit): the event carries the threshold and derivation, so replays, restarts
   and every process's engine agree at the same log position. Its event id is derived from
   the key, so two processes announcing at once log it once;
4. renews the leases of the calibrations it runs, reaps the finished ones, and claims queued
   jobs (or ones whose lease expired: their process died) while it runs fewer than
   ``HEADROOM_CALIBRATION_WORKERS`` (background.py's Pool and Leases).

A calibration runs in a child process (app/sim/moments/background.py) in the idle CPU class
at nice 19, which dies with its parent; its lease then expires, and another process (or this one, restarted) resumes
it from the candidates it had finished.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from app.errors import HeadroomError
from app.policies.moments.policies import POLICIES
from app.service.background import Leases, Loop, Pool
from app.service.context import ServiceContext
from app.service.events import submit_event
from app.store.models import Cluster, Event, MomentCalibration, as_utc, utcnow

log = logging.getLogger("headroom.calibrator")

MAX_ATTEMPTS = 3  # a calibration whose child fails this often is marked failed
CHILD = "app.sim.moments.background"


def event_id(key: str) -> str:
    return f"calibrated-{key[:32]}"


def waiting_clusters(ctx: ServiceContext) -> dict[str, tuple[dict[str, Any], list[str]]]:
    """Calibration key → (its inputs, the clusters waiting for it)."""
    status = Cluster.spec["policy"]["derivation"]["status"].as_string()
    with ctx.db.connect() as conn:
        rows = conn.execute(select(Cluster.id, Cluster.spec).where(
            Cluster.policy_kind.in_(POLICIES), status == "calibrating")).all()
        told = set(conn.execute(select(Event.cluster_id).where(
            Event.kind == "threshold_calibrated",
            Event.cluster_id.in_([r.id for r in rows]))).scalars()) if rows else set()
    out: dict[str, tuple[dict[str, Any], list[str]]] = {}
    for r in rows:
        if r.id in told:
            continue
        ref = r.spec["policy"]["derivation"]["calibration"]
        out.setdefault(ref["key"], (ref["inputs"], []))[1].append(r.id)
    return out


class CalibrationLoop(Loop):
    name = "headroom-calibrator"

    def __init__(self, ctx: ServiceContext, interval: float = 2.0):
        super().__init__(ctx, interval)
        self.workers = ctx.settings.calibration_workers
        t = MomentCalibration.__table__
        self.pool = Pool(Leases(ctx, t, t.c.key, self.me, {"eta_at": None}), CHILD,
                         self.workers, MAX_ATTEMPTS, log, "calibration")

    def run_once(self) -> None:
        waiting = waiting_clusters(self.ctx)
        jobs = self._sync_jobs(waiting)
        for key, (_, clusters) in waiting.items():
            job = jobs.get(key)
            if job is not None and job["status"] == "done":
                self._announce(key, job["result"], clusters)
        pool = self.pool
        assert pool is not None
        pool.tend()
        if self.workers > len(pool.children):
            pool.claim(sorted(k for k, j in jobs.items() if j["status"] in ("queued", "running")),
                       self.stopping)
        self.ctx.metrics.calibration_pass(self._counts(), len(pool.children))

    def _counts(self) -> dict[str, int]:
        t = MomentCalibration.__table__
        with self.ctx.db.connect() as conn:
            return {s: n for s, n in conn.execute(
                select(t.c.status, func.count()).group_by(t.c.status)).all()}

    def _sync_jobs(self, waiting: dict[str, tuple[dict[str, Any], list[str]]]
                   ) -> dict[str, dict[str, Any]]:
        t = MomentCalibration.__table__
        with self.ctx.db.connect() as conn:
            jobs = {r["key"]: dict(r) for r in conn.execute(t.select().where(or_(
                t.c.key.in_(list(waiting)), t.c.status.in_(("queued", "running"))))).mappings()}
        now = utcnow()
        for key, (inputs, _) in waiting.items():
            job = jobs.get(key)
            if job is None:
                try:
                    with self.ctx.db.begin() as conn:
                        conn.execute(insert(t).values(key=key, inputs=inputs, status="queued",
                                                      created_at=now, updated_at=now))
                except IntegrityError:  # another process queued it first
                    pass
                jobs[key] = {"key": key, "status": "queued"}
            elif job["status"] == "cancelled":
                with self.ctx.db.begin() as conn:
                    conn.execute(update(t).where(t.c.key == key, t.c.status == "cancelled")
                                 .values(status="queued", attempts=0, error=None,
                                         updated_at=now))
                job["status"] = "queued"
        for key, job in jobs.items():
            if key not in waiting and job["status"] in ("queued", "running"):
                with self.ctx.db.begin() as conn:
                    conn.execute(update(t).where(t.c.key == key,
                                                 t.c.status.in_(("queued", "running")))
                                 .values(status="cancelled", worker=None, lease_until=None,
                                         eta_at=None, updated_at=now))
                job["status"] = "cancelled"
                log.info("calibration cancelled: no cluster waits for it",
                         extra={"calibration": key})
        return jobs

    def _announce(self, key: str, result: dict[str, Any], clusters: Iterable[str]) -> None:
        for cluster_id in clusters:
            try:
                submit_event(self.ctx, cluster_id, {
                    "kind": "threshold_calibrated", "event_id": event_id(key),
                    "threshold": result["threshold"], "derivation": result["derivation"]})
            except HeadroomError as exc:  # deleted meanwhile, or busy: the next pass retries
                log.info("calibration not announced: %s", exc.code,
                         extra={"calibration": key, "cluster_id": cluster_id})


def progress(ctx: ServiceContext, key: str) -> dict[str, Any] | None:
    """A calibration's job as the state view shows it: status, lives, ETA."""
    t = MomentCalibration.__table__
    with ctx.db.connect() as conn:
        row = conn.execute(select(t.c.status, t.c.lives_done, t.c.lives_total, t.c.eta_at,
                                  t.c.started_at, t.c.attempts, t.c.error)
                           .where(t.c.key == key)).first()
    if row is None:
        # Not yet queued by a loop pass: shown as the row that pass will write, so the view's
        # shape does not depend on whether a pass has run.
        return {"status": "queued", "lives_done": 0, "lives_total": None, "started_at": None,
                "eta": None, "attempts": 0, "error": None}
    eta: datetime | None = None if row.eta_at is None else as_utc(row.eta_at)
    return {"status": row.status, "lives_done": row.lives_done,
            "lives_total": row.lives_total or None,
            "started_at": None if row.started_at is None else as_utc(row.started_at).isoformat(),
            "eta": None if eta is None else eta.isoformat(),
            "attempts": row.attempts, "error": row.error if row.status == "failed" else None}


def from_cache(ctx: ServiceContext, spec: dict[str, Any]) -> dict[str, Any]:
    """A new moment declaration that waits for a calibration already finished (another
    cluster's with the same inputs): the calibration's threshold and derivation, at once."""
    derivation = spec["policy"].get("derivation") or {}
    if derivation.get("status") != "calibrating":
        return spec
    key = derivation["calibration"]["key"]
    t = MomentCalibration.__table__
    with ctx.db.connect() as conn:
        result = conn.execute(select(t.c.result).where(t.c.key == key, t.c.status == "done")
                              ).scalar()
    if result is None:
        return spec
    policy = {**spec["policy"], "threshold": result["threshold"],
              "derivation": {**result["derivation"], "cached": True}}
    return {**spec, "policy": policy}
