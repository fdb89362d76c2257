"""Seeded runs dispatched through joblib give the same calibration wherever they run."""

from __future__ import annotations

import distributed

from app.sim.moments.calibrate import calibrate

SMALL = dict(policy="first_moment", sla=0.01, capacity=200, years=0.05, arrival_rate=0.02, runs=3,
             iterations=2, seed=3, steps=12)


def _strip(res: dict) -> dict:  # type: ignore[type-arg]
    return {k: v for k, v in res.items() if k != "scale"}


def test_calibration_on_a_dask_cluster_matches_local_processes() -> None:
    local = calibrate(**SMALL)  # type: ignore[arg-type]
    two = calibrate(**SMALL, workers=2)  # type: ignore[arg-type]
    assert _strip(two) == _strip(local)
    # Worker processes (not threads): the jobs are pickled to and run in other interpreters,
    # as on a real cluster. Ephemeral ports, no dashboard.
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, scheduler_port=0,
                                  dashboard_address=None, death_timeout=120) as cluster:
        remote = calibrate(**SMALL, scheduler=cluster.scheduler_address)  # type: ignore[arg-type]
    assert _strip(remote) == _strip(local)
    assert len(remote["search"]) == 2 and remote["runs"] == 3
