"""Event-driven simulation of the queueing schedulers (app.policies.rms) — RMS paper §II model.

Poisson arrivals of rate lambda_j per type, Exp(mu_j) services, driving the same engine objects
the service would. The driver merges three event streams exactly: the next arrival, the next
real departure and the engine's next internal event (``next_event_time``/``step``: RMS clock
ticks and dummy departures), so every start is known when it happens.

Common random numbers: arrival times, types and each job's service time come from one
generator seeded by ``seed`` and the engine gets its own, so every policy sees the very same
jobs. The reported queue is the total number of *waiting* jobs, sum_j Q_j (§II), averaged
exactly over time (not sampled) after ``warmup``.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from app.policies.model import ClusterModel, JobType, ServerPool
from app.policies.rms import GREEDY, make_scheduler
from app.policies.rms.core import QueueScheduler

PRESETS = ("bf-instability", "ec2")


@dataclass
class RmsSimResult:
    policy: str
    mean_queue: float
    final_queue: int
    times: list[float] = field(default_factory=list)    # sample grid
    queue: list[int] = field(default_factory=list)      # total queue at each grid time
    arrived: int = 0
    started: int = 0
    finished: int = 0
    internal_events: int = 0                            # clock ticks + dummy departures

    def summary(self) -> dict[str, Any]:
        return {"mean_queue": self.mean_queue, "final_queue": self.final_queue,
                "arrived": self.arrived, "started": self.started, "finished": self.finished,
                "internal_events": self.internal_events}


def simulate(model: ClusterModel, policy: str, lam: list[float], mu: list[float],
             duration: float, seed: int, params: dict[str, Any] | None = None,
             warmup: float = 0.0, sample_step: float | None = None,
             probe: Callable[[float, QueueScheduler], None] | None = None,
             progress: Callable[[float, float, int], None] | None = None) -> RmsSimResult:
    """``probe(t, engine)`` is called at every sample time with the engine as it is then
    (read it, do not drive it); ``progress(t, duration, events)`` now and then."""
    J = model.num_types
    if len(lam) != J or len(mu) != J:
        raise ValueError("lam and mu need one rate per job type")
    if duration <= 0 or not 0 <= warmup < duration:
        raise ValueError("need duration > 0 and 0 <= warmup < duration")
    params = {"mu": dict(zip((t.name for t in model.job_types), mu)), **(params or {})}
    if policy in ("best_fit_queue", "first_fit_queue", "random_fit_queue"):
        params.pop("mu")
    eng = make_scheduler(policy, model, params, np.random.default_rng([seed, 1]))
    work = np.random.default_rng([seed, 0])
    names = [t.name for t in model.job_types]
    total_lam = float(sum(lam))
    cum = np.cumsum(lam) / total_lam
    step = sample_step or duration / 500
    res = RmsSimResult(policy, 0.0, 0)
    service: dict[str, float] = {}
    departures: list[tuple[float, str]] = []
    next_arrival = float(work.exponential(1 / total_lam))
    n = 0
    q_total, last_t, area = 0, 0.0, 0.0
    next_sample = 0.0

    def started(recs: list[dict[str, Any]]) -> None:
        for r in recs:
            res.started += 1
            heapq.heappush(departures, (r["at"] + service.pop(r["job_id"]), r["job_id"]))

    while True:
        t_dep = departures[0][0] if departures else math.inf
        t_int = eng.next_event_time()
        t = min(next_arrival, t_dep, t_int)
        if t > duration:
            t = duration
        while next_sample <= t:  # the queue is piecewise constant: sample before the event
            res.times.append(next_sample)
            res.queue.append(q_total)
            if probe is not None:
                probe(next_sample, eng)
            next_sample += step
            if progress is not None:
                progress(t, duration, res.arrived + res.internal_events)
        lo = max(last_t, warmup)
        if t > lo:
            area += q_total * (t - lo)
        last_t = t
        if t >= duration:
            break
        if t == t_int:
            res.internal_events += 1
            started(eng.step())
        elif t == next_arrival:
            j = int(np.searchsorted(cum, work.random(), side="right"))
            j = min(j, J - 1)
            jid = f"job-{n}"
            n += 1
            service[jid] = float(work.exponential(1 / mu[j]))
            out = eng.arrive(jid, names[j], t)
            res.arrived += 1
            started(out["started"])
            if out["decision"] == "started":
                started([{"job_id": jid, "at": t}])
            next_arrival = t + float(work.exponential(1 / total_lam))
        else:
            _, jid = heapq.heappop(departures)
            started(eng.depart(jid, t)["started"])
            res.finished += 1
        # Waiting jobs = arrived - started (every start of a real job is counted above);
        # cheaper than summing the engine's queues, which Algorithm 2 keeps per server.
        q_total = res.arrived - res.started
    res.mean_queue = area / (duration - warmup)
    res.final_queue = q_total
    return res


def server_configurations(eng: QueueScheduler) -> list[tuple[int, ...]]:
    """Each server's configuration k^l (§II): jobs of each type it holds, dummies included
    (they hold their slot like real jobs)."""
    J = eng.model.num_types
    counts = [[0] * J for _ in range(eng.model.num_servers)]
    for s, j, *_ in eng.running.values():
        counts[s][j] += 1
    for s, j, _ in getattr(eng, "dummies", {}).values():
        counts[s][j] += 1
    return [tuple(c) for c in counts]


# ---- the paper's settings ----------------------------------------------------------------

def bf_instability_model() -> tuple[ClusterModel, list[float], list[float]]:
    """§III / Fig. 1b: 10 servers of capacity 10, job sizes 2 and 5, lambda = (20.8, 10.4),
    mu = 1. rho is inside C (rho < (22.22, 11.11)) yet work-conserving Best-Fit is unstable."""
    model = ClusterModel(("units",), (ServerPool("server", 10, (10.0,)),),
                         (JobType("size2", (2.0,), 1.0), JobType("size5", (5.0,), 1.0)))
    return model, [20.8, 10.4], [1.0, 1.0]


# Table I (§VII): Amazon EC2 instances (memory GB, CPU units, storage GB) on servers of
# 90 GB, 90 units, 5000 GB [19].
EC2_TYPES = (("standard_xl", (15.0, 8.0, 1690.0)), ("high_memory_xl", (17.1, 6.5, 420.0)),
             ("high_cpu_xl", (7.0, 20.0, 1690.0)))
EC2_SERVER = (90.0, 90.0, 5000.0)


def ec2_model(servers: int) -> ClusterModel:
    return ClusterModel(("memory", "cpu", "storage"), (ServerPool("ec2", servers, EC2_SERVER),),
                        tuple(JobType(n, d, 1.0) for n, d in EC2_TYPES))


def maximal_configurations(capacity: tuple[float, ...],
                           demands: list[tuple[float, ...]]) -> list[tuple[int, ...]]:
    """Every maximal feasible configuration k of one server (no further job of any type fits)."""
    from app.policies.model import FIT_TOLERANCE

    J = len(demands)
    out: list[tuple[int, ...]] = []

    def rec(j: int, used: list[float], k: list[int]) -> None:
        if j == J:
            if not any(all(u + d <= c + FIT_TOLERANCE for u, d, c in zip(used, dem, capacity))
                       for dem in demands):
                out.append(tuple(k))
            return
        cnt = 0
        u = list(used)
        while True:
            k.append(cnt)
            rec(j + 1, u, k)
            k.pop()
            if not all(x + d <= c + FIT_TOLERANCE for x, d, c in zip(u, demands[j], capacity)):
                break
            u = [x + d for x, d in zip(u, demands[j])]
            cnt += 1

    rec(0, [0.0] * len(capacity), [])
    return out


def ec2_boundary_rates(servers: int) -> list[float]:
    """V = sum_l V^l with V^l the average of server l's maximal configurations (§VII-A);
    lambda = zeta * V (mean service 1)."""
    configs = maximal_configurations(EC2_SERVER, [d for _, d in EC2_TYPES])
    avg = np.mean(np.array(configs, dtype=float), axis=0)
    return [float(x) * servers for x in avg]


def preset_setup(preset: str, servers: int = 20, intensity: float = 0.9):
    """(model, lambda, mu, default params per policy kind) of a preset."""
    if preset == "bf-instability":
        model, lam, mu = bf_instability_model()
        # Greedy: a freed server takes the smallest waiting job first (one of Definition 1's
        # arbitrary selection rules); with oldest-first the instability did not show within
        # our horizons (docs/reproduction/rms.md). RMS: r_j = 2L ticks per type (Algorithm
        # 2: 2 per server queue). epsilon = 0.05: Theorem 1 covers rho in (1 - eps) C, and
        # this load is 0.936 of the way to C's boundary (b = 0 is §VII's f, outside Theorem 1
        # either way, which needs b in (0, 1)).
        return model, lam, mu, {"greedy": {"order": "small_first"},
                                "rms": {"clock_rate": 20.0, "epsilon": 0.05}}
    if preset == "ec2":
        model = ec2_model(servers)
        lam = [intensity * v for v in ec2_boundary_rates(servers)]
        # §VII-A.2: the clock rates sum to 30 ticks per time unit (10 per queue here).
        return model, lam, [1.0] * len(lam), {"greedy": {}, "rms": {"clock_rate": 10.0}}
    raise ValueError(f"unknown preset {preset!r}")


def run_policies(preset: str, policies: list[str], duration: float, seed: int,
                 warmup: float = 0.0, servers: int = 20, intensity: float = 0.9,
                 clock_rate: float | None = None, sample_step: float | None = None
                 ) -> dict[str, Any]:
    model, lam, mu, defaults = preset_setup(preset, servers, intensity)
    results = {}
    for name in policies:
        params = dict(defaults["greedy" if name in GREEDY else "rms"])
        if clock_rate is not None and name not in GREEDY:
            params["clock_rate"] = clock_rate
        results[name] = simulate(model, name, lam, mu, duration, seed, params, warmup,
                                 sample_step)
    return results
