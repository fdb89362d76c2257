"""What a moment engine is told at construction, as one frozen value: its cluster, its rule,
its beliefs and the controllers around the rule. ``from_declaration`` is the one place a
stored declaration becomes options, and so the one place a declaration from before an option
gets the value its logged decisions were made with."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from app.policies.moments import errors
from app.policies.moments.formulas import Grid
from app.policies.moments.policies import POLICIES
from app.policies.moments.priors import POPULATION_DELTA, POPULATION_NU, Prior

# Table 2's thresholds (the paper's 20,000-core calibration) where nothing else is given:
# t / capacity for the zeroth and first moment, ρ for the second.
DEFAULT_THRESHOLDS = {"threshold": 8864 / 20000, "first_moment": 14223 / 20000,
                      "second_moment": 0.112}
# How far below the derived threshold the closed loop may tighten when the declaration gives
# no bounds: a floor keeps a cluster that met a bad burst from ratcheting to "admit nothing".
TIGHTEST = 1 / 100


@dataclass(frozen=True)
class LoopBounds:
    """The closed loop's target failure rate and the thresholds it may move between."""

    sla: float
    lo: float
    hi: float


@dataclass(frozen=True)
class MomentOptions:
    """``threshold``: t in cores for threshold and first_moment, ρ for second_moment (None:
    Table 2's, scaled to the capacity). ``loop``: None keeps the threshold fixed (the paper).
    ``ladder``: (λ factor, threshold) steps, factor 1 first, for a cluster that learns its
    prior. ``cautious_growth`` above 1 starts a learning cluster believing λ × that.
    ``gate``: a reason every deployment is rejected for, whatever the rule says (None: the
    rule decides): ``threshold_calibrating`` while a new declaration's threshold is being
    calibrated with nothing safe to stand in, ``no_threshold_meets_sla`` once its calibration
    found none."""

    capacity: int
    policy: str = "second_moment"
    threshold: float | None = None
    marginal: bool = True
    grid: Grid = field(default_factory=Grid)
    population: Prior = field(default_factory=Prior)
    delta: float = POPULATION_DELTA
    nu: float = POPULATION_NU
    refresh_per_admit: int = 4
    loop: LoopBounds | None = None
    learn: bool = False
    arrival_size_evidence: bool = False
    ladder: tuple[tuple[float, float], ...] | None = None
    overflow_sd: float = 0.0
    cautious_growth: float = 1.0
    gate: str | None = None

    def __post_init__(self) -> None:
        if self.policy not in POLICIES:
            raise errors.MomentsError(
                "policy", f"unknown policy {self.policy!r}; known: {', '.join(POLICIES)}")
        if self.capacity <= 0:
            raise errors.MomentsError("capacity", "capacity must be positive")
        object.__setattr__(self, "capacity", int(self.capacity))
        object.__setattr__(self, "threshold", float(
            default_threshold(self.policy, self.capacity) if self.threshold is None
            else self.threshold))
        object.__setattr__(self, "overflow_sd", float(self.overflow_sd))

    @property
    def learns(self) -> bool:
        """The zeroth-moment rule has no model for a learnt prior to correct."""
        return self.learn and self.policy != "threshold"


def default_threshold(policy: str, capacity: int) -> float:
    unit = DEFAULT_THRESHOLDS[policy]
    return unit if policy == "second_moment" else unit * capacity


def loop_bounds(closed_loop: bool, sla: float | None, derivation: Mapping[str, Any] | None,
                threshold: float) -> LoopBounds | None:
    """The closed loop a declaration asks for: within its derivation's bounds, or from
    TIGHTEST × its threshold up to the threshold where it states none."""
    if not closed_loop or sla is None:
        return None
    bounds = (derivation or {}).get("bounds") or [threshold * TIGHTEST, threshold]
    return LoopBounds(sla, float(bounds[0]), float(bounds[1]))


def ladder_steps(learn_prior: bool, derivation: Mapping[str, Any] | None, threshold: float
                 ) -> tuple[tuple[float, float], ...] | None:
    """The growth ladder of a cluster that learns its prior: its derivation's `by_growth`
    steps above the declared threshold's step 1."""
    steps = (derivation or {}).get("by_growth")
    if not steps or not learn_prior:
        return None
    return ((1.0, threshold),) + tuple((float(s["lambda_factor"]), float(s["threshold"]))
                                       for s in steps)


def from_declaration(spec: Mapping[str, Any]) -> MomentOptions:
    """The options of a stored declaration (``capacity_cores``, ``sla``, ``policy``). A key
    the declaration lacks was declared before its option existed, and takes the value the
    engine had then, so that its logged decisions replay as they were made:

    * no threshold: Table 2's; no marginal: on; no sla: no closed loop;
    * no closed_loop: a fixed threshold; no learn_prior: the fixed Table 1 prior;
    * no derivation or no ``by_growth`` in it: no growth ladder;
    * no arrival_size_evidence: arrivals are no evidence; no overflow_sd: E's line (0);
    * no cautious_growth (or null): no cautious start (1);
    * no population_prior: Table 1's;
    * a derivation whose status is ``calibrating`` with nothing to stand in (``interim``
      ``admit_nothing``): every deployment is rejected until the calibration's event lands.
    """
    policy = spec["policy"]
    kind, capacity = policy["kind"], spec["capacity_cores"]
    given = policy.get("threshold")
    threshold = float(default_threshold(kind, capacity) if given is None else given)
    derivation = policy.get("derivation")
    learn = policy.get("learn_prior", False)
    prior = policy.get("population_prior")
    return MomentOptions(
        capacity=capacity, policy=kind, threshold=threshold,
        marginal=policy.get("marginal", True),
        population=Prior() if prior is None else Prior.from_dict(prior),
        loop=loop_bounds(policy.get("closed_loop", False), spec.get("sla"), derivation,
                         threshold),
        learn=learn,
        arrival_size_evidence=policy.get("arrival_size_evidence", False),
        ladder=ladder_steps(learn, derivation, threshold),
        overflow_sd=policy.get("overflow_sd", 0.0),
        cautious_growth=policy.get("cautious_growth") or 1.0,
        gate=(GATE_CALIBRATING if admits_nothing_yet(derivation)
              else GATE_NONE_MEETS if none_meets(given, derivation) else None))


GATE_CALIBRATING = "threshold_calibrating"
GATE_NONE_MEETS = "no_threshold_meets_sla"


def none_meets(threshold: float | None, derivation: Mapping[str, Any] | None) -> bool:
    """A calibration of this declaration that found no threshold meeting τ."""
    d = derivation or {}
    return threshold is None and d.get("status") == "calibrated" and d.get("source") == "calibration"


def admits_nothing_yet(derivation: Mapping[str, Any] | None) -> bool:
    """A declaration still being calibrated with no finished calibration to stand in."""
    d = derivation or {}
    return d.get("status") == "calibrating" and d.get("interim") == "admit_nothing"
