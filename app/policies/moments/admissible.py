"""What a moment cluster can admit as it stands: the largest deployment on the population
prior it would take now, and what it answers a typical one. Read-only: every figure comes
from dry-run admissions (``MomentEngine.admit(..., dry_run=True)``), which leave the engine
as it was, so an engine that refuses everything for a reason of its own (a threshold still
being calibrated, say) shows 0 and that reason without a case here.

A first deployment's size: in the §2.1 model (app/sim/moments/simulator.py, Life.arrive) an
arrival starts with C = 1 + Pois(σ) cores, σ drawn from the population prior, as a scale-out
is sized (priors.py). Its mean is 1 + E[σ]; the typical arrival here is that mean, rounded, on
the prior an arrival without a prior of its own gets now (the declared one, or the learnt one).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.policies.moments.engine import MomentEngine

# The bound each rule reports for a decision (policies.py) and the limit it is held to, in the
# bound's units: Cantelli's V / (V + (c − E)²) against ρ; Markov's E / c against t / c (the
# rule is E ≤ t); the zeroth moment's active / c against t / c (the rule is active < t).
RULE_BOUND = {"second_moment": ("Cantelli's bound", "exceeds", "ρ"),
              "first_moment": ("Markov's bound E/c", "exceeds", "t/c"),
              "threshold": ("active/c", "reaches", "t/c")}
# Reasons that are the rule's bound failing (the others, no_capacity or an engine's own,
# are said by their code).
BOUND_REASONS = frozenset({"overflow_bound_exceeded", "expected_cores_over_threshold",
                           "active_cores_over_threshold"})
# The probe's deployment id: outside the API's alphabet for ids ([!-~], app/ids.py), so no
# client's deployment has it; an engine driven directly could, hence the check in _probe_id.
PROBE = "admissibility probe"


def typical_arrival_cores(engine: MomentEngine) -> int:
    """1 + E[σ] under the population prior in use, rounded: the mean first size (module)."""
    shape, rate = engine.population_prior.sig
    return max(1, round(1 + shape / rate))


def _probe_id(engine: MomentEngine) -> str:
    name, n = PROBE, 0
    while name in engine.deployments:
        n += 1
        name = f"{PROBE} {n}"
    return name


def admissibility(engine: MomentEngine) -> dict[str, Any]:
    """The largest first deployment admissible now, a typical one's dry-run decision and the
    overflow bound its rule reports for it, and a line saying so (see the module)."""
    probe = _probe_id(engine)
    seen: dict[int, dict[str, Any]] = {}

    def decide(cores: int) -> dict[str, Any]:
        if cores not in seen:
            seen[cores] = engine.admit(probe, cores, engine.now, dry_run=True)
        return seen[cores]

    k = typical_arrival_cores(engine)
    with engine.dry_runs_at_once():
        typical = decide(k)
        largest = _largest(engine, decide, k, typical["decision"] == "admitted")
        smallest_reason = None if largest else decide(1)["reason"]
    details = typical["details"]
    out = {"largest_first_deployment": largest,
           "typical_first_deployment": {"cores": k, "decision": typical["decision"],
                                        "reason": typical["reason"],
                                        "overflow_bound": details["overflow_bound"]},
           "admits_typical": typical["decision"] == "admitted"}
    out["summary"] = _summary(engine, largest, k, typical, smallest_reason)
    return out


def _largest(engine: MomentEngine, decide: Callable[[int], dict[str, Any]], k: int,
             k_admitted: bool) -> int:
    """The most cores admitted, by bisection between an admitted size and a refused one.
    Admission is monotone in cores for these rules (more cores raise E and Var at every step,
    and the arrival's own E, so it is marginal nowhere it was not; tested, not assumed:
    tests/policies/moments/test_admissible.py). Beyond the free cores it is no_capacity, so
    the bracket starts at (k, free + 1) or (0, k): about log2(free) probes, 17 at 100,000."""
    free = engine.capacity - engine.active
    lo, hi = (k, free + 1) if k_admitted else (0, min(k, free + 1))
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if decide(mid)["decision"] == "admitted":
            lo = mid
        else:
            hi = mid
    return lo


def _summary(engine: MomentEngine, largest: int, k: int, typical: dict[str, Any],
             smallest_reason: str | None) -> str:
    if largest == 0:
        head = f"admits no first deployment now, not even of 1 core ({smallest_reason})"
    else:
        head = f"admits first deployments of up to {_cores(largest)}"
    size = f"a typical one ({_cores(k)})"
    bound, verb, limit = RULE_BOUND[engine.policy]
    details, reason = typical["details"], typical["reason"]
    value = f"{bound} {details['overflow_bound']:.3g}"
    if typical["decision"] == "admitted":
        how = " as marginal" if reason == "admitted_marginal" else ""
        return f"{head}; {size} is admitted{how}: {value}"
    if reason not in BOUND_REASONS:
        return f"{head}; {size} is rejected ({reason}): {value}"
    t = details["threshold"]
    share = t if engine.policy == "second_moment" else t / engine.capacity
    return f"{head}; {size} is rejected: {value} {verb} {limit} = {share:.3g}"


def _cores(n: int) -> str:
    return f"{n} core" if n == 1 else f"{n} cores"
