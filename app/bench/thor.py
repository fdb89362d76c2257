"""In-process THOR throughput: resource updates per second through ``observe``.

One update = one resource of one stream learning one period's demand and returning its next
reservation (eqs. (3), (8), (9) plus the cap estimator, validation and the decision object).
Demand is the Google 2019 CPU series when the package is installed, else a seeded synthetic
series; the demand dicts are built before timing.

    .venv/bin/python -m app.bench.thor [--resources 1,2,4] [--periods N] [--repeat R] [--json]
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from app.policies.thor import ResourceSpec, make_stream


def demand_series(periods: int) -> np.ndarray:
    try:
        from app.sim.traces import utilization
        base = np.asarray(utilization("google2019", "cpu"))
    except Exception:  # noqa: BLE001 - the bench must run without the sim extra
        base = 0.5 + 0.05 * np.random.default_rng(1).standard_normal(8064).cumsum() / 30
    reps = periods // len(base) + 1
    return np.abs(np.tile(base, reps)[:periods])


def run(kind: str, resources: int, periods: int, repeat: int) -> dict:
    names = [f"r{i}" for i in range(resources)]
    specs = [ResourceSpec(n, cost=1.0 + i, epsilon=0.1) for i, n in enumerate(names)]
    base = demand_series(periods)
    demands = [{n: float(base[t]) * (1 + 0.1 * i) for i, n in enumerate(names)}
               for t in range(periods)]
    best = float("inf")
    for _ in range(repeat):
        stream = make_stream(kind, specs)
        observe = stream.observe
        t0 = time.perf_counter()
        for t, d in enumerate(demands):
            observe(t, d)
        best = min(best, time.perf_counter() - t0)
    updates = periods * resources
    return {"policy": kind, "resources": resources, "periods": periods,
            "seconds": best, "updates_per_s": updates / best,
            "us_per_observe": 1e6 * best / periods}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--resources", default="1,2,4")
    ap.add_argument("--periods", type=int, default=50_000)
    ap.add_argument("--repeat", type=int, default=3, help="best of R runs")
    ap.add_argument("--policies", default="thor")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows = [run(k, int(r), args.periods, args.repeat)
            for k in args.policies.split(",") for r in args.resources.split(",")]
    if args.json:
        print(json.dumps(rows))
        return
    print(f"{'policy':<12}{'resources':>10}{'periods':>10}{'updates/s':>14}{'us/observe':>12}")
    for r in rows:
        print(f"{r['policy']:<12}{r['resources']:>10}{r['periods']:>10}"
              f"{r['updates_per_s']:>14,.0f}{r['us_per_observe']:>12.2f}")


if __name__ == "__main__":
    main()
