"""In-process engine throughput: arrivals + departures per second for every placement policy.

Workload (DRA paper §7.1 style, see app/bench/workload.py): six VM types on 80 vCPU / 640 GB
servers; type-j jobs arrive at rate rho_j * L * load with rho_j ~ U(0.2, 2) (seeded), and every
job in the system departs at rate 1, so at load 1 the cluster runs overloaded as in the paper.
The cluster is first driven for ``warmup_factor * L`` untimed events so it is full; then only
the engine calls of ``--events`` events are timed (workload generation is excluded).

    .venv/bin/python -m app.bench.engine [--policies dra,first_fit,...] [--sizes 1000,10000,100000]
                                     [--events N] [--load X] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from app.bench.workload import VM_TYPES, cluster_model
from app.policies.registry import PLACEMENT_ENGINES


def run(policy: str, L: int, events: int, warmup_factor: float, load: float,
        seed: int = 1) -> dict:
    rng = np.random.default_rng(seed)
    rho = rng.uniform(0.2, 2.0, len(VM_TYPES))
    names = [n for n, _, _ in VM_TYPES]
    engine = PLACEMENT_ENGINES[policy](cluster_model(L), None, np.random.default_rng(seed))
    rates = rho * L * load
    total_rate = rates.sum()
    cum = np.cumsum(rates) / total_rate
    alive: list[str] = []
    timed, counted, placed, arrivals, migrations = 0.0, 0, 0, 0, 0
    warmup = int(warmup_factor * L)
    block = 1 << 16
    u = v = w = np.empty(0)
    for step in range(warmup + events):
        b = step % block
        if b == 0:
            u, v, w = rng.random(block), rng.random(block), rng.random(block)
        n = len(alive)
        if u[b] * (total_rate + n) < total_rate:  # next event is an arrival
            jid = f"j{step}"
            j = names[int(np.searchsorted(cum, v[b]))]
            t0 = time.perf_counter()
            p = engine.arrive(jid, j)
            dt = time.perf_counter() - t0
            if p.decision == "placed":
                alive.append(jid)
            if step >= warmup:
                arrivals += 1
                placed += p.decision == "placed"
        else:
            i = int(w[b] * n)
            jid = alive[i]
            alive[i] = alive[-1]
            alive.pop()
            t0 = time.perf_counter()
            r = engine.depart(jid)
            dt = time.perf_counter() - t0
            if step >= warmup:
                migrations += r.migration is not None
        if step >= warmup:
            timed += dt
            counted += 1
        if step and step % 200_000 == 0:
            print(f"  {policy} L={L}: {step:,}/{warmup + events:,} events", file=sys.stderr,
                  flush=True)
    return {"policy": policy, "L": L, "events": counted,
            "events_per_s": round(counted / timed), "jobs": len(alive),
            "acceptance": round(placed / arrivals, 4) if arrivals else None,
            "migrations": migrations,
            "reward_per_server": round(engine.describe()["reward_rate"] / L, 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--policies", default="dra,first_fit,best_fit,power_of_d")
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--warmup-factor", type=float, default=8.0)
    ap.add_argument("--load", type=float, default=1.0)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    results = []
    for policy in args.policies.split(","):
        for L in map(int, args.sizes.split(",")):
            res = run(policy, L, args.events, args.warmup_factor, args.load)
            results.append(res)
            if not args.json:
                print(f"{policy:11} L={L:>7,}  {res['events_per_s']:>8,} events/s  "
                      f"jobs {res['jobs']:>7,}  acceptance {res['acceptance']:.3f}  "
                      f"migrations {res['migrations']:>5,}  "
                      f"reward/server {res['reward_per_server']:.1f}", flush=True)
    if args.json:
        print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
