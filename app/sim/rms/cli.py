"""``headroom simulate rms`` and ``headroom reproduce rms`` (RMS paper, Psychas & Ghaderi 2018).

Wired into the CLI by app/sim/simulate_cli.py and app/sim/reproduce_cli.py through
``add_simulate_parser`` / ``add_reproduce_parser``.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from app.sim.cliargs import add_reproduction, positive

DEFAULT_POLICIES = "rms,rms_rf_ad,best_fit_queue"
PRESETS = ("bf-instability", "ec2")


def preset_setup(preset: str, servers: int = 20, intensity: float = 0.9):
    """(model, lambda, mu, default params per policy kind) of a preset."""
    from app.sim.rms_sim import bf_instability_model, ec2_boundary_rates, ec2_model

    if preset == "bf-instability":
        model, lam, mu = bf_instability_model()
        # Greedy: a freed server takes the smallest waiting job first (one of Definition 1's
        # arbitrary selection rules); with oldest-first the instability did not show within
        # our horizons (docs/reproduction/rms.md). RMS: r_j = 2L ticks per type (Algorithm
        # 2: 2 per server queue).
        return model, lam, mu, {"greedy": {"order": "small_first"}, "rms": {"clock_rate": 20.0}}
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
    from app.policies.rms import GREEDY
    from app.sim.rms_sim import simulate

    model, lam, mu, defaults = preset_setup(preset, servers, intensity)
    results = {}
    for name in policies:
        params = dict(defaults["greedy" if name in GREEDY else "rms"])
        if clock_rate is not None and name not in GREEDY:
            params["clock_rate"] = clock_rate
        results[name] = simulate(model, name, lam, mu, duration, seed, params, warmup,
                                 sample_step)
    return results


def add_simulate_parser(experiments: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = experiments.add_parser(
        "rms", help="queueing schedulers: RMS and variants vs work-conserving greedy",
        description="Poisson arrivals, exponential services; reports the time-average and the "
                    "final total queue size per policy.")
    p.add_argument("--preset", choices=PRESETS, default="bf-instability")
    p.add_argument("--policies", default=DEFAULT_POLICIES,
                   help="comma list: rms[_rf|_bf][_ad][_plus], rms_jsq[_plus], "
                        "rms_po2[_plus] (Algorithm 2), best_fit_queue, first_fit_queue, "
                        "random_fit_queue")
    p.add_argument("--duration", "-T", type=positive(float), default=1000.0)
    p.add_argument("--warmup", type=float, default=0.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--servers", type=int, default=20, help="ec2 preset only")
    p.add_argument("--intensity", type=float, default=0.9, help="ec2 preset only (zeta)")
    p.add_argument("--clock-rate", type=positive(float),
                   help="r_j for every job type; Algorithm 2 splits it over the servers")
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
    else:
        print(f"{'policy':<20} {'mean_queue':>12} {'final_queue':>12}")
        for n, r in res.items():
            print(f"{n:<20} {r.mean_queue:>12.2f} {r.final_queue:>12d}")
    return 0


def add_reproduce_parser(targets: argparse._SubParsersAction) -> argparse.ArgumentParser:
    return add_reproduction(
        targets, "rms", "app.sim.rms_reproduce",
        help="RMS paper: Fig. 1b instability contrast, Fig. 2 clock rates, Fig. 3 variants, "
             "Fig. 4 distributed queues", description="Write rms.md and plots into --out.")
