"""``headroom simulate dra``, ``headroom bound`` and ``headroom reproduce dra``: placement
policies on a DRA paper §7.1 workload, measured against the global greedy U^(g)[ρ] and the
optimum U*[ρ] of LP (3.2). app/sim/cli.py wires the adders below.

Every policy runs on the same arrival stream (common random numbers): the workload's
generator and the engines' generator are two children of one ``SeedSequence(--seed)``,
recreated for each policy, so arrival k has the same time, type and service time in every
run and only the decisions differ.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from app.policies.registry import PLACEMENT_ENGINES
from app.sim.cliargs import add_reproduction, assign, plot_file, positive, split_assignment
from app.sim.dra.metrics import SimResult
from app.sim.dra.presets import Instance, paper_worst_case, random_gcp
from app.sim.dra.simulator import run_policy
from app.sim.progress import TextProgress

PRESETS = ("paper-worst-case", "random-gcp")
DEFAULT_POLICIES = "dra,power_of_d,best_fit,first_fit"


def make_instance(preset: str, alpha: float, instance_seed: int) -> Instance:
    if preset == "paper-worst-case":
        return paper_worst_case(alpha)
    if preset == "random-gcp":
        return random_gcp(instance_seed).scaled(alpha)
    raise ValueError(f"unknown preset {preset!r}; known: {', '.join(PRESETS)}")


def parse_policies(spec: str, params: list[str]) -> dict[str, tuple[str, dict[str, Any]]]:
    """``"dra,dra_p:dra"`` and ``["dra_p.preemption=true", "dra.reservation.b=1"]`` ->
    {label: (kind, params)}. A value is JSON if it parses as JSON, else a string; a dotted
    key nests (``reservation.b``)."""
    out: dict[str, tuple[str, dict[str, Any]]] = {}
    for entry in filter(None, (e.strip() for e in spec.split(","))):
        label, _, kind = entry.partition(":")
        kind = kind or label
        if kind not in PLACEMENT_ENGINES:
            raise ValueError(f"unknown policy {kind!r}; known: {', '.join(PLACEMENT_ENGINES)}")
        if label in out:
            raise ValueError(f"policy label {label!r} given twice")
        out[label] = (kind, {})
    if not out:
        raise ValueError("no policy to run")
    for item in params:
        parsed = split_assignment(item)
        if parsed is None:
            raise ValueError(f"--policy-param {item!r}: expected LABEL.KEY=VALUE")
        path, value = parsed
        if path[0] not in out:
            raise ValueError(f"--policy-param {item!r}: no policy labelled {path[0]!r} "
                             f"(running {', '.join(out)})")
        assign(out[path[0]][1], path[1:], value)
    return out


def _ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def run_dra(args: argparse.Namespace) -> tuple[dict[str, Any], dict[str, SimResult]]:
    from app.sim.dra.bounds import global_greedy, optimal

    instance = make_instance(args.preset, args.alpha, args.instance_seed)
    policies = parse_policies(args.policies, args.policy_param)
    warmup = args.warmup if args.warmup is not None else args.duration / 5
    greedy, best = global_greedy(instance), optimal(instance)
    out: dict[str, Any] = {
        "preset": args.preset, "alpha": args.alpha, "seed": args.seed,
        "instance_seed": args.instance_seed if args.preset == "random-gcp" else None,
        "servers": args.servers, "duration": args.duration, "warmup": warmup,
        "instance": {"types": list(instance.type_names),
                     "demands": [list(d) for d in instance.demands],
                     "capacity": list(instance.capacity), "rewards": list(instance.rewards),
                     "rho": list(instance.rho)},
        "greedy_reward_per_server": greedy, "optimal_reward_per_server": best,
        "policies": {},
    }
    results: dict[str, SimResult] = {}
    show = not (args.json or args.no_progress)
    for label, (kind, params) in policies.items():
        bar = TextProgress(f"{label} L={args.servers}") if show else None
        t0 = time.perf_counter()
        try:
            res = run_policy(kind, params, instance, args.servers, args.seed, args.duration,
                             warmup, mean_service=args.mean_service,
                             sample_step=args.sample_step, max_events=args.max_events,
                             progress=bar)
        finally:
            if bar is not None:
                bar.close()
        seconds = time.perf_counter() - t0
        results[label] = res
        entry = {"kind": kind, "params": params, **res.to_dict(),
                 "ratio_to_greedy": _ratio(res.reward_per_server, greedy),
                 "ratio_to_optimal": _ratio(res.reward_per_server, best),
                 "seconds": round(seconds, 3),
                 "events_per_second": round(res.events_total / seconds) if seconds else None}
        out["policies"][label] = entry
    return out, results


def _print_table(out: dict[str, Any]) -> None:
    g, o = out["greedy_reward_per_server"], out["optimal_reward_per_server"]
    print(f"{out['preset']} alpha={out['alpha']:g} L={out['servers']} "
          f"T={out['duration']:g} warm-up={out['warmup']:g} seed={out['seed']}")
    print(f"global greedy {g:.2f}  optimal {o:.2f}  (reward per server)")
    print(f"{'policy':14} {'reward/server':>13} {'/greedy':>8} {'/optimal':>9} "
          f"{'accepted':>9} {'migrations':>10} {'preempted':>9} {'seconds':>8}")
    for label, p in out["policies"].items():
        r = p["reward_per_server"]
        acc = p["acceptance_rate"]
        print(f"{label:14} {r if r is not None else float('nan'):13.2f} "
              f"{p['ratio_to_greedy'] or float('nan'):8.4f} "
              f"{p['ratio_to_optimal'] or float('nan'):9.4f} "
              f"{acc if acc is not None else float('nan'):9.4f} {p['migrations']:10,} "
              f"{p['preemptions']:9,} {p['seconds']:8.2f}")


def _simulate_dra(args: argparse.Namespace) -> int:
    try:
        out, results = run_dra(args)
    except ValueError as e:
        print(f"headroom simulate dra: error: {e}", file=sys.stderr)
        return 2
    if args.plot:
        from app.sim.dra.plots import plot_rewards

        plot_rewards(args.plot, results, greedy=out["greedy_reward_per_server"],
                     optimal=out["optimal_reward_per_server"], warmup=out["warmup"],
                     title=f"{out['preset']}, alpha={out['alpha']:g}, L={out['servers']}")
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        _print_table(out)
        if args.plot:
            print(f"wrote {args.plot}")
    return 0


def add_simulate_parser(experiments: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = experiments.add_parser(
        "dra", help="policies on a DRA paper §7.1 workload vs global greedy and optimal",
        description="Placement policies on a DRA paper §7.1 workload, measured against the "
                    "global greedy U^(g)[ρ] and the optimum U*[ρ] of LP (3.2). Every policy "
                    "sees the same arrivals (common random numbers from --seed).")
    p.add_argument("--preset", choices=PRESETS, default="paper-worst-case",
                   help="a DRA paper §7.1 workload: job types, rates and server capacity")
    p.add_argument("--alpha", type=float, default=1.0, help="workload scale α (ρ -> αρ)")
    p.add_argument("--seed", type=int, default=1, help="arrival stream and engine randomness")
    p.add_argument("--instance-seed", type=int, default=0,
                   help="random-gcp: which random collection (as `headroom bound --seed`)")
    p.add_argument("--servers", "-L", type=positive(int), default=100,
                   help="servers L in the cluster")
    p.add_argument("--duration", "-T", type=positive(float), default=100.0,
                   help="simulated time, in mean service times")
    p.add_argument("--warmup", "-W", type=float,
                   help="metrics start here (default: duration/5); events before still run")
    p.add_argument("--policies", default=DEFAULT_POLICIES,
                   help="comma-separated KIND or LABEL:KIND, e.g. dra,dra_p:dra,power_of_d")
    p.add_argument("--policy-param", action="append", default=[], metavar="LABEL.KEY=VALUE",
                   help="engine parameter, VALUE as JSON, e.g. dra_p.preemption=true, "
                        "dra.reservation.b=1, power_of_d.d=2 (repeatable)")
    p.add_argument("--mean-service", type=positive(float), default=1.0,
                   help="mean service time; arrival rates are ρ_j·L/mean so the load stays ρ")
    p.add_argument("--sample-step", type=positive(float),
                   help="reward time-series bin width (default: duration/200)")
    p.add_argument("--max-events", type=positive(int),
                   help="stop a policy's run after this many events (default: no limit)")
    p.add_argument("--plot", metavar="FILE.png", type=plot_file,
                   help="plot reward per server over time into this file (needs "
                        "matplotlib, of the sim extra; default: no plot)")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    p.add_argument("--no-progress", action="store_true", help="no progress line on stderr")
    p.set_defaults(func=_simulate_dra)
    return p


def add_reproduce_parser(targets: argparse._SubParsersAction) -> argparse.ArgumentParser:
    return add_reproduction(targets, "dra", "app.sim.dra.reproduce",
                            help="DRA paper §7: Figs. 2-4, random collections, §7.2")


# ``headroom bound``: U^(g)[ρ] and U*[ρ] per server for a §7.1 preset.

def add_bound_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("bound", help="global greedy and LP (3.2) optimum per server")
    p.add_argument("--preset", choices=PRESETS, required=True,
                   help="a DRA paper §7.1 workload: job types, rates and server capacity")
    p.add_argument("--alpha", type=float, default=1.0, help="scale ρ by α")
    p.add_argument("--seed", type=int, default=0, help="random-gcp collection")
    p.add_argument("--method", choices=("auto", "enumerate", "colgen"), default="auto",
                   help="auto enumerates configurations up to a limit, then generates columns")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    p.set_defaults(func=_run_bound)
    return p


def _bound_instance(args: argparse.Namespace):
    if args.alpha < 0:
        raise SystemExit("headroom bound: --alpha must be >= 0")
    if args.preset == "paper-worst-case":
        return paper_worst_case(args.alpha)
    inst = random_gcp(args.seed)
    return inst.scaled(args.alpha) if args.alpha != 1.0 else inst


def _run_bound(args: argparse.Namespace) -> int:
    from app.sim.dra.bounds import bound

    inst = _bound_instance(args)
    b = bound(inst, args.method)
    if args.json:
        print(json.dumps(b.to_dict()))
        return 0
    kind = "feasible configurations" if b.method == "enumerate" else "columns generated"
    rows = [("instance", inst.name), ("method", b.method), (kind, str(b.configurations)),
            ("global greedy U^(g) per server", f"{b.greedy_reward_per_server:.6f}"),
            ("LP (3.2) optimum U* per server", f"{b.optimal_reward_per_server:.6f}"),
            ("ratio U^(g) / U*", f"{b.ratio:.6f}")]
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    return 0
