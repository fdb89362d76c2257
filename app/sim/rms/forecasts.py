"""How well start-time forecasts are calibrated: on a recorded run, how often the realised start
of a waiting job falls inside the 80% interval forecast when it began to wait.

A queued cluster is driven by Poisson arrivals of two job types with lognormal lifetimes (the
true model, which the forecast never sees: it learns lifetimes and arrival rates from the
engine's own memory, app/policies/rms/forecast.py). Every ``every``-th job that has to wait
is forecast at its arrival; the run goes on and records when each such job really started.
Coverage is the share of forecasts whose interval held the realised start, with its 95%
Wilson interval (forecasts of neighbouring jobs are correlated, so that interval is narrower
than the truth).

    python -m app.sim.rms.forecasts --kind first_fit_queue --jobs 20000
"""

from __future__ import annotations

import argparse
import heapq
import json
import math
import sys
from typing import Any

import numpy as np
from scipy.stats import binomtest

from app.policies.model import cluster_model
from app.policies.rms import make_scheduler
from app.policies.rms.forecast import forecast_start
from app.sim.progress import TextProgress

SPEC = {"dimensions": ["cpu", "memory"],
        "server_pools": [{"name": "rack", "count": 10, "capacity": {"cpu": 8, "memory": 32}}],
        "job_types": [{"name": "small", "demand": {"cpu": 2, "memory": 8}, "reward": 1},
                      {"name": "large", "demand": {"cpu": 6, "memory": 16}, "reward": 1}]}
# Mean lifetimes (time units) and shares of arrivals per type; the lognormal's σ.
MEAN = {"small": 1.0, "large": 3.0}
SHARE = {"small": 0.7, "large": 0.3}
SIGMA = 0.8


def arrival_rate(load: float) -> float:
    """The total arrival rate at which the cluster's cpu is ``load`` busy on average."""
    cap = sum(p["count"] * p["capacity"]["cpu"] for p in SPEC["server_pools"])
    work = sum(SHARE[t["name"]] * MEAN[t["name"]] * t["demand"]["cpu"] for t in SPEC["job_types"])
    return load * cap / work


def run(kind: str = "first_fit_queue", jobs: int = 20_000, load: float = 0.9, every: int = 10,
        seed: int = 1, progress: bool = False) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    engine = make_scheduler(kind, cluster_model(SPEC), {}, np.random.default_rng(seed + 1))
    engine.kind = kind
    rate = arrival_rate(load)
    mu = {k: math.log(m) - SIGMA**2 / 2 for k, m in MEAN.items()}  # lognormal with mean m
    ends: list[tuple[float, str]] = []
    forecasts: dict[str, dict[str, Any]] = {}
    realised: dict[str, float] = {}
    waited = 0
    t = 0.0
    bar = TextProgress(f"forecast check ({kind})") if progress else None
    def started(answer: dict[str, Any]) -> None:
        for s in answer.get("started") or ():
            realised[s["job_id"]] = float(s["at"])
            length = float(rng.lognormal(mu[s["job_type"]], SIGMA))
            heapq.heappush(ends, (float(s["at"]) + length, s["job_id"]))

    for i in range(jobs):
        t += float(rng.exponential(1.0 / rate))
        while True:  # every end and internal event before this arrival, in time order
            own = engine.next_event_time()
            if ends and ends[0][0] <= min(t, own):
                end, jid = heapq.heappop(ends)
                started(engine.depart(jid, end))
            elif own < t:
                started({"started": engine.step()})
            else:
                break
        kind_j = "small" if rng.random() < SHARE["small"] else "large"
        jid = f"j{i}"
        answer = engine.arrive(jid, kind_j, t)
        started(answer)
        if answer["decision"] == "started":
            realised[jid] = t
            heapq.heappush(ends, (t + float(rng.lognormal(mu[kind_j], SIGMA)), jid))
        elif i >= jobs // 10:  # after a warm-up, so the engine has a history to learn from
            waited += 1
            if waited % every == 0:
                forecasts[jid] = {**forecast_start(engine, jid, seed=i, seconds=None), "at": t}
        if bar is not None:
            bar(i + 1, jobs, i + 1)
    if bar is not None:
        bar.close()
    return summarise(kind, jobs, load, forecasts, realised)


def summarise(kind: str, jobs: int, load: float, forecasts: dict[str, dict[str, Any]],
              realised: dict[str, float]) -> dict[str, Any]:
    """Coverage of the forecasts whose job started within the run (the rest are left out and
    counted)."""
    held, checked, no_forecast, open_high, errors = 0, 0, 0, 0, []
    for jid, f in forecasts.items():
        if f["median"] is None:
            no_forecast += 1
            continue
        if jid not in realised:
            continue
        checked += 1
        actual = realised[jid]
        high = math.inf if f["high"] is None else f["high"]
        open_high += f["high"] is None
        held += f["low"] <= actual <= high
        errors.append((f["median"] - actual) / max(actual - f["at"], 1e-9))
    test = binomtest(held, checked) if checked else None
    ci = test.proportion_ci(0.95, method="wilson") if test is not None else None
    return {"kind": kind, "jobs": jobs, "load": load, "forecasts": len(forecasts),
            "checked": checked, "no_forecast": no_forecast, "open_high": open_high,
            "coverage": held / checked if checked else None,
            "coverage_ci95": [ci.low, ci.high] if ci is not None else None,
            "median_relative_error": float(np.median(errors)) if errors else None}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m app.sim.rms.forecasts", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--kind", default="first_fit_queue", help="the queue policy")
    p.add_argument("--jobs", type=int, default=20_000, help="arrivals in the run")
    p.add_argument("--load", type=float, default=0.9, help="mean cpu load offered")
    p.add_argument("--every", type=int, default=10, help="forecast every n-th waiting job")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    out = run(args.kind, args.jobs, args.load, args.every, args.seed, progress=True)
    json.dump(out, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
