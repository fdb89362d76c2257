"""Does the service hold τ when the priors are wrong? Controllers side by side on the §2.1 model.

The threshold is the one calibrated for τ with the right priors (given on the command line,
from ``headroom calibrate moment``, whose seeds start at 1000; these runs start at --seed,
so nothing is tuned on the runs reported). Each seed is simulated at true scale-out rate ×1
and ×``growth`` (deployments grow faster than the engine's Table 1 priors say) under each
controller of ``CONTROLLERS``, with common random numbers: the paper (fixed prior and
threshold), the failure-rate loop (app/policies/moments/sla.py), the learnt population prior
(app/policies/moments/learning.py), both with the threshold following the learnt prior up
the table's growth ladder (what the service declares by default; "service_no_ladder" keeps
the threshold Table 1's whatever prior is learnt), and an oracle told the true growth (at the
same threshold, or at the one calibrated for that growth). Without --threshold every cell
starts from the table's, as a cluster declared without one does. Reports the pooled failure
rate with a 95% Wilson interval over requests and a run bootstrap (failures cluster in bad
runs), and the utilisation.

    python -m app.sim.moments.closed_loop --policy second_moment --capacity 2000 --sla 1e-4 \
        --runs 48 --seed 7000 --growth 2 --skip-right-prior --measure-from 0.5 --workers 2 \
        --controllers paper,service,service_no_ladder,oracle_ladder \
        --json docs/reproduction/moments/second_moment_ladder_2000_cores.json \
        --plot docs/reproduction/moments/second_moment_ladder_2000_cores.png
"""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from app.policies.moments.declare import checked_cautious_start
from app.policies.moments.engine import MomentEngine
from app.policies.moments.formulas import DEFAULT_STEPS
from app.policies.moments.learning import CAUTIOUS_GROWTH
from app.policies.moments.options import MomentOptions, ladder_steps
from app.policies.moments.priors import Prior
from app.policies.moments.sla import (
    TABLE_SLA,
    GrowthLadder,
    declared_threshold,
    table_threshold,
    wilson,
)
from app.sim.dispatch import dispatch
from app.sim.moments.calibrate import confidence
from app.sim.moments.derive import default_arrival_rate, service_engine, service_options
from app.sim.moments.importance import confidence_text
from app.sim.moments.simulator import simulate


def pooled(runs: list[dict[str, Any]], sla: float) -> dict[str, Any]:
    """The cell's figures over its lives. τ is checked on the pooled rate (every simulated
    cluster's scale-outs together), which one or two very full lives decide; an operator runs
    one cluster, so the cell also says how many lives failed at all and in how many the
    life's own rate was above τ (`lives_failing`, `lives_over_sla`)."""
    own = [r["scaleout_failure_rate"] for r in runs]
    den = sum(round(r["scaleout_failure_rate"] * r["scaleout_requests"]) for r in runs)
    req = sum(r["scaleout_requests"] for r in runs)
    late_den = sum(r["late"]["denied"] for r in runs)
    late_req = sum(r["late"]["requests"] for r in runs)
    util = np.array([r["utilization"] for r in runs])
    return {
        "failure_rate": den / req if req else 0.0, "denied": den, "requests": req,
        "wilson95": list(wilson(den, req)),
        "confidence_sla_holds": confidence(runs, sla),
        "lives": len(runs), "lives_failing": sum(rate > 0 for rate in own),
        "lives_over_sla": sum(rate > sla for rate in own),
        "late_failure_rate": late_den / late_req if late_req else 0.0,
        "late_denied": late_den, "late_requests": late_req,
        "late_wilson95": list(wilson(late_den, late_req)),
        "utilization": float(util.mean()),
        "utilization_se": float(util.std(ddof=1) / np.sqrt(len(util))) if len(util) > 1 else 0.0,
        "final_thresholds": [r["threshold"] for r in runs],
        # Per life, in seed order: two policies run on the same seeds compare life by life.
        "seeds": [r["seed"] for r in runs], "utilizations": util.tolist(),
        "moved": sum(r.get("moved", 0) for r in runs),
        "moved_by_reason": _by_reason(runs),
    }


def _by_reason(runs: list[dict[str, Any]]) -> dict[str, int]:
    """The lives' moves summed per reason (lives recorded without `moved_by_reason` add none)."""
    total: dict[str, int] = {}
    for r in runs:
        for reason, n in r.get("moved_by_reason", {}).items():
            total[reason] = total.get(reason, 0) + n
    return total


def _moved_text(moved: int, by_reason: dict[str, int]) -> str:
    """", moved 3 (1 cluster_overflow, 2 outgrowing_cluster)" for a life or a cell ("" if none)."""
    if not moved:
        return ""
    return f", moved {moved} ({', '.join(f'{n} {reason}' for reason, n in sorted(by_reason.items()))})"


# What each cell runs: (failure-rate loop, population-prior learning, threshold ladder, told
# the truth). "paper" is the open loop of the paper; "service" what a new cluster gets by
# default (all three on); "service_no_ladder" the service without the ladder (the threshold
# stays Table 1's whatever prior is learnt); "oracle" the paper's engine told the
# truth (λ's prior mean × growth) at the same threshold; "oracle_ladder" told the truth and
# given the threshold calibrated for that growth (the table's by_growth step at or below it).
# "service_cautious" is the service with a cautious start (learning.py: it believes λ ×
# CAUTIOUS_GROWTH at the declared threshold until its deployments tell), "service_no_cautious"
# the service without one: the two differ from "service" only where a declaration gets a
# cautious start by default (sla.CAUTIOUS_BY_DEFAULT); every other cell has none.
# "service_move" is the service with an operator who moves every deployment /state lists as
# outgrowing to a larger cluster at once (simulator.simulate's move_outgrowing);
# "service_migrate" the service with an orchestrator that moves a deployment when its own
# scale-out is answered "migrate" (simulate's follow_migrate). Both start as "service" does
# (with the cautious start where a declaration gets one by default). "service_migrate_e",
# "service_migrate_half" and "service_migrate_sd" are service_migrate with the cluster_overflow
# line named rather than the declaration's default (policy.overflow_sd, engine._overflow_line):
# at E itself (0), half a standard deviation and one above it (0.5, 1), to compare the lines on
# the same seeds.
OVERFLOW_SD = {"service_migrate_e": 0.0, "service_migrate_half": 0.5,
               "service_migrate_sd": 1.0}  # service_migrate at a named line; others: the default
CONTROLLERS = {"paper": (False, False, False, False), "loop": (True, False, False, False),
               "learn": (False, True, False, False), "service": (True, True, True, False),
               "service_no_ladder": (True, True, False, False),
               "service_cautious": (True, True, True, False),
               "service_no_cautious": (True, True, True, False),
               "service_move": (True, True, True, False), "service_migrate": (True, True, True, False),
               **{name: (True, True, True, False) for name in OVERFLOW_SD},
               "oracle": (False, False, False, True), "oracle_ladder": (False, False, True, True)}
FOLLOWS_MIGRATE = ("service_migrate", *OVERFLOW_SD)
# Run unless --controllers says otherwise: all but the two that force a cautious start on or
# off ("service" has what a declaration gets by default) and those where someone outside the
# service moves deployments away (service_move and FOLLOWS_MIGRATE).
DEFAULT_CONTROLLERS = tuple(name for name in CONTROLLERS
                            if name not in ("service_cautious", "service_no_cautious", "service_move",
                                            *FOLLOWS_MIGRATE))


def told_the_truth(options: MomentOptions, growth: float, ladder: bool, sla: float,
                   threshold: float | None, sized: bool) -> MomentOptions:
    """An oracle's options: the population prior with λ × `growth`, and with `ladder` the
    threshold the service's ladder would stand at had it learnt that growth."""
    pop = options.population
    told = Prior((pop.lam[0], pop.lam[1] / growth), pop.mu, pop.sig)
    value = options.threshold
    if ladder:
        _, der = declared_threshold(options.policy, options.capacity, sla, threshold, None, sized)
        steps = ladder_steps(True, der, options.threshold)  # type: ignore[arg-type]
        if steps is not None:
            value = GrowthLadder(list(steps)).target(growth, 1.0)[1]
    return replace(options, population=told, threshold=value)


def cell_life(job: tuple[Any, ...], watch: Callable[[MomentEngine], None] | None = None) -> dict[str, Any]:
    """One life of one cell; `watch` sees the cell's engine before the life starts (replay.py
    wraps its scale-outs there)."""
    policy, capacity, sla, threshold, name, seed, years, rate, growth, steps = job[:10]
    measure_from, sized = job[10], job[11]
    closed, learn, ladder, told = CONTROLLERS[name]
    options, defaulted = service_options(
        policy, capacity, sla, threshold, closed_loop=closed, steps=steps, learn=learn,
        arrival_size_evidence=sized, ladder=ladder,
        cautious_growth=(CAUTIOUS_GROWTH if name == "service_cautious"
                         else None if name in ("service", "service_move", *FOLLOWS_MIGRATE)
                         else 1.0),
        overflow_sd=OVERFLOW_SD.get(name))
    if told:
        options = told_the_truth(options, growth, ladder, sla, threshold, sized)
    eng = checked_cautious_start(options, fallback=defaulted)
    if watch is not None:
        watch(eng)
    out = simulate(policy, capacity, years, rate, 0, seed, steps=steps, engine=eng,
                   growth=growth, measure_from=measure_from, arrival_size_evidence=sized,
                   move_outgrowing=name == "service_move", follow_migrate=name in FOLLOWS_MIGRATE)
    out["adoptions"] = [] if eng.learner is None else eng.learner.adoptions
    out["ladder"] = None if eng.ladder is None else eng.ladder.to_dict()
    out["cautious_at_end"] = None if eng.learner is None else eng.learner.cautious
    return out


def compare(policy: str, capacity: int, sla: float, threshold: float | None, runs: int,
            years: float = 3.0, growth: float = 2.0, steps: int = DEFAULT_STEPS,
            arrival_rate: float | None = None, measure_from: float = 0.0,
            progress: bool = False, controllers: tuple[str, ...] = DEFAULT_CONTROLLERS,
            workers: int = 1, seed: int = 0, right_prior: bool = True,
            arrival_size_evidence: bool = False) -> dict[str, Any]:
    """Every seed under every controller at growth 1 and `growth`, with common random
    numbers (a seed's arrivals and deployments are the same in every cell). right_prior=False
    leaves out the growth-1 cells (when the right-prior check ran apart, as a calibration's
    fresh-seed check does, they would cost as much again and say nothing new)."""
    rate = arrival_rate or default_arrival_rate(capacity)
    if "service_cautious" in controllers:  # refused as the service refuses it: before any life
        service_engine(policy, capacity, sla, threshold, arrival_size_evidence=arrival_size_evidence,
                       cautious_growth=CAUTIOUS_GROWTH)
    jobs, keys = [], []
    # growth = 1 asks for the right prior only: one cell, not the same seeds counted twice.
    growths = (1.0, growth) if right_prior else (growth,)
    for g in dict.fromkeys(growths):
        for name in controllers:
            if name.startswith("oracle") and g == 1.0:
                continue  # the paper's engine is the oracle there
            for s in range(seed, seed + runs):
                keys.append(f"growth={g:g} {name}")
                jobs.append((policy, capacity, sla, threshold, name, s, years, rate, g,
                             steps, measure_from, arrival_size_evidence))
    cells: dict[str, list[dict[str, Any]]] = {k: [] for k in keys}
    for key, r in zip(keys, dispatch(cell_life, jobs, workers)):
        cells[key].append(r)
        if progress:
            ads = r["adoptions"]
            learnt = "" if not ads else (
                f", prior learnt {len(ads)}x, first at {ads[0]['at']:.0f} h (λ ×"
                f"{ads[0]['mean_factor']['lambda']:.2f}), last ×{ads[-1]['mean_factor']['lambda']:.2f}")
            if r["ladder"] is not None:
                learnt += f", ladder step ×{r['ladder']['factor']:g}"
            for a in ads:
                if a.get("cautious_start") or a.get("ended_cautious_start"):
                    learnt += (f", cautious start {'floor' if a.get('cautious_start') else 'ended'}"
                               f" ({a.get('cautious_start') or a['ended_cautious_start']}) at {a['at']:.0f} h")
            if r.get("cautious_at_end"):
                learnt += f", still cautious (λ ×{r['cautious_at_end']:g})"
            learnt += _moved_text(r.get("moved", 0), r.get("moved_by_reason", {}))
            print(f"{key} seed {r['seed']}: fail {r['scaleout_failure_rate']:.2e} of "
                  f"{r['scaleout_requests']}, util {r['utilization']:.3f}, threshold now "
                  f"{r['threshold']:.4g}{learnt}", file=sys.stderr, flush=True)
    ladder = None
    if threshold is None:  # what every cell started from: the table's, for this cluster
        threshold, derivation = table_threshold(policy, capacity, sla, arrival_size_evidence)
        ladder = derivation.get("by_growth")
    return {"policy": policy, "capacity": capacity, "sla": sla, "threshold": threshold,
            "ladder": ladder,
            "runs": runs, "seeds": [seed, seed + runs - 1], "years": years,
            "arrival_rate": rate, "steps": steps, "measure_from": measure_from,
            "arrival_size_evidence": arrival_size_evidence,
            "cells": {k: pooled(v, sla) for k, v in cells.items()}}


def plot(result: dict[str, Any], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cells = result["cells"]
    names = list(cells)
    x = np.arange(len(names))
    util = np.array([cells[k]["utilization"] for k in names])
    use = np.array([cells[k]["utilization_se"] for k in names])
    colors = ["tab:gray" if "paper" in k else "tab:blue" for k in names]
    labels = [k.replace(" ", "\n").replace("_", "\n") for k in names]  # "growth=2\nservice\ncautious"
    fig, (a, a2, b) = plt.subplots(1, 3, figsize=(16, 4.6))
    for ax, key, title in ((a, "", "whole life"),
                           (a2, "late_", f"from year {result['measure_from']:g}")):
        rate = np.array([cells[k][f"{key}failure_rate"] for k in names])
        lo = np.array([cells[k][f"{key}wilson95"][0] for k in names])
        hi = np.array([cells[k][f"{key}wilson95"][1] for k in names])
        ax.bar(x, rate, color=colors, yerr=[rate - lo, hi - rate], capsize=4)
        ax.axhline(result["sla"], color="tab:red", ls="--", label=f"SLA τ = {result['sla']:g}")
        ax.set_xticks(x, labels, fontsize=8)
        ax.set_ylabel("scale-out failure rate (pooled, 95% Wilson)")
        ax.set_title(title, fontsize=9)
        ax.legend()
    b.bar(x, util, color=colors, yerr=use, capsize=4)
    b.set_xticks(x, labels, fontsize=8)
    b.set_ylabel("utilisation (mean ± se over runs)")
    fig.suptitle(f"{result['policy']} at {result['capacity']} cores, threshold "
                 f"{result['threshold']:g} calibrated for τ with true priors; {result['runs']} "
                 f"runs × {result['years']:g} y per bar", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--policy", default="threshold")
    p.add_argument("--capacity", type=int, default=2000)
    p.add_argument("--sla", type=float, default=TABLE_SLA,
                   help="the τ declared (default 1e-4: the τ every threshold of the table is calibrated for)")
    p.add_argument("--threshold", type=float, default=None,
                   help="calibrated for --sla with the true priors (headroom calibrate moment); "
                        "default: the table's, as a cluster declared without one gets it (with "
                        "its by_growth ladder, which a given threshold has not)")
    p.add_argument("--runs", type=int, default=12)
    p.add_argument("--years", type=float, default=3.0)
    p.add_argument("--growth", type=float, default=2.0)
    p.add_argument("--steps", type=int, default=DEFAULT_STEPS)
    p.add_argument("--measure-from", type=float, default=0.0,
                   help="years after which failures are also reported apart (the loop learnt)")
    p.add_argument("--controllers", default=",".join(DEFAULT_CONTROLLERS),
                   help=f"comma list of {', '.join(CONTROLLERS)} (default: all but "
                        "service_cautious, service_no_cautious and service_move)")
    p.add_argument("--workers", type=int, default=1, help="local processes (-1: every core)")
    p.add_argument("--seed", type=int, default=0, help="first seed")
    p.add_argument("--skip-right-prior", action="store_true",
                   help="run only the --growth cells, not the growth-1 ones")
    p.add_argument("--arrival-size-evidence", action="store_true",
                   help="the engine counts each arrival's size as an observation of its σ")
    p.add_argument("--plot", help="PNG path")
    p.add_argument("--json", help="write the result here")
    a = p.parse_args(argv)
    unknown = set(a.controllers.split(",")) - set(CONTROLLERS)
    if unknown:
        p.error(f"unknown controllers: {', '.join(sorted(unknown))}")
    try:
        res = compare(a.policy, a.capacity, a.sla, a.threshold, a.runs, a.years, a.growth,
                      a.steps, measure_from=a.measure_from, progress=True,
                      controllers=tuple(a.controllers.split(",")), workers=a.workers,
                      seed=a.seed, right_prior=not a.skip_right_prior,
                      arrival_size_evidence=a.arrival_size_evidence)
    except ValueError as exc:  # a declaration the service would refuse (422 there)
        p.error(str(exc))
    for k, c in res["cells"].items():
        print(f"{k:<18} fail {c['failure_rate']:.2e} [{c['wilson95'][0]:.1e}, "
              f"{c['wilson95'][1]:.1e}] ({c['denied']}/{c['requests']}), confidence "
              f"{confidence_text(c['confidence_sla_holds'])}, util {c['utilization']:.3f} ± "
              f"{c['utilization_se']:.3f}; lives failing {c['lives_failing']}/{c['lives']}, "
              f"over τ on their own {c['lives_over_sla']}; from year {a.measure_from:g}: "
              f"{c['late_failure_rate']:.2e} ({c['late_denied']}/{c['late_requests']})"
              + _moved_text(c["moved"], c["moved_by_reason"]))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=2)
    if a.plot:
        plot(res, a.plot)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
