"""``headroom simulate rms`` and ``headroom reproduce rms`` (RMS paper, Psychas & Ghaderi 2018).

Wired into the CLI by app/sim/cli.py through ``add_simulate_parser`` / ``add_reproduce_parser``;
the runs themselves are ``run_policies`` in app/sim/rms/simulator.py.
"""

from __future__ import annotations

import argparse
import json
import textwrap

from app.sim.cliargs import add_reproduction, positive
from app.sim.rms.simulator import PRESETS, run_policies

DEFAULT_POLICIES = "rms,rms_rf_ad,best_fit_queue"

PRESET_DOC = {
    "bf-instability": "the §III / Fig. 1b example (10 servers of size 10, jobs of size 2 and "
                      "5), a load inside the capacity region where work-conserving Best-Fit "
                      "is unstable",
    "ec2": "Table I's EC2 instance types on {servers} servers at {intensity:g} of the "
           "capacity region's boundary (§VII-A)",
}

HOW_TO_READ = (
    "mean_queue: jobs waiting (sum_j Q_j), averaged over time after the warmup; final_queue: "
    "waiting at the end. A queue that keeps growing with --duration means the policy is "
    "unstable at this load; a throughput-optimal one (RMS) stays bounded, though it may "
    "start slower. docs/reproduction/rms.md has the paper's runs.")


def add_simulate_parser(experiments: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = experiments.add_parser(
        "rms", help="queueing schedulers: RMS and variants vs work-conserving greedy",
        description="Poisson arrivals, exponential services; reports the time-average and the "
                    "final total queue size per policy.")
    p.add_argument("--preset", choices=PRESETS, default="bf-instability",
                   help="bf-instability: the paper's Fig. 1b example where Best-Fit's queues "
                        "grow; ec2: EC2 instance types on --servers servers")
    p.add_argument("--policies", default=DEFAULT_POLICIES,
                   help="comma list: rms[_rf|_bf][_ad][_plus], rms_jsq[_plus], "
                        "rms_po2[_plus] (Algorithm 2), best_fit_queue, first_fit_queue, "
                        "random_fit_queue")
    p.add_argument("--duration", "-T", type=positive(float), default=1000.0,
                   help="simulated time, in mean service times")
    p.add_argument("--warmup", type=float, default=0.0,
                   help="the time average of the queue starts here")
    p.add_argument("--seed", type=int, default=1, help="arrivals, services and clocks")
    p.add_argument("--servers", type=int, default=20, help="ec2 preset only")
    p.add_argument("--intensity", type=float, default=0.9, help="ec2 preset only (zeta)")
    p.add_argument("--clock-rate", type=positive(float),
                   help="r_j for every job type; Algorithm 2 splits it over the servers "
                        "(default: the preset's, 20 for bf-instability, 10 for ec2)")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    p.set_defaults(func=run_simulate)
    return p


def run_simulate(args: argparse.Namespace) -> int:
    policies = [x.strip() for x in args.policies.split(",") if x.strip()]
    if not policies:
        raise SystemExit("headroom simulate rms: --policies is empty")
    if not 0 <= args.warmup < args.duration:
        raise SystemExit("headroom simulate rms: need 0 <= --warmup < --duration")
    try:
        res = run_policies(args.preset, policies, args.duration, args.seed, args.warmup,
                           args.servers, args.intensity, args.clock_rate)
    except ValueError as e:
        raise SystemExit(f"headroom simulate rms: {e}") from None
    out = {"preset": args.preset, "duration": args.duration, "seed": args.seed,
           "policies": {n: r.summary() for n, r in res.items()}}
    if args.json:
        print(json.dumps(out))
        return 0
    setting = PRESET_DOC[args.preset].format(servers=args.servers, intensity=args.intensity)
    print(textwrap.fill(
        f"RMS paper (Psychas & Ghaderi): queued scheduling of Poisson arrivals with "
        f"exponential services, preset {args.preset}: {setting}. Policies "
        f"{', '.join(policies)} see the same jobs; T={args.duration:g} mean service times, "
        f"warmup {args.warmup:g}, seed {args.seed}.", 92) + "\n")
    print(f"{'policy':<20} {'mean_queue':>12} {'final_queue':>12}")
    for n, r in res.items():
        print(f"{n:<20} {r.mean_queue:>12.2f} {r.final_queue:>12d}")
    print("\n" + textwrap.fill(HOW_TO_READ, 92))
    return 0


def add_reproduce_parser(targets: argparse._SubParsersAction) -> argparse.ArgumentParser:
    return add_reproduction(
        targets, "rms", "app.sim.rms.reproduce",
        help="RMS paper: Fig. 1b instability contrast, Fig. 2 clock rates, Fig. 3 variants, "
             "Fig. 4 distributed queues", description="Write rms.md and plots into --out.")
