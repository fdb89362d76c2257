"""Where seeded, independent runs execute: joblib over local processes or a Dask cluster (the
calibrations' lives, the advisor's candidates)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any


def dispatch(fn: Callable[[Any], Any], jobs: Iterable[Any], workers: int = 1,
             scheduler: str | None = None, ordered: bool = True) -> Iterator[Any]:
    """fn over the seeded jobs through joblib: `workers` local processes (1: in this process,
    -1: every core), or, given a Dask scheduler address, the workers of that cluster (joblib's
    dask backend). Each job is a whole run (a simulated life, a replay of a log: seconds to
    minutes of CPU), so scheduling overhead does not matter and a run's result does not depend
    on where it ran. Yields results as they finish (in job order unless `ordered` is False)."""
    import joblib

    ret = "generator" if ordered else "generator_unordered"
    calls = (joblib.delayed(fn)(j) for j in jobs)
    if scheduler is None:
        yield from joblib.Parallel(n_jobs=workers, return_as=ret)(calls)
        return
    from distributed import Client

    with Client(scheduler), joblib.parallel_config(backend="dask", wait_for_workers_timeout=60):
        yield from joblib.Parallel(n_jobs=-1, return_as=ret)(calls)
