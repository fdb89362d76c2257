"""Threshold calibration for the moment policies by simulation (§5.2).

The paper tunes t and ρ by binary search with 500 three-year runs per candidate plus
importance sampling (App. D). We do the same search at the scale asked for (the CLI's
defaults are a scaled-down cluster), with plain or importance-sampled runs (importance.py),
dispatched through joblib (runs.py), and say how confident the result is:

  confidence = min(bootstrap, binomial)
    bootstrap: fraction of run-level bootstrap resamples whose pooled failure rate ≤ τ
               (failures cluster in bad runs, so runs, not requests, are the unit);
    binomial:  Jeffreys Beta(F + ½, N − F + ½) posterior mass below τ for F denied of N
               requests, which stays below 1 when no failure was seen in too few requests.
  With importance sampling: the stratified, weighted bootstrap of importance.confidence_is.

The search's answer is the largest candidate whose own lives met τ, and so the one whose sample
flattered it most: failures come from a few bad lives, and a candidate just above the true
threshold passes whenever its sample happens to hold none. With `held_out` lives the answer is
run again on seeds the search never saw, and multiplied by `step_down` until those lives hold
τ at `target` confidence (held_out_check); the confidence stated is then theirs. The held-out
lives are importance-sampled over `held_out_quantiles` of the badness measure: a plain sample
of a few dozen lives rarely holds one of the rare lives that fail, and then states a
confidence near 1 for a threshold that fails τ.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import stats

from app.policies.moments.formulas import DEFAULT_STEPS
from app.sim.moments.importance import confidence_is, evaluate_is
from app.sim.moments.runs import life_progress, lives


def confidence(runs: list[dict[str, Any]], sla: float, seed: int = 0) -> float | None:
    """None where no run requested a scale-out: a candidate that admits nothing meets τ
    trivially, and there is no evidence to state a confidence on (0.0 would read as "fails")."""
    den = np.array([r["scaleout_failure_rate"] * r["scaleout_requests"] for r in runs])
    req = np.array([r["scaleout_requests"] for r in runs], dtype=float)
    if req.sum() == 0:
        return None
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(runs), (2000, len(runs)))
    pooled = den[idx].sum(1) / np.maximum(req[idx].sum(1), 1.0)
    boot = float(np.mean(pooled <= sla))
    f, n = den.sum(), req.sum()
    binom = float(stats.beta.cdf(sla, f + 0.5, n - f + 0.5))
    return min(boot, binom)


def evaluate(policy: str, threshold: float, runs: int, seed: int, workers: int = 1,
             scheduler: str | None = None,
             on_life: Callable[[int, dict[str, Any]], None] | None = None,
             **sim: Any) -> dict[str, Any]:
    """`on_life(seed, result)` is called as each life finishes, in seed order."""
    jobs = [(policy, threshold, seed + k, sim) for k in range(runs)]
    out = lives(jobs, workers, scheduler, on_life)
    den = sum(r["scaleout_failure_rate"] * r["scaleout_requests"] for r in out)
    req = sum(r["scaleout_requests"] for r in out)
    util = np.array([r["utilization"] for r in out])
    return {
        "threshold": threshold,
        "failure_rate": den / req if req else 0.0,
        "utilization": float(util.mean()),
        "utilization_se": float(util.std(ddof=1) / np.sqrt(len(util))) if len(util) > 1 else 0.0,
        "runs": out,
    }


def _evaluate(policy: str, thr: float, runs: int, seed: int, workers: int, scheduler: str | None,
              importance: bool | tuple[float, ...], pilot: int, sim: dict[str, Any],
              progress: Callable[[str], None] | None = None,
              memo: Callable[[float, Callable[[], dict[str, Any]]], dict[str, Any]] | None = None,
              on_life: Callable[[int, dict[str, Any]], None] | None = None) -> dict[str, Any]:
    if memo is not None:
        return memo(thr, lambda: _evaluate(policy, thr, runs, seed, workers, scheduler,
                                           importance, pilot, sim, progress, None, on_life))
    reports = [f for f in (life_progress(progress, policy, thr, runs), on_life) if f is not None]

    def on_life_all(seed: int, r: dict[str, Any]) -> None:
        for f in reports:
            f(seed, r)
    on_life = on_life_all if reports else None
    if importance:  # True: the badness buckets' default cuts; a tuple: these quantiles
        cuts = {} if importance is True else {"quantiles": importance}
        return evaluate_is(policy, thr, runs, seed, pilot=pilot, workers=workers, scheduler=scheduler,
                           on_life=on_life, **cuts, **sim)
    return evaluate(policy, thr, runs, seed, workers, scheduler, on_life=on_life, **sim)


def held_out_check(threshold: float, sla: float, evaluate: Callable[[float], dict[str, Any]],
                   conf: Callable[[dict[str, Any]], float | None], target: float,
                   step_down: float, step_downs: int,
                   progress: Callable[[str], None] | None = None
                   ) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the evaluation kept, the check's record): `threshold`, then `threshold` × step_down^k,
    each evaluated on the held-out lives, until one holds τ there with confidence ≥ target
    (no scale-out at all holds it trivially), at most `step_downs` steps down. `met` False:
    none did, and the last evaluation (the strictest) is what is kept."""
    trail: list[dict[str, Any]] = []
    thr = threshold
    for _ in range(step_downs + 1):
        res = evaluate(thr)
        c = conf(res)
        c = None if c is None else float(c)
        ok = bool(res["failure_rate"] <= sla and (c is None or c >= target))
        trail.append({"threshold": thr, "failure_rate": res["failure_rate"],
                      "utilization": res["utilization"], "confidence": c, "meets_sla": ok})
        if progress:
            shown = "n/a" if c is None else f"{c:.3f}"
            progress(f"held-out lives: threshold={thr:.5g} failure_rate={res['failure_rate']:.3g} "
                     f"confidence={shown} (needs {target:g}): {'holds' if ok else 'steps down'}")
        if ok:
            return res, {"met": True, "steps": trail}
        thr *= step_down
    return res, {"met": False, "steps": trail}


def calibrate(
    policy: str,
    sla: float,
    capacity: int,
    years: float,
    arrival_rate: float,
    observations: int = 0,
    runs: int = 5,
    iterations: int = 8,
    seed: int = 0,
    steps: int = DEFAULT_STEPS,
    progress: Callable[[str], None] | None = None,
    workers: int = 1,
    scheduler: str | None = None,
    importance: bool = False,
    pilot: int = 2000,
    between: tuple[float, float] | None = None,
    arrival_size_evidence: bool = False,
    population_prior: dict[str, Any] | None = None,
    memo: Callable[[float, Callable[[], dict[str, Any]]], dict[str, Any]] | None = None,
    on_life: Callable[[int, dict[str, Any]], None] | None = None,
    held_out: int = 0,
    held_out_seed: int = 500000,
    target: float = 0.95,
    step_down: float = 0.5,
    step_downs: int = 4,
    held_out_quantiles: tuple[float, ...] | None = (0.5, 0.9, 0.99),
) -> dict[str, Any]:
    """Largest threshold whose pooled failure rate over `runs` seeded runs is ≤ sla.

    t (cores) is searched in [0, 1.5c] for threshold/first_moment; ρ in log space on
    [1e-4, 1] for second_moment. The same seeds are used for every candidate (common random
    numbers), so the comparison between candidates is not blurred by different workloads.
    `between` (lo, hi) narrows the search to a bracket known from calibrations at nearby
    capacities: each halving then buys resolution where the answer is instead of spending
    the first ones on candidates that fail by a factor of ten, at a life's full cost each.
    The bracket's ends are assumptions, not results: lo is evaluated only if nothing above
    it met τ. `arrival_size_evidence`: the engine counts arrivals' sizes as σ evidence
    (its thresholds are not the plain engine's: the table keeps them apart).
    `population_prior`: deployments are drawn from it and the engine believes it (a cluster
    that declares its own prior; Table 1 otherwise).
    `memo(threshold, evaluate)`: returns a candidate's evaluation, calling `evaluate` only
    for one it has not kept (the service's background job keeps them in the database, so a
    calibration restarted elsewhere resumes: the search is deterministic, and so revisits the
    same candidates; held-out evaluations are kept under "held-out <threshold>").
    `on_life(seed, result)`: after each simulated life. `held_out` > 0: held_out_check's
    validation of the answer on that many lives from `held_out_seed`, at `target`,
    importance-sampled over the badness buckets cut at `held_out_quantiles` of `pilot`
    seeds (None: plain lives); the result's threshold, failure rate, utilisation and
    confidence are then the held-out ones, and `validation` says what was tried.
    """
    sim = dict(capacity=capacity, years=years, arrival_rate=arrival_rate, observations=observations, steps=steps)
    if arrival_size_evidence:  # only then: the scale of every calibration before it stays as it was
        sim["arrival_size_evidence"] = True
    if population_prior is not None:  # likewise
        sim["population_prior"] = population_prior
    log_space = policy == "second_moment"
    if between is None:
        lo, hi = (np.log(1e-4), 0.0) if log_space else (0.0, 1.5 * capacity)
    else:
        if not 0 < between[0] < between[1]:
            raise ValueError("between needs 0 < lo < hi")
        lo, hi = (float(np.log(between[0])), float(np.log(between[1]))) if log_space else between
    best: dict[str, Any] | None = None
    trail = []
    for _ in range(iterations):
        mid = (lo + hi) / 2
        thr = float(np.exp(mid)) if log_space else mid
        res = _evaluate(policy, thr, runs, seed, workers, scheduler, importance, pilot, sim, progress,
                        memo, on_life)
        ok = res["failure_rate"] <= sla
        trail.append({"threshold": thr, "failure_rate": res["failure_rate"], "utilization": res["utilization"], "meets_sla": ok})
        if progress:
            progress(f"{policy} threshold={thr:.5g} failure_rate={res['failure_rate']:.3g} util={res['utilization']:.3f}")
        if ok:
            lo, best = mid, res
        else:
            hi = mid
    if best is None:
        thr = float(np.exp(lo)) if log_space else lo
        best = _evaluate(policy, thr, runs, seed, workers, scheduler, importance, pilot, sim,
                         progress, memo, on_life)
        if progress:
            progress(f"{policy} threshold={thr:.5g} (no candidate above met τ) "
                     f"failure_rate={best['failure_rate']:.3g} util={best['utilization']:.3f}")
    def conf(res: dict[str, Any], sampled: Any, at: int) -> float | None:
        return confidence_is(res, sla, at) if sampled else confidence(res["runs"], sla, at)

    validation = None
    if held_out > 0 and best["failure_rate"] <= sla and best["threshold"] > 0:
        held_memo = None if memo is None else (lambda t, ev: memo(f"held-out {t!r}", ev))
        sampled = held_out_quantiles is not None

        def held(thr: float) -> dict[str, Any]:
            return _evaluate(policy, thr, held_out, held_out_seed, workers, scheduler,
                             tuple(held_out_quantiles) if sampled else False,
                             pilot, sim, progress, held_memo, on_life)
        best, validation = held_out_check(best["threshold"], sla, held,
                                          lambda r: conf(r, sampled, held_out_seed), target,
                                          step_down, step_downs, progress)
        stated = validation["steps"][-1]["confidence"]
        seeds = [r.get("seed", held_out_seed) for r in best["runs"]] or [held_out_seed]
        validation.update(lives=held_out, seeds=[min(seeds), max(seeds)], target=target,
                          search_threshold=validation["steps"][0]["threshold"],
                          importance_sampling=best.get("buckets") if sampled else None)
    else:
        stated = conf(best, importance, seed)
    return {
        "policy": policy,
        "sla": sla,
        "threshold": best["threshold"],
        "failure_rate": best["failure_rate"],
        "utilization": best["utilization"],
        "utilization_se": best["utilization_se"],
        "confidence": stated,
        "importance_sampling": best.get("buckets") if importance else None,
        "runs": runs,
        "search": trail,
        "validation": validation,
        "between": None if between is None else list(between),
        "scale": sim,
    }
