"""CLI for the moment paper: ``headroom simulate moment``, ``headroom calibrate moment``,
``headroom reproduce moment``. app/sim/cli.py wires the three adders below."""

from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap
from dataclasses import replace
from typing import Any

from app.policies.moments.formulas import DEFAULT_STEPS
from app.policies.moments.policies import POLICIES
from app.policies.moments.recipe import DEFAULT_LIVES, Recipe
from app.sim.cliargs import add_reproduction

HOW_TO_READ = (
    "threshold: t in cores (threshold, first_moment) or the overflow bound ρ (second_moment), "
    "as the service derives it from the capacity and --sla (or as given by --threshold), and "
    "where the closed loop left it at the end; "
    "util: mean share of the cores in use; fail rate: share of scale-outs denied for lack of "
    "cores, to compare with the SLA τ (e.g. 1e-4). A policy is better when it reaches "
    "a higher util at a fail rate within the SLA; `headroom calibrate moment` finds the "
    "threshold that does. Short runs see few failures: a rate of 0 is not yet a guarantee.")


def _policies(spec: str) -> list[str]:
    out = [p.strip() for p in spec.split(",") if p.strip()]
    bad = [p for p in out if p not in POLICIES]
    if bad or not out:
        raise SystemExit(f"unknown policies {bad}; known: {', '.join(POLICIES)}")
    return out


def _scale_args(p: argparse.ArgumentParser, capacity: int, years: float) -> None:
    p.add_argument("--capacity", type=int, default=capacity, help="cores in the cluster (paper: 20000)")
    p.add_argument("--years", type=float, default=years, help="simulated years (paper: 3)")
    p.add_argument("--arrival-rate", type=float, default=None,
                   help="deployments per hour (default: capacity / 20000, the paper's load)")
    p.add_argument("--observations", type=int, default=0, help="prior observations per process (§6)")
    p.add_argument("--seed", type=int, default=0, help="seeds the generative model")
    p.add_argument("--steps", type=int, default=DEFAULT_STEPS,
                   help="steps per look-ahead horizon (paper and service: 600; t and ρ mean "
                        "what they mean only on the grid they were calibrated on)")
    p.add_argument("--sla", type=float, default=1e-4,
                   help="τ, the share of scale-outs allowed to fail (the service's default)")
    p.add_argument("--arrival-size-evidence", action="store_true",
                   help="count each arrival's size as one observation of its scale-out size σ "
                        "(policy.arrival_size_evidence; its own calibrated thresholds)")
    p.add_argument("--population-prior", default=None, metavar="JSON",
                   help='deployments are drawn from this population prior and the engine '
                        'starts from it, instead of Table 1 (policy.population_prior): '
                        '\'{"lambda": [shape, rate], "mu": [...], "sigma": [...]}\', rates per hour')


def _check_scale(args: argparse.Namespace, command: str) -> None:
    from app.sim.moments.derive import default_arrival_rate

    if args.arrival_rate is None and args.capacity > 0:
        args.arrival_rate = default_arrival_rate(args.capacity)
    if args.capacity <= 0 or args.years <= 0 or args.arrival_rate <= 0 or args.steps < 1:
        raise SystemExit(f"{command}: capacity, years, arrival rate and steps must be positive")
    if not 0 < args.sla < 1:
        raise SystemExit(f"{command}: need 0 < --sla < 1")
    if args.population_prior is not None:
        from app.policies.moments.errors import MomentsError
        from app.policies.moments.priors import declared_prior

        try:
            args.population_prior = declared_prior(json.loads(args.population_prior)).to_dict()
        except (ValueError, MomentsError) as exc:  # JSONDecodeError is a ValueError
            raise SystemExit(f"{command}: --population-prior: {exc}") from exc


def add_simulate_parser(simulate_subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = simulate_subparsers.add_parser(
        "moment", help="moment-based admission (zeroth/first/second moment) on the paper's model",
        description="Simulate the §2.1 model with Table 1 priors under each policy.")
    p.add_argument("--policies", default=",".join(POLICIES), help="comma list of policies")
    _scale_args(p, 2000, 1.0)
    p.add_argument("--threshold", action="append", default=[], metavar="POLICY=VALUE",
                   help="t in cores (threshold, first_moment) or ρ (second_moment); default: "
                        "what the service derives from --capacity and --sla (calibrations of "
                        "this model, see docs/moments.md), not the paper's values")
    p.add_argument("--open-loop", action="store_true",
                   help="keep the threshold fixed (the paper); default: the service's closed "
                        "loop on the realized failure rate")
    p.add_argument("--fixed-prior", action="store_true",
                   help="with --sla: keep the declared prior (Table 1's, the paper's, unless "
                        "--population-prior) instead of learning the population prior as a new "
                        "cluster does (policy.learn_prior)")
    p.add_argument("--growth", type=float, default=1.0,
                   help="true scale-out rate ÷ the priors' (2: deployments grow twice as fast "
                        "as the engine believes)")
    p.add_argument("--cautious-growth", type=float, default=None,
                   help="believe λ × this until the cluster's deployments tell, as a cluster "
                        "declared with policy.cautious_growth does (default: what such a "
                        "declaration gets, 2 for the second moment at 3,000-5,000 cores with "
                        "the table's threshold, else 1: off)")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                   help="local processes for a calibration the declaration needs first")
    p.add_argument("--json", action="store_true", help="JSON on stdout")
    p.set_defaults(func=run_simulate)
    return p


def _cautious(engines: dict[str, Any]) -> str:
    """", cautious start λ ×f" for the engines that have one (the default or --cautious-growth)."""
    held = {p: e.learner.cautious for p, e in engines.items()
            if e.learner is not None and e.learner.cautious is not None}
    if not held:
        return ""
    if len(set(held.values())) == 1 and len(held) == len(engines):
        return f", cautious start λ ×{next(iter(held.values())):g}"
    return ", cautious start " + ", ".join(f"λ ×{f:g} ({p})" for p, f in held.items())


def _progress_printer() -> Any:
    """Progress on stderr: one line rewritten in place on a terminal, plain lines to a file."""
    tty = sys.stderr.isatty()

    def show(line: str) -> None:
        if tty and line.startswith("  "):  # a life: overwrite the previous one
            print("\r\033[K" + line.strip()[:150], end="", file=sys.stderr, flush=True)
        else:
            print(("\r\033[K" if tty else "") + line, file=sys.stderr, flush=True)
    return show


def run_simulate(args: argparse.Namespace) -> int:
    from app.sim.moments.derive import service_engine, service_threshold
    from app.sim.moments.simulator import simulate

    thresholds: dict[str, float] = {}
    for item in args.threshold:
        name, _, value = item.partition("=")
        thresholds[name] = float(value)
    _check_scale(args, "headroom simulate moment")
    if args.growth <= 0:
        raise SystemExit("headroom simulate moment: --growth must be positive")
    derived: dict[str, tuple[float | None, dict[str, Any] | None]] = {}
    for p in _policies(args.policies):
        if p in thresholds:
            derived[p] = (thresholds[p], None)
            continue
        # What the service would decide on: the table's, or its background calibration's,
        # run here in the foreground by the same recipe (minutes, with progress).
        derived[p] = service_threshold(p, args.capacity, args.sla, args.arrival_rate,
                                       args.arrival_size_evidence, args.population_prior,
                                       workers=args.workers, progress=_progress_printer())
        if derived[p][1].get("source") == "table":  # the service's own table path, defaults too
            derived[p] = (None, None)
    refused = [p for p, (t, d) in derived.items() if t is None and d is not None]
    for p in refused:
        print(f"{p}: no threshold meets τ = {args.sla:g} at this capacity and load: the "
              "service's cluster would admit nothing", file=sys.stderr)
    try:
        engines = {p: service_engine(p, args.capacity, args.sla, t, derivation,
                                     closed_loop=not args.open_loop, steps=args.steps,
                                     learn=not args.fixed_prior,
                                     arrival_size_evidence=args.arrival_size_evidence,
                                     population_prior=args.population_prior,
                                     cautious_growth=args.cautious_growth)
                   for p, (t, derivation) in derived.items() if p not in refused}
    except ValueError as exc:
        raise SystemExit(f"headroom simulate moment: {exc}") from exc
    cautious = _cautious(engines)  # as declared: a start may end during the life
    results = [
        simulate(p, args.capacity, args.years, args.arrival_rate, args.observations, args.seed,
                 steps=args.steps, engine=eng, growth=args.growth,
                 arrival_size_evidence=args.arrival_size_evidence,
                 population_prior=args.population_prior)
        for p, eng in engines.items()
    ]
    if args.json:
        json.dump({"results": results}, sys.stdout, indent=2)
        print()
    else:
        print(textwrap.fill(
            f"Moment-based admission (Dierks, Kash & Seuken): {args.capacity} cores, "
            f"deployments arriving {args.arrival_rate:g} per hour for {args.years:g} years "
            f"with {'Table 1 priors' if args.population_prior is None else 'the given population prior'} "
            f"(§2.1 model; true scale-out rate ×{args.growth:g}), "
            f"{args.observations} prior observations each; SLA τ = {args.sla:g}, "
            f"{'open' if args.open_loop else 'closed'} loop, "
            f"{'fixed' if args.fixed_prior else 'learnt'} population prior"
            f"{cautious}"
            f"{', arrival sizes counted as σ evidence' if args.arrival_size_evidence else ''}; "
            f"policies {', '.join(r['policy'] for r in results)}, seed {args.seed}.", 92)
            + "\n")
        print(f"{'policy':<15}{'threshold':>11}{'util':>8}{'fail rate':>11}{'admitted':>10}{'rejected':>10}")
        for r in results:
            print(f"{r['policy']:<15}{r['threshold']:>11.4g}{r['utilization']:>8.1%}"
                  f"{r['scaleout_failure_rate']:>11.2e}{r['admitted']:>10}{r['rejected']:>10}")
        print("\n" + textwrap.fill(HOW_TO_READ, 92))
    return 0


def add_calibrate_parser(top_level_subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    cal = top_level_subparsers.add_parser("calibrate", help="tune a policy's threshold by simulation")
    which = cal.add_subparsers(dest="calibrate_target", required=True)
    p = which.add_parser(
        "moment", help="binary-search t or ρ so the scale-out failure rate meets the SLA",
        description="§5.2's calibration for one cluster, open loop, on the service's grid: "
                    "by default the very search the service runs in the background for a "
                    "declaration with the same capacity, τ, kind, prior and arrival rate "
                    "(the same seeded lives, so the same threshold). Reports the confidence "
                    "that the SLA holds and prints the policy object to declare the cluster "
                    "with (POST /v1/clusters). Seeded runs go to local processes or, with "
                    "--dask-scheduler, to a Dask cluster.")
    p.add_argument("--policy", choices=POLICIES, required=True, help="the policy to tune")
    _scale_args(p, 1000, 3.0)
    p.add_argument("--runs", type=int, default=DEFAULT_LIVES,
                   help="seeded lives per candidate (default: the service's recipe, "
                        f"{DEFAULT_LIVES}; the paper: 500)")
    p.set_defaults(seed=Recipe().seed)
    p.add_argument("--iterations", type=int, default=Recipe().iterations,
                   help="binary-search steps (default: the service's recipe)")
    p.add_argument("--held-out", type=int, default=None, metavar="N",
                   help="lives from another seed range the answer must also hold τ on, at "
                        f"{Recipe().confidence:g} confidence, else it is halved (at most "
                        f"{Recipe().step_downs} times; default: as many as --runs, as the "
                        "service does; 0: none)")
    p.add_argument("--between", type=float, nargs=2, metavar=("LO", "HI"), default=None,
                   help="search only between these thresholds (t in cores, or ρ), e.g. the "
                        "calibrated values of the neighbouring capacities (default: t in "
                        "[0, 1.5 × capacity], ρ in [1e-4, 1])")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                   help="local processes for the seeded runs (default: every core)")
    p.add_argument("--dask-scheduler", default=None, metavar="ADDRESS",
                   help="run the seeded runs on this Dask cluster (e.g. tcp://host:8786) instead")
    p.add_argument("--importance-sampling", action="store_true",
                   help="spread the runs evenly over badness buckets and weight them back (App. D)")
    p.add_argument("--json", action="store_true", help="JSON on stdout")
    p.set_defaults(func=run_calibrate)
    return p


def run_calibrate(args: argparse.Namespace) -> int:
    from app.sim.moments.derive import derive, held_out_args
    from app.sim.moments.importance import confidence_text

    _check_scale(args, "headroom calibrate moment")
    if args.runs < 1 or args.iterations < 1 or (args.held_out or 0) < 0:
        raise SystemExit("headroom calibrate moment: need --runs >= 1, --iterations >= 1, "
                         "--held-out >= 0")
    if args.between is not None and not 0 < args.between[0] < args.between[1]:
        raise SystemExit("headroom calibrate moment: --between needs 0 < LO < HI")
    res = derive(args.policy, args.sla, args.capacity, args.arrival_rate, args.years, args.runs,
                 args.iterations, args.seed, args.steps, args.workers, args.observations,
                 # stderr, so a --json run shows its progress too without touching stdout
                 progress=_progress_printer(),
                 scheduler=args.dask_scheduler, importance=args.importance_sampling,
                 between=None if args.between is None else tuple(args.between),
                 arrival_size_evidence=args.arrival_size_evidence,
                 population_prior=args.population_prior,
                 **held_out_args(replace(Recipe(), lives=args.runs, held_out=args.held_out)))
    if args.json:
        json.dump(res, sys.stdout, indent=2)
        print()
        return 0
    print(f"{res['policy'] and res['policy']['kind'] or args.policy}: threshold "
          f"{res['threshold']:.5g}, failure rate {res['failure_rate']:.3g} (SLA {res['sla']:g}), "
          f"utilization {res['utilization']:.1%}, confidence SLA holds {confidence_text(res['confidence'])} "
          f"over {res['runs']} runs" + _held_out_text(res["validation"]))
    if res["policy"] is None:
        print("no candidate met the SLA" + ("" if res["validation"] is None else
                                            " on the held-out lives")
              + ": nothing safe to declare at this capacity and load")
    else:
        print("declare the cluster with (POST /v1/clusters, with the same capacity_cores and sla):")
        print(json.dumps({"capacity_cores": args.capacity, "sla": args.sla,
                          "policy": res["policy"]}))
    return 0


def _held_out_text(v: dict | None) -> str:
    if v is None:
        return ""
    return (f" held out from the search (seeds {v['seeds'][0]}-{v['seeds'][1]}; the search's "
            f"answer {v['search_threshold']:.5g}, {len(v['steps']) - 1} step(s) down)")


def add_reproduce_parser(reproduce_subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    return add_reproduction(
        reproduce_subparsers, "moment", "app.sim.moments.reproduce",
        help="moment paper: scaled-down Table 2 and Fig. 1 into docs/reproduction/moment.md "
             "and docs/reproduction/moments/ "
             "(the paper's scale: python -m app.sim.moments.paper_scale)")
