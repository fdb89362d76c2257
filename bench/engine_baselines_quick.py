"""Rough throughput of the placement baselines (events per second), not a timed test.

Cluster: L servers of 80 vCPU / 640 GB and six job types shaped like GCP n1-standard machines
(1-32 vCPU at 3.75 GB per vCPU). Each engine is first filled to ~90% of the cluster's vCPU,
then timed on a balanced stream: an arrival (uniform job type) whenever vCPU use is below 90%,
otherwise the departure of a uniformly chosen running job. Rejected arrivals count as events.

    .venv/bin/python bench/engine_baselines_quick.py [--sizes 1000 10000] [--events 100000]
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from app.policies.best_fit import BestFit
from app.policies.first_fit import FirstFit
from app.policies.model import ClusterModel, JobType, ServerPool
from app.policies.power_of_d import PowerOfD

ENGINES = [(FirstFit, {}), (BestFit, {}), (PowerOfD, {"d": 5})]
VCPUS = (1, 2, 4, 8, 16, 32)
TARGET = 0.9


def cluster(L: int) -> ClusterModel:
    return ClusterModel(
        dimensions=("vcpu", "mem_gb"),
        pools=(ServerPool("n1", L, (80.0, 640.0)),),
        job_types=tuple(JobType(f"n1-standard-{v}", (float(v), 3.75 * v), float(v))
                        for v in VCPUS),
    )


class Driver:
    """Feeds one engine the balanced stream and keeps its own tally of vCPU in use."""

    def __init__(self, engine, seed: int):
        self.engine = engine
        self.rng = random.Random(seed)
        self.capacity = 80.0 * engine.model.num_servers
        self.used = 0.0
        self.running: list[tuple[str, int]] = []  # (job id, vCPU); random pick + swap-remove
        self.next_id = 0
        self.arrivals = self.rejected = 0

    def step(self) -> None:
        if self.used < TARGET * self.capacity or not self.running:
            j = self.rng.randrange(len(VCPUS))
            job_id = str(self.next_id)
            self.next_id += 1
            self.arrivals += 1
            if self.engine.arrive(job_id, f"n1-standard-{VCPUS[j]}").decision == "placed":
                self.running.append((job_id, VCPUS[j]))
                self.used += VCPUS[j]
            else:
                self.rejected += 1
        else:
            k = self.rng.randrange(len(self.running))
            self.running[k], self.running[-1] = self.running[-1], self.running[k]
            job_id, v = self.running.pop()
            self.engine.depart(job_id)
            self.used -= v


def run(cls, params, L: int, events: int, seed: int = 1) -> dict:
    t0 = time.perf_counter()
    driver = Driver(cls(cluster(L), params, np.random.default_rng(seed)), seed)
    # Warm up until 90% full, or give up after 4x the jobs that would take (a policy may stall).
    limit = int(4 * TARGET * driver.capacity / np.mean(VCPUS))
    while driver.used < TARGET * driver.capacity and driver.arrivals < limit:
        driver.step()
    warm = time.perf_counter() - t0
    driver.arrivals = driver.rejected = 0
    t1 = time.perf_counter()
    for _ in range(events):
        driver.step()
    elapsed = time.perf_counter() - t1
    return {"rate": events / elapsed, "warm_s": warm, "util": driver.used / driver.capacity,
            "rejected": driver.rejected / max(driver.arrivals, 1), "jobs": len(driver.running)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    ap.add_argument("--events", type=int, default=100_000)
    args = ap.parse_args()
    print(f"{'policy':<11} {'L':>7} {'events/s':>9} {'util':>5} {'rejected':>8} "
          f"{'jobs':>7} {'warm-up s':>9}")
    for L in args.sizes:
        for cls, params in ENGINES:
            r = run(cls, params, L, args.events)
            print(f"{cls.kind:<11} {L:>7} {r['rate']:>9,.0f} {r['util']:>5.2f} "
                  f"{r['rejected']:>8.1%} {r['jobs']:>7} {r['warm_s']:>9.1f}", flush=True)


if __name__ == "__main__":
    main()
