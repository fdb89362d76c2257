"""A new moment cluster's declaration as it is stored: every default a request leaves out
resolved once, at creation, so that a later change of the defaults or the calibration table
never changes an existing cluster's decisions; and the declarations that could never start
refused. (Stored declarations become engine options in options.from_declaration.)"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from app.policies.moments.engine import MomentEngine
from app.policies.moments.errors import MomentsError
from app.policies.moments.options import MomentOptions, admits_nothing_yet, from_declaration
from app.policies.moments.recipe import Recipe
from app.policies.moments.sla import (
    declared_threshold,
    derived_threshold,
    default_cautious_growth,
    default_overflow_sd,
)


class DeclarationError(ValueError):
    """A declaration that is well-formed but cannot stand; the message names the field."""


def declare(capacity: int, sla: float, policy: Mapping[str, Any],
            recipe: Recipe = Recipe()) -> dict[str, Any]:
    """The stored form of a request's `policy` (validated for shape and ranges): the
    threshold and derivation the declaration implies (derived_threshold: the table's where it
    has this very declaration, else a calibration by `recipe`, which the service runs in the
    background), or the declared ones, checked; the cautious start and the overflow line the
    cluster gets by default. Raises DeclarationError."""
    p = dict(policy)
    kind, learn = p["kind"], p["learn_prior"]
    measured = (kind, capacity, learn, p.get("threshold") is not None,
                p.get("population_prior") is not None, p["arrival_size_evidence"])
    defaulted = p.get("cautious_growth") is None
    if p.get("threshold") is None and p.get("derivation") is not None:
        raise DeclarationError("policy.derivation needs the policy.threshold it derived")
    try:
        p["threshold"], p["derivation"] = (
            declared_threshold(kind, capacity, sla, p["threshold"], p.get("derivation"),
                               p["arrival_size_evidence"], p.get("population_prior"))
            if p.get("threshold") is not None else
            derived_threshold(kind, capacity, sla, p["arrival_size_evidence"],
                              p.get("population_prior"), p.get("arrival_rate"), recipe))
    except ValueError as exc:
        raise DeclarationError(str(exc)) from exc
    calibrating = p["derivation"].get("status") == "calibrating"
    if defaulted:
        # The cautious start was measured with the table's thresholds; a calibration's lives
        # run the engine without one, so its threshold is for the engine without one.
        p["cautious_growth"] = 1.0 if calibrating else default_cautious_growth(*measured)
    elif p["cautious_growth"] > 1.0 and admits_nothing_yet(p["derivation"]):
        raise DeclarationError(
            "policy.cautious_growth needs a threshold to check the cautious start against, and "
            "this declaration's is still to be calibrated: declare the cluster without it, or "
            "with the policy `headroom calibrate moment` prints")
    if p.get("overflow_sd") is None:
        p["overflow_sd"] = default_overflow_sd(*measured)
    elif p["overflow_sd"] > 0 and kind != "second_moment":
        raise DeclarationError(
            "policy.overflow_sd above 0 needs kind second_moment: the other kinds keep no "
            "variances, so their line is the expected cores")
    if p["cautious_growth"] > 1.0 and not (learn and kind != "threshold"):
        raise DeclarationError(
            "policy.cautious_growth above 1 needs a cluster that learns its prior (learn_prior "
            "true, a first_moment or second_moment kind): without the learner nothing would "
            "ever end the cautious start")
    if p["cautious_growth"] > 1.0:
        options = from_declaration({"capacity_cores": capacity, "sla": sla, "policy": p})
        try:
            if not checked_cautious_start(options, fallback=defaulted).learner.cautious:
                p["cautious_growth"] = 1.0  # a default the empty cluster refused: off
        except MomentsError as exc:
            raise DeclarationError(f"policy.cautious_growth: {exc}") from exc
    return p


def checked_cautious_start(options: MomentOptions, fallback: bool) -> MomentEngine:
    """The engine of `options`, whose cautious start (if any) would admit at least a 1-core
    deployment into the empty cluster; one that would admit nothing, ever, is refused
    (MomentsError), or with `fallback` (a growth the declaration got by default, which is not
    the user's error) the engine starts without it. Only a new declaration is checked: a
    stored one passed when it was made and must build the same way ever after, whatever a
    later release's rounding makes of the check."""
    engine = MomentEngine(options)
    if engine.learner is None or engine.learner.cautious is None:
        return engine
    if engine.admits_the_smallest_arrival():
        return engine
    if fallback:
        return MomentEngine(replace(options, cautious_growth=1.0))
    raise MomentsError(
        "policy", f"believing λ × {options.cautious_growth:g}, this cluster would refuse even "
                  "a 1-core deployment while empty, so it would admit nothing and never learn "
                  "otherwise: declare a smaller cautious_growth, or none")

