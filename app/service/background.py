"""Background jobs that compute off the decision path: a row per job, leased by one process,
computed by a child process at the lowest CPU priority.

The moment calibrations (calibrator.py) and the what-if runs (whatifs.py) share this: a job's
row has ``status`` (queued, running, done, failed, cancelled), ``worker`` and ``lease_until``,
``attempts``, ``error`` and ``started_at`` / ``updated_at``. ``Leases`` claims a queued row (or
one whose lease expired: its process died) with a conditional UPDATE, so exactly one process
wins; the parent renews the lease every pass. ``Child`` is the computation: a ``python -m``
module given the job's key and the worker's name, in the idle scheduling class at nice 19 so
a decision on the same cores always comes first, killed with its parent (PR_SET_PDEATHSIG) so a dead process's job is free
again when its lease runs out. ``Pool`` tends a process's children: renews, reaps, requeues a
failed one until it has failed ``max_attempts`` times.
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
from collections.abc import Callable
from datetime import timedelta
from typing import IO, Any

from sqlalchemy import Column, Table, or_, select, update
from sqlalchemy.exc import OperationalError

from app import redact
from app.service.context import ServiceContext
from app.store.models import utcnow

LEASE = timedelta(seconds=30)  # renewed every pass; a process silent this long is gone

# Loaded here, in the parent: between fork and exec (where _die_with_parent runs, with other
# threads' locks possibly held) the child must not load a library, only call into one.
_LIBC = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None
PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """In the child, before exec: lowest priority, and SIGKILL when the parent dies. Nice 19
    alone still lets the child finish its time slice when a decision's thread wakes; in the
    idle class (SCHED_IDLE) a waking task of any other class takes the core at once."""
    os.nice(19)
    if hasattr(os, "SCHED_IDLE"):
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    if _LIBC is not None:
        _LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


class Child:
    """``python -m module key worker`` with the database URL (and a Dask scheduler) in its
    environment, never on its command line."""

    def __init__(self, ctx: ServiceContext, module: str, key: str, worker: str):
        env = {**os.environ, "HEADROOM_DATABASE_URL": ctx.settings.database_url}
        if ctx.settings.dask_scheduler:
            env["HEADROOM_DASK_SCHEDULER"] = ctx.settings.dask_scheduler
        self.key = key
        self.stderr: IO[bytes] = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([sys.executable, "-m", module, key, worker], env=env,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=self.stderr, preexec_fn=_die_with_parent)

    def error(self) -> str:
        self.stderr.seek(0)
        return redact.text(self.stderr.read()[-4000:].decode("utf-8", "replace"))[-2000:]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


class Leases:
    """The lease columns of a job table whose key column is ``key``."""

    def __init__(self, ctx: ServiceContext, table: Table, key: Column[Any], me: str,
                 clear_on_stop: dict[str, Any] | None = None):
        """``clear_on_stop``: columns reset when a running attempt stops (a calibration's ETA)."""
        self.ctx, self.t, self.key, self.me = ctx, table, key, me
        self.clear_on_stop = clear_on_stop or {}

    def claim(self, key: str) -> bool:
        t, now = self.t, utcnow()
        with self.ctx.db.begin() as conn:
            return conn.execute(update(t).where(self.key == key, or_(
                t.c.status == "queued", (t.c.status == "running") & (t.c.lease_until < now)))
                .values(status="running", worker=self.me, lease_until=now + LEASE,
                        attempts=t.c.attempts + 1, started_at=now, updated_at=now)
            ).rowcount == 1

    def renew(self, key: str) -> bool:
        """False: the job is no longer this worker's (cancelled, or taken over after a stall)."""
        t = self.t
        with self.ctx.db.begin() as conn:
            return conn.execute(update(t).where(
                self.key == key, t.c.worker == self.me, t.c.status == "running")
                .values(lease_until=utcnow() + LEASE)).rowcount == 1

    def failed(self, key: str, error: str, max_attempts: int) -> None:
        """Requeued for another try, or failed after ``max_attempts``."""
        t = self.t
        with self.ctx.db.begin() as conn:
            row = conn.execute(select(t.c.attempts).where(
                self.key == key, t.c.worker == self.me, t.c.status == "running")).first()
            if row is not None:
                conn.execute(update(t).where(self.key == key, t.c.worker == self.me).values(
                    status="failed" if row.attempts >= max_attempts else "queued",
                    worker=None, lease_until=None, error=error, updated_at=utcnow(),
                    **self.clear_on_stop))


class Pool:
    """The children one process runs for one kind of job, at most ``workers`` at once."""

    def __init__(self, leases: Leases, module: str, workers: int, max_attempts: int,
                 log: logging.Logger, what: str):
        self.leases, self.module, self.workers = leases, module, workers
        self.max_attempts, self.log, self.what = max_attempts, log, what
        self.children: dict[str, Child] = {}

    def tend(self) -> None:
        for key, child in list(self.children.items()):
            code = child.proc.poll()
            if code is None:
                if not self.leases.renew(key):  # cancelled, or taken over: stop computing
                    child.stop()
                    del self.children[key]
                continue
            del self.children[key]
            if code == 0:
                self.log.info("%s finished", self.what, extra={self.what: key})
                continue
            self.leases.failed(key, child.error(), self.max_attempts)
            self.log.warning("%s child exited with %s", self.what, code, extra={self.what: key})

    def claim(self, keys: list[str], stopping: Callable[[], bool] = lambda: False) -> None:
        """Claim ``keys`` in their order while fewer than ``workers`` children run."""
        for key in keys:
            if len(self.children) >= self.workers or stopping():
                return
            if key in self.children:
                continue
            if self.leases.claim(key):
                self.log.info("%s started", self.what, extra={self.what: key})
                self.children[key] = Child(self.leases.ctx, self.module, key, self.leases.me)

    def stop(self) -> None:
        for child in self.children.values():
            child.stop()  # its lease expires; another process resumes it
        self.children.clear()


class Loop:
    """A thread that calls ``run_once`` every ``interval`` seconds (0: never; tests call it),
    and the pool of children it tends, stopped with it."""

    name = "headroom-background"

    def __init__(self, ctx: ServiceContext, interval: float):
        self.ctx, self.interval = ctx, interval
        self.me = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.pool: Pool | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self.interval > 0:
            self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
        if self.pool is not None:
            self.pool.stop()

    def stopping(self) -> bool:
        return self._stop.is_set()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.run_once()
            except OperationalError as exc:  # the database is down or failing over
                logging.getLogger(f"headroom.{self.name}").warning(
                    "background pass skipped: database unavailable (%s)", type(exc.orig).__name__)
            except Exception:  # a bad pass must not end the loop
                logging.getLogger(f"headroom.{self.name}").exception("background pass failed")

    def run_once(self) -> None:
        raise NotImplementedError
