"""Discrete-event simulation of a placement policy: the service's own engine, driven in-process.

Events are arrivals (from a workload's pre-drawn blocks, already in time order, so they never
enter the heap) and departures (a heap of (time, job id)). At equal times a departure goes
first, so the capacity it frees is there for the arrival. An arrival calls
``engine.arrive``; a placed job gets a departure at arrival time + its service time. Jobs in
``Placement.preempted`` leave the system at once: their departure events are cancelled
lazily (dropped when they reach the top of the heap, since the job is no longer alive). A
migrated job keeps its departure time — only its server changes, and that is the engine's
business. A departure calls ``engine.depart``.

The loop is written for speed: per event it does list indexing, one heap operation, the
engine call and O(1) metric updates; anything rarer (time-series samples, the warm-up
snapshot, the end, progress, an event budget) sits behind a single comparison. An engine
that ``takes_time`` (DRA with a migration budget) is told each event's time first.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from app.policies.base import PlacementEngine
from app.policies.registry import PLACEMENT_ENGINES
from app.sim.dra.metrics import Recorder, SimResult
from app.sim.dra.presets import Instance
from app.sim.dra.workload import Block, RateSeries, poisson_for_instance

INF = math.inf
PROGRESS_EVERY = 1 << 14  # events between progress callbacks (a callback may throttle more)

Progress = Callable[[float, float, int], None]  # (simulated time, end time, events so far)


def simulate(engine: PlacementEngine, workload: object, duration: float, *,
             warmup: float = 0.0, sample_step: float | None = None,
             max_events: int | None = None, progress: Progress | None = None) -> SimResult:
    """Run ``workload`` (anything with ``blocks()``, see ``app.sim.dra.workload``) through
    ``engine`` from time 0 to ``duration``; metrics cover [warmup, duration).

    ``engine`` should start empty (jobs already in it have no departure and stay). It is left
    in its final state, so callers can inspect it. ``max_events`` stops early, after that many
    arrivals + departures; the window then ends at the last event's time.
    """
    rec = Recorder(engine.model, warmup, duration, _sample_step(warmup, duration, sample_step))
    names = [t.name for t in engine.model.job_types]
    Y, area, last = rec.Y, rec.area, rec.last
    arrivals, accepted = rec.arrivals, rec.accepted
    arrive, depart = engine.arrive, engine.depart
    observe = engine.observe_time if getattr(engine, "takes_time", False) else None  # type: ignore[attr-defined]
    heappush, heappop = heapq.heappush, heapq.heappop

    heap: list[tuple[float, str]] = []
    alive: dict[str, int] = {}  # job id -> type index, for jobs the simulator will depart
    blocks = iter(workload.blocks())  # type: ignore[attr-defined]
    times: list[float] = []
    types: list[int] = []
    durations: list[float] = []
    i = n = 0
    seq = 0  # arrival number: job ids are unique for the run
    events = migrations = departures = 0
    budget = max_events if max_events is not None else -1
    check = min(PROGRESS_EVERY if progress else INF, budget if budget >= 0 else INF)
    mark = rec.mark
    t = 0.0

    while True:
        if i == n:
            block: Block | None = next(blocks, None)
            if block is None:
                times, types, durations = [INF], [0], [0.0]  # sentinel: never reached
            else:
                times, types, durations = block
            i, n = 0, len(times)
            continue
        ta = times[i]
        if heap and heap[0][0] <= ta:
            t = heap[0][0]
            if t >= mark:
                if not rec.cross(t, migrations, departures, events):
                    break
                mark = rec.mark
            jid = heappop(heap)[1]
            j = alive.pop(jid, -1)
            if j < 0:
                continue  # a preempted job's cancelled departure
            if observe is not None:
                observe(t)
            if depart(jid).migration is not None:
                migrations += 1
            departures += 1
            area[j] += Y[j] * (t - last[j])
            last[j] = t
            Y[j] -= 1
        else:
            t = ta
            if t >= mark:
                if not rec.cross(t, migrations, departures, events):
                    break
                mark = rec.mark
            j = types[i]
            d = durations[i]
            i += 1
            jid = str(seq)
            seq += 1
            arrivals[j] += 1
            if observe is not None:
                observe(t)
            p = arrive(jid, names[j])
            if p.preempted:
                _leave_preempted(p.preempted, t, alive, rec)
            if p.decision == "placed":
                accepted[j] += 1
                alive[jid] = j
                heappush(heap, (t + d, jid))
                area[j] += Y[j] * (t - last[j])
                last[j] = t
                Y[j] += 1
        events += 1
        if events >= check:
            if progress is not None and events % PROGRESS_EVERY == 0:
                progress(t, duration, events)
            if events == budget:
                break
            check = min(events + PROGRESS_EVERY if progress else INF,
                        budget if budget >= 0 else INF)

    end = min(t, duration)
    result = rec.finish(end, migrations, departures, events)
    if progress is not None:
        progress(end, duration, events)
    return result


def _sample_step(warmup: float, duration: float, sample_step: float | None) -> float:
    """The time-series step; refuses a window that is not 0 <= warmup < duration < inf."""
    if not (0.0 <= warmup < duration < INF):
        raise ValueError(f"need 0 <= warmup < duration < inf, got warmup={warmup!r}, "
                         f"duration={duration!r}")
    step = sample_step if sample_step is not None else duration / 200.0
    if not step > 0:
        raise ValueError(f"sample_step must be > 0, got {step!r}")
    return step


def _leave_preempted(jobs: Any, t: float, alive: dict[str, int], rec: Recorder) -> None:
    """Preempted jobs leave the system at ``t``; their departures are cancelled lazily (the
    heap drops a job that is no longer alive). Rare, so out of the event loop's body."""
    Y, area, last = rec.Y, rec.area, rec.last
    for q in jobs:
        k = alive.pop(q.job_id)
        rec.preempted[k] += 1
        area[k] += Y[k] * (t - last[k])
        last[k] = t
        Y[k] -= 1


def run_policy(kind: str, params: dict[str, Any], instance: Instance, servers: int, seed: int,
               duration: float, warmup: float, *, mean_service: float = 1.0,
               sample_step: float | None = None, max_events: int | None = None,
               progress: Progress | None = None,
               multiplier: RateSeries | None = None) -> SimResult:
    """One policy on the instance's Poisson workload; the seed fixes the arrival stream.
    ``multiplier`` shapes the arrival rates over time (e.g. a real utilisation series)."""
    workload_seed, engine_seed = np.random.SeedSequence(seed).spawn(2)
    engine = PLACEMENT_ENGINES[kind](instance.model(servers), params or None,
                                     np.random.default_rng(engine_seed))
    workload = poisson_for_instance(instance, servers, np.random.default_rng(workload_seed),
                                    mean_service, multiplier)
    return simulate(engine, workload, duration, warmup=warmup, sample_step=sample_step,
                    max_events=max_events, progress=progress)
