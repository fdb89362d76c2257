"""The threshold an SLA implies, as the service derives it and as a user can derive it ahead.

* ``service_engine`` builds the engine a cluster declared with (policy, capacity, τ[, threshold,
  derivation]) gets from the service: the same threshold (app/policies/moments/sla.py's table
  when none is given) and the same closed loop, so ``headroom simulate moment --sla τ`` shows
  what the service will do.
* ``derive`` calibrates the threshold for one cluster on the §2.1 model (calibrate.py's binary
  search, open loop, at the service's 5 × 600 grid) and returns a ``policy`` object that can be
  declared as is: ``{"kind", "threshold", "closed_loop", "derivation": {...}}``. The
  derivation's bounds let the loop tighten from it and loosen back to it, never beyond: the
  next looser candidate of the search broke τ.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.policies.moments import MomentEngine
from app.policies.moments.declare import checked_cautious_start
from app.policies.moments.formulas import DEFAULT_HORIZONS, DEFAULT_STEPS, Grid
from app.policies.moments.options import (
    TIGHTEST,
    MomentOptions,
    ladder_steps,
    loop_bounds,
)
from app.policies.moments.priors import Prior
from app.policies.moments.recipe import Recipe, default_arrival_rate
from app.policies.moments.sla import (
    declared_threshold,
    derived_threshold,
    default_cautious_growth,
    default_overflow_sd,
)
from app.sim.moments.calibrate import calibrate

def service_options(policy: str, capacity: int, sla: float, threshold: float | None = None,
                   derivation: dict[str, Any] | None = None, closed_loop: bool = True,
                   steps: int = DEFAULT_STEPS, learn: bool = True,
                   arrival_size_evidence: bool = False,
                   population_prior: dict[str, Any] | None = None,
                   ladder: bool = True, cautious_growth: float | None = None,
                   overflow_sd: float | None = None) -> tuple[MomentOptions, bool]:
    """(the options, whether the cautious start is a default): cautious_growth None is what a
    declaration naming none gets (sla.default_cautious_growth; service_engine turns it off
    where the empty cluster would refuse it, as the service does); overflow_sd None likewise
    (sla.default_overflow_sd)."""
    defaulted = cautious_growth is None
    measured = (policy, capacity, learn, threshold is not None, population_prior is not None,
                arrival_size_evidence)
    thr, der = declared_threshold(policy, capacity, sla, threshold, derivation,
                                  arrival_size_evidence, population_prior)
    options = MomentOptions(
        capacity, policy, thr, True, Grid(DEFAULT_HORIZONS, steps),
        population=Prior() if population_prior is None else Prior.from_dict(population_prior),
        loop=loop_bounds(closed_loop, sla, der, thr), learn=learn,
        arrival_size_evidence=arrival_size_evidence,
        ladder=ladder_steps(learn, der, thr) if ladder else None,
        overflow_sd=default_overflow_sd(*measured) if overflow_sd is None else overflow_sd,
        cautious_growth=default_cautious_growth(*measured) if defaulted else cautious_growth)
    return options, defaulted


def service_engine(*args: Any, **kwargs: Any) -> MomentEngine:
    """The engine of service_options(*args, **kwargs), as the service starts it."""
    options, defaulted = service_options(*args, **kwargs)
    return checked_cautious_start(options, fallback=defaulted)


def service_threshold(policy: str, capacity: int, sla: float, arrival_rate: float | None = None,
                      arrival_size_evidence: bool = False,
                      population_prior: dict[str, Any] | None = None,
                      recipe: Recipe = Recipe(), workers: int = 1,
                      scheduler: str | None = None,
                      progress: Callable[[str], None] | None = None
                      ) -> tuple[float | None, dict[str, Any]]:
    """(threshold, derivation) a cluster declared with these inputs and no threshold ends up
    deciding on: the table's where it holds this very declaration, else what the service's
    background calibration will find, calibrated here in the foreground by the same recipe
    (the same seeded lives, so the same threshold). None: no candidate met τ, and the
    service's cluster admits nothing."""
    threshold, derivation = derived_threshold(policy, capacity, sla, arrival_size_evidence,
                                              population_prior, arrival_rate, recipe)
    if derivation.get("status") != "calibrating":
        return threshold, derivation
    ref = derivation["calibration"]
    result = calibrate_inputs(ref["key"], ref["inputs"], workers, scheduler, progress)
    return result["threshold"], result["derivation"]


def calibrate_inputs(key: str, inputs: dict[str, Any], workers: int = 1,
                     scheduler: str | None = None,
                     progress: Callable[[str], None] | None = None,
                     memo: Callable[..., dict[str, Any]] | None = None,
                     on_life: Callable[[int, dict[str, Any]], None] | None = None
                     ) -> dict[str, Any]:
    """One calibration by its inputs (recipe.calibration_inputs) and their key, as the
    service's background job runs it: calibration_result of derive's search."""
    r = Recipe.from_dict(inputs["recipe"])
    out = derive(inputs["kind"], inputs["sla"], inputs["capacity"],
                 arrival_rate=inputs["arrival_rate"], years=r.years, runs=r.lives,
                 iterations=r.iterations, seed=r.seed, steps=r.steps, workers=workers,
                 scheduler=scheduler, progress=progress,
                 arrival_size_evidence=inputs["arrival_size_evidence"],
                 population_prior=inputs["population_prior"], memo=memo, on_life=on_life,
                 **held_out_args(r))
    return calibration_result(out, key, inputs)


def held_out_args(recipe: Recipe) -> dict[str, Any]:
    """calibrate's held-out validation arguments, as the recipe sets them."""
    return {"held_out": recipe.held_out_lives, "held_out_seed": recipe.held_out_seed,
            "target": recipe.confidence, "step_down": recipe.step_down,
            "step_downs": recipe.step_downs, "pilot": recipe.pilot,
            "held_out_quantiles": recipe.held_out_quantiles}


def calibration_result(out: dict[str, Any], key: str, inputs: dict[str, Any]) -> dict[str, Any]:
    """What the clusters waiting for a calibration are told (their threshold_calibrated
    event), from derive's output: the threshold (None when no candidate met τ) and its
    derivation."""
    declarable = out["policy"]
    derivation = {
        "source": "calibration", "status": "calibrated",
        "calibration": {"key": key, "inputs": inputs},
        "runs": out["runs"], "confidence": out["confidence"], "sla": out["sla"],
        "failure_rate": out["failure_rate"], "utilization": out["utilization"],
        "scale": out["scale"],
    }
    if out.get("validation"):
        derivation["validation"] = validation_summary(out["validation"])
    if declarable is not None:
        derivation["bounds"] = declarable["derivation"]["bounds"]
    return {"threshold": None if declarable is None else declarable["threshold"],
            "derivation": derivation}


def validation_summary(v: dict[str, Any]) -> dict[str, Any]:
    """What a derivation says of its held-out check: the lives and seeds, the confidence it
    needed, the search's own answer and each threshold tried on the held-out lives."""
    return {"lives": v["lives"], "seeds": v["seeds"], "target": v["target"], "met": v["met"],
            "search_threshold": v["search_threshold"],
            "importance_sampled": v.get("importance_sampling") is not None,
            "tried": [{k: step[k] for k in ("threshold", "failure_rate", "confidence")}
                      for step in v["steps"]]}


def derive(policy: str, sla: float, capacity: int, arrival_rate: float | None = None,
           years: float = 3.0, runs: int = 5, iterations: int = 8, seed: int = 1000,
           steps: int = DEFAULT_STEPS, workers: int = 1, observations: int = 0,
           progress: Callable[[str], None] | None = None, scheduler: str | None = None,
           importance: bool = False,
           between: tuple[float, float] | None = None,
           arrival_size_evidence: bool = False,
           population_prior: dict[str, Any] | None = None,
           memo: Callable[..., dict[str, Any]] | None = None,
           on_life: Callable[[int, dict[str, Any]], None] | None = None,
           held_out: int = 0, held_out_seed: int = 500000, target: float = 0.95,
           step_down: float = 0.5, step_downs: int = 4, pilot: int = 2000,
           held_out_quantiles: tuple[float, ...] | None = (0.5, 0.9, 0.99)) -> dict[str, Any]:
    """Calibrate, and say what the result can be declared as (``policy``: None when no
    candidate met τ, or, with held-out lives, none held τ on them — there is then nothing
    safe to declare). `memo`, `on_life`, `held_out` and the rest: as calibrate's."""
    rate = arrival_rate or default_arrival_rate(capacity)
    res = calibrate(policy, sla, capacity, years, rate, observations, runs, iterations, seed,
                    steps, progress=progress, workers=workers, scheduler=scheduler,
                    importance=importance, between=between,
                    arrival_size_evidence=arrival_size_evidence, population_prior=population_prior,
                    memo=memo, on_life=on_life, held_out=held_out, held_out_seed=held_out_seed,
                    target=target, step_down=step_down, step_downs=step_downs, pilot=pilot,
                    held_out_quantiles=held_out_quantiles)
    # Judged on the returned candidate, not the search trail: with `between`, a bracket whose
    # every halving failed falls back to its lower end, which may meet τ and is then the answer.
    validation = res["validation"]
    met = (res["failure_rate"] <= sla if validation is None else validation["met"]) \
        and res["threshold"] > 0
    derivation = {
        "source": "calibration", "bounds": [res["threshold"] * TIGHTEST, res["threshold"]],
        "runs": runs, "confidence": res["confidence"], "sla": sla,
        "failure_rate": res["failure_rate"], "utilization": res["utilization"],
        "scale": {**res["scale"], "seed": seed, "iterations": iterations,
                  **({} if between is None else {"between": list(between)})},
        **({} if validation is None else {"validation": validation_summary(validation)}),
    }
    declarable = {"kind": policy, "threshold": res["threshold"], "closed_loop": True,
                  **({"arrival_size_evidence": True} if arrival_size_evidence else {}),
                  **({"population_prior": population_prior} if population_prior is not None else {}),
                  "derivation": derivation} if met else None
    return {**res, "policy": declarable}
