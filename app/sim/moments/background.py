"""One moment calibration as the service runs it in the background: a child process of an
app process (app/service/calibrator.py starts it at the lowest CPU priority), given the
calibration's key and the name of the worker holding its lease.

It reads the job's inputs from the database, runs the recipe's search (derive.py), writes
progress after every life and each candidate's evaluation as it finishes (so an attempt
restarted elsewhere resumes the search), and finally the result. Every write is conditional
on the lease still being this worker's and the job still running: a job cancelled (its last
cluster deleted) or taken over (this worker's process stopped renewing) stops at the next
life, writing nothing more.

    python -m app.sim.moments.background KEY WORKER

The database URL comes from the environment (HEADROOM_DATABASE_URL), never the command line.
"""

from __future__ import annotations

import sys
import time
from datetime import timedelta
from typing import Any, Callable

from app.config import Settings, get_settings
from app.store.db import make_engine
from app.store.leases import LeasedRow, child_main
from app.store.models import MomentCalibration, utcnow
from app.policies.moments.recipe import Recipe
from app.sim.moments.derive import calibrate_inputs

# What a candidate's evaluation keeps for the search and its confidence (calibrate.py reads
# these; a life's full result holds more than the job row needs).
_KEPT = ("scaleout_failure_rate", "scaleout_requests", "utilization", "admitted", "rejected")
def _kept(res: dict[str, Any]) -> dict[str, Any]:
    return {**{k: v for k, v in res.items() if k != "runs"},
            "runs": [{k: r[k] for k in _KEPT if k in r} for r in res["runs"]]}


class Job:
    """The job row, written only while this worker holds it."""

    def __init__(self, settings: Settings, key: str, worker: str):
        self.engine = make_engine(settings)
        self.key, self.worker = key, worker
        t = MomentCalibration.__table__
        self._write = LeasedRow(self.engine, t, t.c.key, key, worker).write
        with self.engine.connect() as conn:
            row = conn.execute(MomentCalibration.__table__.select().where(
                MomentCalibration.key == key)).mappings().one()
        self.inputs: dict[str, Any] = row["inputs"]
        self.candidates: dict[str, Any] = dict(row["candidates"] or {})
        r = Recipe.from_dict(self.inputs["recipe"])
        # At most: every halving, the fallback at the bracket's low end, and every step of
        # the held-out check.
        self.total = r.lives * (r.iterations + 1) + r.held_out_lives * (r.step_downs + 1)
        self.done = sum(r.held_out_lives if name.startswith("held-out") else r.lives
                        for name in self.candidates)
        self.resumed, self.started = self.done, time.monotonic()


    def progress(self) -> None:
        self.done += 1
        pace = (time.monotonic() - self.started) / max(1, self.done - self.resumed)
        eta = utcnow() + timedelta(seconds=pace * max(0, self.total - self.done))
        self._write(lives_done=self.done, lives_total=self.total, eta_at=eta)

    def memo(self, threshold: float | str, evaluate: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """A search candidate is kept under its threshold's repr, a held-out one under the
        name calibrate gives it."""
        name = threshold if isinstance(threshold, str) else repr(float(threshold))
        if name not in self.candidates:
            self.candidates[name] = _kept(evaluate())
            self._write(candidates=self.candidates)
        return self.candidates[name]

    def finish(self, result: dict[str, Any]) -> None:
        self._write(status="done", result=result, lease_until=None, eta_at=None,
                    lives_done=self.done)


def run(settings: Settings, key: str, worker: str) -> dict[str, Any]:
    job = Job(settings, key, worker)
    result = calibrate_inputs(key, job.inputs, scheduler=settings.dask_scheduler,
                              memo=job.memo, on_life=lambda seed, r: job.progress())
    job.finish(result)
    return result


def main(argv: list[str] | None = None) -> int:
    return child_main(lambda key, worker: run(get_settings(), key, worker), argv)


if __name__ == "__main__":
    sys.exit(main())
