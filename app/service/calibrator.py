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
   ``HEADROOM_CALIBRATION_WORKERS``. A claim is a conditional UPDATE, so one process wins.

A calibration runs in a child process (app/sim/moments/background.py) at nice 19, the lowest
CPU priority, so decisions on the same cores come first; the child dies with its parent
(PR_SET_PDEATHSIG) and its lease then expires, and another process (or this one, restarted)
resumes it from the candidates it had finished.
"""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import uuid
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import IO, Any

from sqlalchemy import func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from app.errors import HeadroomError
from app.policies.moments.policies import POLICIES
from app import redact
from app.service.context import ServiceContext
from app.service.events import submit_event
from app.store.models import Cluster, Event, MomentCalibration, as_utc, utcnow

log = logging.getLogger("headroom.calibrator")

LEASE = timedelta(seconds=30)  # renewed every pass; a process silent this long is gone
MAX_ATTEMPTS = 3  # a calibration whose child fails this often is marked failed
CHILD = ("-m", "app.sim.moments.background")


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


# Loaded here, in the parent: between fork and exec (where _die_with_parent runs, with other
# threads' locks possibly held) the child must not load a library, only call into one.
_LIBC = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None
PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """In the child, before exec: lowest priority, and SIGKILL when the parent dies."""
    os.nice(19)
    if _LIBC is not None:
        _LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


class Child:
    def __init__(self, ctx: ServiceContext, key: str, worker: str):
        env = {**os.environ, "HEADROOM_DATABASE_URL": ctx.settings.database_url}
        if ctx.settings.dask_scheduler:
            env["HEADROOM_DASK_SCHEDULER"] = ctx.settings.dask_scheduler
        self.key = key
        self.stderr: IO[bytes] = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([sys.executable, *CHILD, key, worker], env=env,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=self.stderr, preexec_fn=_die_with_parent)

    def error(self) -> str:
        self.stderr.seek(0)
        return redact.text(self.stderr.read()[-4000:].decode("utf-8", "replace"))[-2000:]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


class CalibrationLoop:
    def __init__(self, ctx: ServiceContext, interval: float = 2.0):
        self.ctx, self.interval = ctx, interval
        self.workers = ctx.settings.calibration_workers
        self.me = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.children: dict[str, Child] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self.interval > 0:
            self._thread = threading.Thread(target=self._run, name="headroom-calibrator",
                                            daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
        for child in self.children.values():
            child.stop()  # its lease expires; another process resumes it
        self.children.clear()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.run_once()
            except Exception:  # a bad pass must not end the loop (the database may be down)
                log.exception("calibration pass failed")

    def run_once(self) -> None:
        waiting = waiting_clusters(self.ctx)
        jobs = self._sync_jobs(waiting)
        for key, (_, clusters) in waiting.items():
            job = jobs.get(key)
            if job is not None and job["status"] == "done":
                self._announce(key, job["result"], clusters)
        self._tend_children()
        if self.workers > len(self.children):
            self._claim([k for k, j in jobs.items() if j["status"] in ("queued", "running")])
        self.ctx.metrics.calibration_pass(self._counts(), len(self.children))

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

    def _tend_children(self) -> None:
        t = MomentCalibration.__table__
        now = utcnow()
        for key, child in list(self.children.items()):
            code = child.proc.poll()
            if code is None:
                with self.ctx.db.begin() as conn:
                    held = conn.execute(update(t).where(
                        t.c.key == key, t.c.worker == self.me, t.c.status == "running")
                        .values(lease_until=now + LEASE)).rowcount
                if held != 1:  # cancelled, or taken over after a stall: stop computing
                    child.stop()
                    del self.children[key]
                continue
            del self.children[key]
            if code == 0:
                log.info("calibration finished", extra={"calibration": key})
                continue
            error = child.error()
            with self.ctx.db.begin() as conn:
                row = conn.execute(select(t.c.attempts).where(
                    t.c.key == key, t.c.worker == self.me, t.c.status == "running")).first()
                if row is not None:
                    conn.execute(update(t).where(t.c.key == key, t.c.worker == self.me).values(
                        status="failed" if row.attempts >= MAX_ATTEMPTS else "queued",
                        worker=None, lease_until=None, eta_at=None, error=error,
                        updated_at=now))
            log.warning("calibration child exited with %s", code, extra={"calibration": key})

    def _claim(self, keys: list[str]) -> None:
        t = MomentCalibration.__table__
        for key in sorted(keys):
            if len(self.children) >= self.workers or self._stop.is_set():
                return
            if key in self.children:
                continue
            now = utcnow()
            with self.ctx.db.begin() as conn:
                won = conn.execute(update(t).where(t.c.key == key, or_(
                    t.c.status == "queued",
                    (t.c.status == "running") & (t.c.lease_until < now)))
                    .values(status="running", worker=self.me, lease_until=now + LEASE,
                            attempts=t.c.attempts + 1, started_at=now, updated_at=now)
                    ).rowcount
            if won == 1:
                log.info("calibration started", extra={"calibration": key})
                self.children[key] = Child(self.ctx, key, self.me)


def progress(ctx: ServiceContext, key: str) -> dict[str, Any] | None:
    """A calibration's job as the state view shows it: status, lives, ETA."""
    t = MomentCalibration.__table__
    with ctx.db.connect() as conn:
        row = conn.execute(select(t.c.status, t.c.lives_done, t.c.lives_total, t.c.eta_at,
                                  t.c.started_at, t.c.attempts, t.c.error)
                           .where(t.c.key == key)).first()
    if row is None:
        return {"status": "queued", "lives_done": 0, "lives_total": None, "eta": None}
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
