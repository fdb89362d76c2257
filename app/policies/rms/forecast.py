"""When will a waiting job start? A forecast by simulating the queue forward from its current
state, many times, with the lifetimes and arrivals its own history shows.

Each sample runs a copy of the scheduler (its own decisions, its own clocks, a sample's seed)
on events drawn from what the engine remembers:

- a running job ends after a residual drawn from the finished jobs of its type that ran
  longer than it has so far (the lifetime given its age); one older than every finished job
  of its type is taken to run as long again as it has;
- a job that starts in the sample runs a lifetime drawn from the finished jobs of its type;
- jobs of each type keep arriving as a Poisson stream at the rate the remembered jobs of that
  type arrived at, and may start ahead of the waiting job where the policy lets them.

Types with no finished job borrow every type's lifetimes; with none finished at all there is
no forecast. The answer is the median start over the samples and the 80% interval between
their 10th and 90th percentiles; a sample in which the job has not started within the
horizon (or the work budget) counts as a start beyond it, so the interval's upper end is
open (None) when more than a tenth of the samples ran out.
"""

from __future__ import annotations

import heapq
import math
import time
from collections import defaultdict
from typing import Any

import numpy as np

from app.policies.rms.core import QueueScheduler

SAMPLES = 32
LEVEL = 0.8
# The work one forecast may do: engine calls over all samples, and a wall-clock cap behind
# it (a scheduler whose clocks tick fast costs more per call); samples cut short by either
# count as starting beyond the horizon.
STEPS = 20_000
SECONDS = 0.25
HORIZON_LIFETIMES = 50  # the horizon, in mean lifetimes past now


class History:
    """What the engine remembers of lifetimes (finished jobs) and arrivals (every job it
    still knows, by type, over the time since the oldest of them arrived)."""

    def __init__(self, engine: QueueScheduler):
        self.lengths: dict[int, np.ndarray] = {}
        pooled: dict[int, list[float]] = defaultdict(list)
        for _s, j, _qa, sa, fa in engine.finished.values():
            pooled[j].append(max(0.0, fa - sa))
        self.lengths = {j: np.sort(np.array(v)) for j, v in pooled.items()}
        self.all = np.sort(np.concatenate(list(self.lengths.values()))) if pooled else np.array([])
        # (type, arrival time) of every job it knows, whatever became of it.
        known = [*((j, qa) for j, qa in engine.queued.values()),
                 *((j, qa) for _s, j, qa, _sa in engine.running.values()),
                 *((j, qa) for _s, j, qa, _sa, _fa in engine.finished.values()),
                 *((j, qa) for j, qa, _wa in engine.withdrawn.values())]
        arrivals: dict[int, int] = defaultdict(int)
        first = engine.now
        for j, qa in known:
            arrivals[j] += 1
            first = min(first, qa)
        span = engine.now - first
        self.rates = {j: n / span for j, n in arrivals.items()} if span > 0 else {}

    @property
    def finished(self) -> int:
        return int(self.all.size)

    def pool(self, j: int) -> np.ndarray:
        own = self.lengths.get(j)
        return own if own is not None and own.size else self.all

    def lifetime(self, j: int, rng: np.random.Generator) -> float:
        pool = self.pool(j)
        return float(pool[rng.integers(pool.size)])

    def residual(self, j: int, age: float, rng: np.random.Generator) -> float:
        pool = self.pool(j)
        longer = pool[np.searchsorted(pool, age, side="right"):]
        if not longer.size:
            return max(age, 0.0)
        return float(longer[rng.integers(longer.size)]) - age


def forecast_start(engine: QueueScheduler, job_id: str, seed: int = 0, samples: int = SAMPLES,
                   steps: int = STEPS, seconds: float | None = SECONDS) -> dict[str, Any]:
    """The forecast of waiting job ``job_id``'s start (module docstring), in the engine's time
    units. ``engine`` is not changed."""
    history = History(engine)
    out: dict[str, Any] = {"level": LEVEL, "samples": 0, "started": 0, "median": None,
                           "low": None, "high": None, "horizon": None,
                           "finished_jobs": history.finished, "reason": None}
    if job_id not in engine.queued:
        out["reason"] = "the job is not waiting"
        return out
    if not history.finished:
        out["reason"] = "no finished job yet to draw lifetimes from"
        return out
    horizon = engine.now + HORIZON_LIFETIMES * max(float(history.all.mean()), 1e-9)
    out["horizon"] = horizon
    deadline = None if seconds is None else time.process_time() + seconds
    per_sample = max(1, steps // samples)
    state = engine.to_state()  # each sample's copy is built from it (from_state copies)
    starts: list[float] = []
    for k in range(samples):
        if deadline is not None and time.process_time() > deadline:
            break
        sim = type(engine).from_state(engine.model, engine.params, state)
        sim.kind = engine.kind
        rng = np.random.default_rng([seed, k])
        starts.append(_sample(sim, job_id, history, rng, horizon, per_sample))
    out["samples"] = len(starts)
    xs = np.array(starts)
    out["started"] = int(np.isfinite(xs).sum())
    if out["started"] * 2 <= len(xs):  # the median itself is beyond the horizon
        out["reason"] = "in most samples the job had not started within the horizon"
        return out
    q = np.quantile(xs, [(1 - LEVEL) / 2, 0.5, (1 + LEVEL) / 2], method="inverted_cdf")
    out["low"], out["median"] = float(q[0]), float(q[1])
    out["high"] = float(q[2]) if math.isfinite(q[2]) else None
    return out


def _sample(sim: QueueScheduler, job_id: str, history: History, rng: np.random.Generator,
            horizon: float, steps: int) -> float:
    """One simulated future of ``sim`` (a copy, run on): when the job started in it (inf: not
    within the horizon or the steps)."""
    sim.rng = np.random.default_rng(rng.integers(2**63))  # the scheduler's own draws vary too
    now = sim.now
    ends: list[tuple[float, str]] = []
    for jid, (_s, j, _qa, sa) in sim.running.items():
        ends.append((now + history.residual(j, now - sa, rng), jid))
    heapq.heapify(ends)
    types = {k: t.name for k, t in enumerate(sim.model.job_types)}
    arrivals = [(now + rng.exponential(1.0 / r), j) for j, r in history.rates.items() if r > 0]
    heapq.heapify(arrivals)
    index = {t.name: k for k, t in enumerate(sim.model.job_types)}
    made = 0
    for _ in range(steps):
        t_end = ends[0][0] if ends else math.inf
        t_arr = arrivals[0][0] if arrivals else math.inf
        t_own = sim.next_event_time()  # the scheduler's clock ticks and dummy departures
        t = min(t_end, t_arr, t_own)
        if not math.isfinite(t) or t > horizon:
            return math.inf
        if t_own < min(t_end, t_arr):  # fired one at a time, so every start is seen when due
            answer = {"started": sim.step()}
        elif t_end <= t_arr:
            _, jid = heapq.heappop(ends)
            answer = sim.depart(jid, t)
        else:
            _, j = heapq.heappop(arrivals)
            made += 1
            new = f"forecast {made}"  # a space: no job id the API takes can be it
            answer = sim.arrive(new, types[j], t)
            if answer.get("decision") == "started":
                heapq.heappush(ends, (t + history.lifetime(j, rng), new))
            heapq.heappush(arrivals, (t + rng.exponential(1.0 / history.rates[j]), j))
        for s in answer.get("started") or ():
            if s["job_id"] == job_id:
                return float(s["at"])
            heapq.heappush(ends, (float(s["at"]) + history.lifetime(index[s["job_type"]], rng),
                                  s["job_id"]))
    return math.inf
