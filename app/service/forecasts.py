"""Start-time forecasts for waiting jobs (app/policies/rms/forecast.py) as ``GET .../jobs/{id}``
answers them.

The engine's state is copied under the cluster's in-process lock (as every read is) and the
forecast runs on the copy outside it, so a forecast never holds up a decision. A forecast is
kept per cluster version and job: the same state gives the same answer, and a job polled
while nothing happens costs one simulation. Its seed comes from the cluster, version and job,
so every process answers the same. At most ``AT_ONCE`` run at once per process; a job's GET
beyond that answers at once, its forecast saying it was not computed.
"""

from __future__ import annotations

import threading
import zlib
from collections import OrderedDict
from typing import Any

from app.policies.capabilities import TracksJobs
from app.policies.rms.forecast import LEVEL, forecast_start
from app.service.context import ServiceContext
from app.service.events import read_adapter

CACHED = 1024  # forecasts kept per process, the least recently used forgotten first
# Forecasts a process computes at once. A job's GET is never refused for it: past this, the
# answer says where the job is and that its forecast was not computed this time.
AT_ONCE = 2
BUSY = "the service is computing other forecasts: ask again shortly"

WAITING = {
    "waiting_for_quota": "it waits for its tenant's quota, which frees when the tenant's "
                         "jobs or the cohort's borrowers leave; the forecast simulates the "
                         "scheduler's queues only",
    "waiting_for_gang": "it waits for room for its whole gang at once; the forecast "
                        "simulates the scheduler's queues only"}
_cache: OrderedDict[tuple[str, int, str], dict[str, Any]] = OrderedDict()
_lock = threading.Lock()
_slots = threading.BoundedSemaphore(AT_ONCE)


def job_with_forecast(ctx: ServiceContext, cluster_id: str, job_id: str) -> dict[str, Any]:
    """The job's view; a waiting job's carries ``forecast``."""
    def read(adapter: Any, cluster: Any) -> tuple[dict[str, Any], Any, int]:
        view = adapter.job_view(job_id)
        if view["status"] != "queued":
            return view, None, cluster.version
        if view.get("reason") is not None:  # not yet in the scheduler's queues
            return {**view, "forecast": {"level": LEVEL, "samples": 0, "started": 0,
                                         "reason": WAITING[view["reason"]]}}, None, \
                cluster.version
        key = (cluster_id, cluster.version, job_id)
        with _lock:
            hit = _cache.get(key)
            if hit is not None:
                _cache.move_to_end(key)
                return {**view, "forecast": hit}, None, cluster.version
        engine = adapter.engine
        copy = type(engine).from_state(engine.model, engine.params, engine.to_state())
        copy.kind = engine.kind
        return view, copy, cluster.version

    view, engine, version = read_adapter(ctx, cluster_id, read, TracksJobs)
    if engine is None:
        return view
    if not _slots.acquire(blocking=False):
        return {**view, "forecast": {"level": LEVEL, "samples": 0, "started": 0,
                                     "reason": BUSY}}
    try:
        seed = zlib.crc32(f"{cluster_id}/{version}/{job_id}".encode())
        forecast = forecast_start(engine, job_id, seed=seed)
    finally:
        _slots.release()
    with _lock:
        _cache[(cluster_id, version, job_id)] = forecast
        while len(_cache) > CACHED:
            _cache.popitem(last=False)
    return {**view, "forecast": forecast}
