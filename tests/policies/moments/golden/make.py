"""Writes declarations.json: moment clusters declared every way the API and old stored
declarations allow, each driven through a seeded event sequence, with every answer and the
view at the end (test_golden.py replays them).

    .venv/bin/python -m tests.policies.moments.golden.make

Run it only to pin a deliberate change of decisions: the file is what the engine must keep
answering, so regenerating it after an accidental change hides that change.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

from app.api.schemas.moments import MomentClusterCreate
from app.families.moments import declare
from app.policies.errors import PolicyError
from app.policies.moments.family import MomentAdapter

PATH = Path(__file__).with_name("declarations.json")
CUSTOM_PRIOR = {"lambda": [2.0, 40.0], "mu": [2.0, 200.0], "sigma": [2.0, 2.0]}
LADDER = {"source": "declared", "bounds": [0.0005, 0.2],
          "by_growth": [{"lambda_factor": 1.5, "threshold": 0.12},
                        {"lambda_factor": 2.0, "threshold": 0.15}]}

# (case name, request body for POST /v1/clusters): the service resolves every default.
REQUESTS: list[tuple[str, dict[str, Any]]] = [
    ("threshold_2000", {"capacity_cores": 2000, "policy": {"kind": "threshold"}}),
    ("first_2000", {"capacity_cores": 2000, "policy": {"kind": "first_moment"}}),
    ("second_2000", {"capacity_cores": 2000, "policy": {"kind": "second_moment"}}),
    ("second_5000_cautious_default", {"capacity_cores": 5000,
                                      "policy": {"kind": "second_moment"}}),
    ("second_3000_cautious_refused_default", {"capacity_cores": 3000,
                                              "policy": {"kind": "second_moment"}}),
    ("first_500_cautious_1_5", {"capacity_cores": 500,
                                "policy": {"kind": "first_moment", "cautious_growth": 1.5}}),
    ("second_7000_between_anchors", {"capacity_cores": 7000, "sla": 0.001,
                                     "policy": {"kind": "second_moment"}}),
    ("second_no_learner", {"capacity_cores": 2000,
                           "policy": {"kind": "second_moment", "learn_prior": False}}),
    ("second_no_loop_not_marginal", {"capacity_cores": 2000, "policy": {
        "kind": "second_moment", "closed_loop": False, "marginal": False}}),
    ("first_sized_2000", {"capacity_cores": 2000, "policy": {
        "kind": "first_moment", "arrival_size_evidence": True}}),
    ("second_overflow_1", {"capacity_cores": 1000, "policy": {
        "kind": "second_moment", "overflow_sd": 1.0}}),
    ("second_population_prior", {"capacity_cores": 2000, "sla": 0.01, "policy": {
        "kind": "second_moment", "threshold": 0.1, "population_prior": CUSTOM_PRIOR}}),
    ("second_declared_ladder", {"capacity_cores": 2000, "sla": 0.01, "policy": {
        "kind": "second_moment", "threshold": 0.1, "derivation": LADDER}}),
    ("second_loop_moves", {"capacity_cores": 120, "sla": 0.05, "policy": {
        "kind": "second_moment", "threshold": 0.5}}),
    ("first_loop_moves", {"capacity_cores": 120, "sla": 0.05, "policy": {
        "kind": "first_moment", "threshold": 110.0, "marginal": False}}),
    ("threshold_loop_moves", {"capacity_cores": 60, "sla": 0.3, "policy": {
        "kind": "threshold", "threshold": 60.0}}),
    ("second_loop_loosens", {"capacity_cores": 5000, "sla": 0.2, "policy": {
        "kind": "second_moment", "threshold": 0.01,
        "derivation": {"source": "declared", "bounds": [0.001, 0.5]}}}),
    ("first_declared_threshold_loose_sla", {"capacity_cores": 800, "sla": 0.02, "policy": {
        "kind": "first_moment", "threshold": 400.0}}),
]

# Stored declarations from before an option: the keys they lack take the value the engine
# had before that option existed.
OLD_SPECS: list[tuple[str, dict[str, Any]]] = [
    ("old_bare_second", {"capacity_cores": 2000, "policy": {"kind": "second_moment"}}),
    ("old_bare_first_threshold", {"capacity_cores": 1500, "sla": 0.001, "policy": {
        "kind": "first_moment", "threshold": 300.0}}),
    ("old_bare_threshold", {"capacity_cores": 1000, "policy": {"kind": "threshold"}}),
    ("old_loop_no_learner_key", {"capacity_cores": 2000, "sla": 0.01, "policy": {
        "kind": "second_moment", "threshold": 0.08, "closed_loop": True,
        "derivation": {"source": "declared", "bounds": [0.0008, 0.1]}}}),
    ("old_learner_no_ladder", {"capacity_cores": 2000, "sla": 0.01, "policy": {
        "kind": "second_moment", "threshold": 0.1, "closed_loop": True, "learn_prior": True,
        "marginal": True}}),
    ("old_learner_ladder_no_cautious", {"capacity_cores": 2000, "sla": 0.01, "policy": {
        "kind": "second_moment", "threshold": 0.1, "closed_loop": True, "learn_prior": True,
        "derivation": LADDER}}),
    ("old_no_overflow_key", {"capacity_cores": 1000, "sla": 0.0001, "policy": {
        "kind": "second_moment", "threshold": 0.2, "closed_loop": True, "learn_prior": True,
        "cautious_growth": 1.0, "arrival_size_evidence": False}}),
    ("old_no_sla", {"capacity_cores": 2000, "policy": {
        "kind": "first_moment", "threshold": 900.0, "closed_loop": True,
        "learn_prior": True}}),
]


# Declarations as an earlier release stored them for requests it answered otherwise (before
# declarations outside the table were calibrated for themselves: the table's interpolation),
# with the seed they were driven with then.
STORED = json.loads(PATH.with_name("stored_specs.json").read_text())


def calibration_event(family: MomentAdapter) -> dict[str, Any]:
    """What the service logs when a calibration lands on a cluster that admitted nothing."""
    capacity, kind = family.engine.capacity, family.engine.policy
    threshold = 0.2 if kind == "second_moment" else 0.6 * capacity
    return {"kind": "threshold_calibrated", "threshold": threshold,
            "derivation": {"source": "calibration", "status": "calibrated", "runs": 32,
                           "confidence": 0.99, "bounds": [threshold / 100, threshold]}}


def drive(family: MomentAdapter, seed: int, n: int = 350
          ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(events, answers): arrivals, scale-outs, scale-ins and shutdowns drawn against what
    the cluster admitted, some refused (dead or unknown ids, bad cores), deployments growing
    faster than Table 1's prior says so that a learner and the closed loop have something to
    answer, over about six weeks of event time."""
    rng = random.Random(seed)
    capacity = family.engine.capacity
    at, alive, dead, evs, answers = 0.0, [], [], [], []
    calibrating = family.engine.gate is not None
    for i in range(n):
        at += rng.expovariate(1 / 3.0)
        roll = rng.random()
        if calibrating and i == n // 4:
            event = calibration_event(family)
        elif not alive or roll < 0.3:
            event = {"kind": "deployment", "deployment_id": f"d{i}", "at": at,
                     "cores": max(1, int(rng.expovariate(1 / max(2.0, capacity / 300))))}
            if rng.random() < 0.15:
                event["category"] = rng.choice(["web", "batch"])
            if rng.random() < 0.05:
                event["prior"] = {"gamma": {"lambda": [3.0, 30.0], "mu": [2.0, 100.0],
                                            "sigma": [1.0, 1.0]}}
        elif roll < 0.78:
            event = {"kind": "scale_out", "deployment_id": rng.choice(alive), "at": at,
                     "cores": 1 + int(rng.expovariate(1 / max(3.0, capacity / 100)))}
        elif roll < 0.9:
            event = {"kind": "scale_in", "deployment_id": rng.choice(alive), "at": at,
                     "cores": 1 + int(rng.expovariate(1.0))}
        elif roll < 0.97:
            event = {"kind": "shutdown", "deployment_id": rng.choice(alive), "at": at}
        else:
            event = {"kind": rng.choice(["scale_out", "scale_in"]), "at": at, "cores": 1,
                     "deployment_id": rng.choice(dead) if dead else "nobody"}
        answer = apply(family, event)
        if answer.get("decision") == "admitted":
            alive.append(event["deployment_id"])
        elif answer.get("alive") is False:
            alive.remove(event["deployment_id"])
            dead.append(event["deployment_id"])
        evs.append(event)
        answers.append(answer)
    return evs, answers


def apply(family: MomentAdapter, event: dict[str, Any]) -> dict[str, Any]:
    """The answer to one event, or the refusal's code and field."""
    try:
        return family.apply(event).to_dict()
    except PolicyError as exc:
        return {"refused": exc.code, "field": exc.field, "detail": exc.detail}


def close(a: Any, b: Any, rel: float = 1e-9) -> bool:
    """Equal, floats within ``rel`` of each other: numpy and the compiled kernel take other
    SIMD paths on other CPUs (AVX-512 or not), which moves a sum's last bits, never a
    decision's word or a count."""
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, (int, float)) and isinstance(b, (int, float)) and \
            math.isclose(a, b, rel_tol=rel, abs_tol=1e-12)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(close(a[k], b[k], rel) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(close(x, y, rel) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def run(spec: dict[str, Any], seed: int) -> dict[str, Any]:
    evs, _ = drive(MomentAdapter.build(spec), seed)
    family = MomentAdapter.build(spec)
    answers = [apply(family, event) for event in evs]
    return {"events": evs, "answers": answers, "mid": len(evs) // 2, "view": family.describe()}


def cases() -> list[dict[str, Any]]:
    out = []
    for seed, (name, body) in enumerate(REQUESTS):
        spec = declare(MomentClusterCreate(name=name, **body))
        out.append({"name": name, "request": {"name": name, **body}, "spec": spec,
                    "seed": seed})
    for seed, (name, spec) in enumerate(OLD_SPECS, start=len(REQUESTS)):
        out.append({"name": name, "request": None, "spec": {"name": name, **spec},
                    "seed": seed})
    for name, stored in sorted(STORED.items()):  # driven as they were when new
        out.append({"name": name, "request": None, **stored})
    for case in out:
        case.update(run(case["spec"], case["seed"]))
    return out


if __name__ == "__main__":
    PATH.write_text(json.dumps({"cases": cases()}, indent=None, separators=(",", ":")) + "\n")
    print(PATH, PATH.stat().st_size)
