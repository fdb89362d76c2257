"""Replay one life of a closed_loop cell and say why its scale-outs failed.

closed_loop reports a life's failures as one number. To see what caused them, this runs the
same life again (same policy, capacity, controller, growth and seed: the same decisions,
bit for bit) and writes one JSON line per scale-out that was denied or answered "migrate":
who asked and how large it is, how full the cluster was, its expected cores against
capacity (the cluster_overflow answer's line where overflow_sd is 0; overflow_line_share is
the line where it is not), its overflow bound (the quantity admission
compares with the threshold), the threshold then, and the deployments with
the largest expected peaks (the ones a move would free most from). Then the life's summary.

    python -m app.sim.moments.replay --policy second_moment --capacity 50000 --growth 2 \\
        --controller service_migrate --seed 56015 > 56015.jsonl
"""
from __future__ import annotations

import argparse
import heapq
import json
import sys
from collections.abc import Callable
from typing import Any

from app.policies.moments.engine import MomentEngine
from app.policies.moments.formulas import DEFAULT_STEPS
from app.policies.moments.sla import TABLE_SLA
from app.sim.moments.closed_loop import CONTROLLERS, cell_life
from app.sim.moments.derive import default_arrival_rate

SUMMARY = ("seed", "scaleout_failure_rate", "scaleout_requests", "utilization", "threshold",
           "admitted", "rejected", "moved", "moved_by_reason")


def largest(eng: MomentEngine, k: int) -> list[dict[str, Any]]:
    """The k live deployments with the largest expected peaks, largest first (ties: the
    larger id, as the engine's ranking breaks them): the first is the one a cluster_overflow
    answer names."""
    if eng.policy == "threshold":
        return []
    top = heapq.nlargest(k, ((peak, key) for key, peak in eng.expected_peaks().items()))
    return [{"deployment_id": key, "cores": eng.deployments[key].cores,
             "expected_peak_cores": peak} for peak, key in top]


def replay(policy: str, capacity: int, controller: str, seed: int, growth: float = 2.0,
           sla: float = TABLE_SLA, threshold: float | None = None, years: float = 3.0,
           steps: int = DEFAULT_STEPS, top: int = 5,
           on_row: Callable[[dict[str, Any]], None] | None = None,
           ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """(one row per scale-out denied or answered migrate, the life's result as closed_loop
    has it). `on_row(row)` is called as each row is made (the CLI prints it at once: a
    50,000-core life takes minutes)."""
    if controller not in CONTROLLERS:
        raise ValueError(f"unknown controller {controller!r}")
    rows: list[dict[str, Any]] = []

    def watch(eng: MomentEngine) -> None:
        asked = eng.scale_out

        def scale_out(deployment_id: str, cores: int, at: float) -> dict[str, Any]:
            answer = asked(deployment_id, cores, at)
            if answer["decision"] == "denied" or answer["migrate"] is not None:
                overflow = eng.outgrowing()
                bounds = eng.safety()["overflow_bound_per_horizon"]
                row = {
                    "at": at, "deployment_id": deployment_id, "asked": cores,
                    "decision": answer["decision"],
                    "migrate": None if answer["migrate"] is None else answer["migrate"]["reason"],
                    # After the request: a granted one already counts (cores, active_cores).
                    "cores": eng.deployments[deployment_id].cores,
                    "expected_peak_cores": eng.expected_peak(deployment_id),
                    "active_cores": answer["active_cores"], "capacity": eng.capacity,
                    "expected_cluster_share": None if overflow is None else overflow["expected_cluster_share"],
                    # Where the line is E + overflow_sd * sd (service_migrate_sd), that line.
                    "overflow_line_share": None if overflow is None else overflow.get("overflow_line_share"),
                    # The bound the admission rule compares with the threshold, for the
                    # cluster as it is (Cantelli's for the second moment; 1 where E ≥ c).
                    "overflow_bound": None if bounds is None else max(bounds.values()),
                    "threshold": eng.threshold,
                    "live": sum(1 for d in eng.deployments.values() if d.alive),
                    "largest": largest(eng, top),
                }
                rows.append(row)
                if on_row is not None:
                    on_row(row)
            return answer

        eng.scale_out = scale_out  # type: ignore[method-assign]

    job = (policy, capacity, sla, threshold, controller, seed, years, default_arrival_rate(capacity),
           growth, steps, 0.0, False)
    result = cell_life(job, watch)
    return rows, {k: result[k] for k in SUMMARY}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--policy", default="second_moment")
    p.add_argument("--capacity", type=int, required=True)
    p.add_argument("--controller", default="service", help=", ".join(CONTROLLERS))
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--growth", type=float, default=2.0)
    p.add_argument("--sla", type=float, default=TABLE_SLA)
    p.add_argument("--threshold", type=float, default=None)
    p.add_argument("--years", type=float, default=3.0)
    p.add_argument("--steps", type=int, default=DEFAULT_STEPS)
    p.add_argument("--top", type=int, default=5, help="largest deployments listed per row")
    a = p.parse_args(argv)

    def show(row: dict[str, Any]) -> None:
        print(json.dumps(row), flush=True)

    try:
        _, summary = replay(a.policy, a.capacity, a.controller, a.seed, a.growth, a.sla, a.threshold,
                            a.years, a.steps, a.top, on_row=show)
    except ValueError as exc:  # an unknown controller, or a declaration the service would refuse
        p.error(str(exc))
    print(json.dumps({"summary": summary}), flush=True)
    print(f"seed {summary['seed']}: {round(summary['scaleout_failure_rate'] * summary['scaleout_requests'])} "
          f"of {summary['scaleout_requests']} scale-outs failed, utilisation {summary['utilization']:.3f}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
