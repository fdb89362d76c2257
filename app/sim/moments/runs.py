"""Where seeded simulation runs execute: joblib over local processes or a Dask cluster."""

from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator

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


def dispatch(fn: Callable[[Any], Any], jobs: Iterable[Any], workers: int = 1,
             scheduler: str | None = None, ordered: bool = True) -> Iterator[Any]:
    """fn over the seeded jobs through joblib: `workers` local processes (1: in this process,
    -1: every core), or, given a Dask scheduler address, the workers of that cluster (joblib's
    dask backend). Each job is a whole simulated life (seconds to minutes of CPU), so
    scheduling overhead does not matter and a run's result does not depend on where it ran.
    Yields results as they finish (in job order unless `ordered` is False)."""
    import joblib

    ret = "generator" if ordered else "generator_unordered"
    calls = (joblib.delayed(fn)(j) for j in jobs)
    if scheduler is None:
        yield from joblib.Parallel(n_jobs=workers, return_as=ret)(calls)
        return
    from distributed import Client

    with Client(scheduler), joblib.parallel_config(backend="dask", wait_for_workers_timeout=60):
        yield from joblib.Parallel(n_jobs=-1, return_as=ret)(calls)
