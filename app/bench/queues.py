"""In-process throughput of the queueing schedulers (RMS paper engines and greedy baselines).

Workload: the six VM types of app/bench/workload.py on L servers of 80 vCPU / 640 GB, time
advancing 1/L per event; each event is a departure of a random running job with probability
(running / (5 L)), else an arrival of a uniformly chosen type. Jobs started by clocks or
departures count as running. Every engine call is timed, including the clock ticks RMS fires
in between (time moves 1/L per event, so about one tick per event at the default rates).

    .venv/bin/python -m app.bench.queues [--policies rms,best_fit_queue,...] [--sizes 100,1000]
                                     [--events N] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from app.bench.workload import VM_TYPES, cluster_model
from app.policies.rms import make_scheduler

POLICIES = "rms,rms_bf,rms_jsq,best_fit_queue,first_fit_queue,random_fit_queue"


def run(policy: str, L: int, events: int, seed: int = 1) -> dict:
    engine = make_scheduler(policy, cluster_model(L), {}, np.random.default_rng(seed))
    rng = np.random.default_rng(seed + 1)
    names = [n for n, _, _ in VM_TYPES]
    running: list[str] = []
    t, spent = 0.0, 0.0
    for i in range(events):
        t += 1.0 / L
        depart = running and rng.random() < len(running) / (5 * L)
        if depart:
            jid = running.pop(int(rng.integers(len(running))))
            t0 = time.perf_counter()
            out = engine.depart(jid, t)
        else:
            jt = names[int(rng.integers(len(names)))]
            t0 = time.perf_counter()
            out = engine.arrive(f"j{i}", jt, t)
        spent += time.perf_counter() - t0
        if not depart and out["decision"] == "started":
            running.append(out["job_id"])
        running += [s["job_id"] for s in out["started"]]
    return {"policy": policy, "servers": L, "events": events,
            "events_per_s": round(events / spent), "running": len(running),
            "queued": int(sum(engine.queue_lengths()))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--policies", default=POLICIES)
    ap.add_argument("--sizes", default="100,1000")
    ap.add_argument("--events", type=int, default=20_000)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows = []
    for L in [int(x) for x in args.sizes.split(",")]:
        for policy in args.policies.split(","):
            row = run(policy, L, args.events)
            rows.append(row)
            print(f"{policy:>18}  L={L:<6} {row['events_per_s']:>8,} events/s  "
                  f"running={row['running']} queued={row['queued']}", file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
