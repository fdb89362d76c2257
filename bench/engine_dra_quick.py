"""In-process DRA throughput: events/s of DRAEngine.arrive/depart at several cluster sizes.

Workload (DRA paper §7.1): six GCP-style VM types from Table 2 — three small (2, 4, 8 vCPU),
three large (32, 64 vCPU), memory per vCPU high (8/16 GB), low (1/2 GB) or regular (4 GB) —
on servers of 80 vCPU / 640 GB, reward 8 per vCPU + 1 per GB. Type-j jobs arrive at rate
rho_j * L (rho_j drawn uniformly in [0.2, 2], seeded) and each job in the system departs at
rate 1, so the system runs overloaded like the paper's. Only the engine calls are timed.

    .venv/bin/python bench/engine_dra_quick.py [L ...] [--events N] [--warmup-factor F]
                                               [--load X]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from app.policies.dra import DRAEngine
from app.policies.model import ClusterModel, JobType, ServerPool

VM_TYPES = [  # (name, vCPU, GB)
    ("s2-high", 2, 16), ("s4-low", 4, 4), ("s8-regular", 8, 32),
    ("l32-high", 32, 512), ("l64-low", 64, 128), ("l32-regular", 32, 128),
]


def model(L: int) -> ClusterModel:
    return ClusterModel(
        dimensions=("vcpu", "memory_gb"),
        pools=(ServerPool("gcp", L, (80.0, 640.0)),),
        job_types=tuple(JobType(n, (float(c), float(m)), 8.0 * c + m) for n, c, m in VM_TYPES))


def run(L: int, events: int, warmup_factor: float, load: float = 1.0, seed: int = 1) -> dict:
    rng = np.random.default_rng(seed)
    rho = rng.uniform(0.2, 2.0, len(VM_TYPES))
    names = [n for n, _, _ in VM_TYPES]
    engine = DRAEngine(model(L))
    rates = rho * L * load
    total_rate = rates.sum()
    cum = np.cumsum(rates) / total_rate
    alive: list[str] = []
    next_id = 0
    timed = 0.0
    counted = 0
    placed = rejected = migrations = reconfigs = 0
    warmup = int(warmup_factor * L)
    batch = 1 << 16
    u = rng.random(batch)
    v = rng.random(batch)
    w = rng.random(batch)
    b = 0
    for step in range(warmup + events):
        if b == batch:
            u, v, w, b = rng.random(batch), rng.random(batch), rng.random(batch), 0
        n = len(alive)
        arrival = u[b] * (total_rate + n) < total_rate
        if arrival:
            j = int(np.searchsorted(cum, v[b]))
            jid = f"j{next_id}"
            next_id += 1
            t0 = time.perf_counter()
            p = engine.arrive(jid, names[j])
            dt = time.perf_counter() - t0
            if p.decision == "placed":
                alive.append(jid)
        else:
            i = int(w[b] * n)
            jid = alive[i]
            alive[i] = alive[-1]
            alive.pop()
            t0 = time.perf_counter()
            r = engine.depart(jid)
            dt = time.perf_counter() - t0
        b += 1
        if step >= warmup:
            timed += dt
            counted += 1
            if arrival:
                placed += p.decision == "placed"
                rejected += p.decision == "rejected"
                reconfigs += len(p.reconfigured)
            else:
                migrations += r.migration is not None
                reconfigs += len(r.reconfigured)
    return {"L": L, "events": counted, "events_per_s": counted / timed, "jobs": len(alive),
            "placed": placed, "rejected": rejected, "migrations": migrations,
            "reconfigurations": reconfigs, "g": engine.opts.g,
            "reward_rate_per_server": engine.describe()["reward_rate"] / L}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sizes", nargs="*", type=int, default=[1_000, 10_000, 100_000])
    ap.add_argument("--events", type=int, default=50_000)
    ap.add_argument("--warmup-factor", type=float, default=8.0,
                    help="untimed events per server before timing (fills the cluster)")
    ap.add_argument("--load", type=float, default=1.0,
                    help="multiplies every rho_j (0.3 leaves most arrivals admitted)")
    args = ap.parse_args()
    for L in args.sizes:
        res = run(L, args.events, args.warmup_factor, args.load)
        print(f"L={res['L']:>7,}  {res['events_per_s']:>9,.0f} events/s  "
              f"(jobs {res['jobs']:,}, placed {res['placed']:,}, rejected {res['rejected']:,}, "
              f"migrations {res['migrations']:,}, reconfigurations {res['reconfigurations']:,}, "
              f"g={res['g']:.1f}, reward/server {res['reward_rate_per_server']:.1f})",
              flush=True)


if __name__ == "__main__":
    main()
