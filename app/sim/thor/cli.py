"""``headroom simulate thor`` and ``headroom reproduce thor``.

This module only adds subparsers; app/sim/cli.py wires them:
- ``add_simulate_parser(experiments)`` — ``experiments`` is the subparsers object of
  ``simulate``;
- ``add_reproduce_parser(targets)`` — the subparsers object of ``reproduce``.
The simulate handler is ``run_simulate(args)`` (set as ``func``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from app.sim.cliargs import add_reproduction, assign, split_assignment
from app.sim.thor.simulator import POLICIES


def _fraction(text: str) -> float:
    """ε as a fraction (0.1) or a percentage (10%)."""
    try:
        v = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.0 < v <= 0.5:
        raise argparse.ArgumentTypeError("epsilon must be in (0, 0.5] (e.g. 0.1 or 10%)")
    return v


def _params(items: list[str]) -> dict[str, dict[str, Any]]:
    """``thor.V=0.3``, ``thor.estimator.tail_factor=1.2`` -> nested dicts per policy."""
    out: dict[str, dict[str, Any]] = {}
    for item in items:
        parsed = split_assignment(item)
        if parsed is None or parsed[0][0] not in POLICIES:
            raise ValueError(f"--param {item!r}: expected POLICY.KEY=VALUE with POLICY in "
                             f"{', '.join(POLICIES)}")
        path, value = parsed
        assign(out.setdefault(path[0], {}), path[1:], value)
    return out


def add_simulate_parser(experiments: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = experiments.add_parser(
        "thor", help="reservation policies (quantile tracking, THOR, FTL, percentile, static "
                     "oracle) on a trace",
        description="Run THOR and its baselines over a real utilisation series (300 s steps) "
                    "or a CSV column and report violation rate and cost per policy.")
    p.add_argument("--trace", choices=("alibaba2018", "google2019"),
                   help="a packaged utilisation series (needs the sim extra); or --csv")
    p.add_argument("--resource", choices=("cpu", "memory"), help="which series of --trace")
    p.add_argument("--csv", type=Path, help="read demand from this CSV file instead")
    p.add_argument("--column", help="the CSV column holding demand")
    p.add_argument("--epsilon", type=_fraction, required=True,
                   help="violation budget per period, e.g. 0.1 or 10%%")
    p.add_argument("--cost", type=float, default=1.0, help="cost per unit reserved (c_i)")
    p.add_argument("--steps", type=int, help="use only the first N periods (default: all)")
    p.add_argument("--policies", default=",".join(POLICIES),
                   help="comma list of policies (default: %(default)s)")
    p.add_argument("--param", action="append", default=[], metavar="POLICY.KEY=VALUE",
                   help="policy parameter, e.g. thor.estimator.tail_factor=1.2 (repeatable)")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    p.set_defaults(func=run_simulate)
    return p


def add_reproduce_parser(targets: argparse._SubParsersAction) -> argparse.ArgumentParser:
    return add_reproduction(
        targets, "thor", "app.sim.thor.reproduce",
        help="THOR paper §V tables and Fig. 3 on the packaged traces",
        description="Write thor.md and the Fig. 3-style plot into --out.")


def run_simulate(args: argparse.Namespace) -> int:
    from app.policies.thor import DEFAULT_POLICY
    from app.sim.thor.simulator import evaluate, load_series

    if args.csv is None and (args.trace is None or args.resource is None):
        raise SystemExit("headroom simulate thor: give --trace and --resource, "
                         "or --csv and --column")
    if args.cost <= 0:
        raise SystemExit("headroom simulate thor: --cost must be > 0")
    try:
        series = load_series(args.trace, args.resource, args.csv, args.column)
        if args.steps is not None:
            if args.steps < 1:
                raise ValueError("--steps must be >= 1")
            series = series[:args.steps]
        policies = [p.strip() for p in args.policies.split(",") if p.strip()]
        result = evaluate(series, args.epsilon, cost=args.cost, policies=policies,
                          params=_params(args.param))
    except (ValueError, OSError) as exc:  # ReservationError is a ValueError too
        raise SystemExit(f"headroom simulate thor: {exc}") from None
    source = (f"{args.csv}:{args.column}" if args.csv is not None
              else f"{args.trace}/{args.resource}")
    result = {"source": source, "default_policy": DEFAULT_POLICY, **result}
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"{source}: {result['periods']} periods, epsilon {args.epsilon:g}")
    print(f"{'policy':<15}{'violation':>10}{'mean x':>12}{'cost':>14}{'vs oracle':>11}")
    for name, s in result["policies"].items():
        rel = s.get("relative_cost")
        print(f"{name:<15}{100 * s['violation_rate']:>9.2f}%{s['mean_reservation']:>12.5g}"
              f"{s['cost']:>14.6g}{'' if rel is None else f'{rel:>11.3f}'}")
    return 0
