"""Seeded lives of the moment simulator, dispatched where app/sim/dispatch.py says."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.sim.dispatch import dispatch
from app.sim.moments.simulator import simulate


def one_life(job: tuple[str, float, int, dict[str, Any]]) -> dict[str, Any]:
    policy, threshold, seed, sim = job
    return simulate(policy, threshold=threshold, seed=seed, **sim)


def lives(jobs: list[tuple[str, float, int, dict[str, Any]]], workers: int = 1,
          scheduler: str | None = None,
          on_life: Callable[[int, dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
    """one_life over the jobs, results in job order; `on_life(seed, result)` once a life and
    every life before it have finished (dispatch yields in order), so a long calibration
    reports every life rather than only every candidate."""
    out = []
    for job, r in zip(jobs, dispatch(one_life, jobs, workers, scheduler)):
        out.append(r)
        if on_life is not None:
            on_life(job[2], r)
    return out


def life_progress(progress: Callable[[str], None] | None, policy: str, threshold: float,
                  runs: int) -> Callable[[int, dict[str, Any]], None] | None:
    """A per-life line for `progress`: at 10,000 cores one candidate is 20-40 minutes of
    lives, too long to run silent. Counts are cumulative over the candidate so far, and raw:
    importance-sampled lives are weighted back only in the candidate's summary line."""
    if progress is None:
        return None
    seen = {"lives": 0, "failed": 0.0, "requests": 0}

    def report(seed: int, r: dict[str, Any]) -> None:
        failed = r["scaleout_failure_rate"] * r["scaleout_requests"]
        seen["lives"] += 1
        seen["failed"] += failed
        seen["requests"] += r["scaleout_requests"]
        progress(f"  {policy} threshold={threshold:.5g} life {seen['lives']}/{runs} seed {seed}: "
                 f"util {r['utilization']:.3f}, failed {failed:.0f} of {r['scaleout_requests']} "
                 f"(so far {seen['failed']:.0f} of {seen['requests']})")
    return report
