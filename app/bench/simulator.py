"""Simulator throughput: wall-clock seconds for N events (arrivals + departures) of a policy
on the DRA paper's worst-case workload (§7.1), engine and simulator together.

Goal (simulator issue): 1,000,000 events through DRA at L = 1,000 in <= 60 s on one core.
Everything is timed: engine construction, workload generation, the event loop, metrics.
Warm-up is irrelevant to speed, so none is used; the run stops on the event budget.

    .venv/bin/python -m app.bench.simulator [--policy dra] [--servers 1000] [--events 1000000]
                                        [--alpha 1.0] [--seed 1] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from app.sim.dra.presets import paper_worst_case
from app.sim.progress import TextProgress
from app.sim.dra.simulator import run_policy


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--policy", default="dra")
    ap.add_argument("--servers", type=int, default=1000)
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("--alpha", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    instance = paper_worst_case(args.alpha)
    bar = None if args.json else TextProgress(f"{args.policy} L={args.servers}", sys.stderr)
    t0 = time.perf_counter()
    # The duration only has to outlast the event budget.
    res = run_policy(args.policy, {}, instance, args.servers, args.seed, duration=1e12,
                     warmup=0.0, max_events=args.events, progress=bar)
    seconds = time.perf_counter() - t0
    if bar is not None:
        bar.close()
    out = {"policy": args.policy, "servers": args.servers, "alpha": args.alpha,
           "events": res.events_total, "simulated_time": res.end,
           "seconds": round(seconds, 2), "events_per_second": round(res.events_total / seconds),
           "acceptance_rate": res.acceptance_rate, "migrations": res.migrations,
           "reward_per_server": res.reward_per_server}
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        print(f"{out['policy']} L={out['servers']:,} alpha={out['alpha']:g}: "
              f"{out['events']:,} events in {out['seconds']:.1f} s "
              f"({out['events_per_second']:,} events/s; "
              f"simulated time {out['simulated_time']:.1f}, "
              f"acceptance {out['acceptance_rate']:.3f}, migrations {out['migrations']:,})")


if __name__ == "__main__":
    main()
