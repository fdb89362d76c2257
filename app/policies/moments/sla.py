"""The threshold a declared SLA τ implies, and the closed loop that keeps τ on live traffic.

Two halves, both pure (no clock, no randomness), so that a cluster rebuilt from its log makes
the same decisions:

* ``derived_threshold``: a new declaration's threshold: the table's (calibrations.py, each
  anchor with the lives behind it and the command that reproduces them) where it holds this
  very declaration, else a calibration by the service's recipe, which the service runs in
  the background (app/service/calibrator.py) and which decides from its logged event on;
  the derivation names the interim until then. ``table_threshold`` reads the table at any
  capacity, as the research tools and declarations stored before the recipe did.
* ``SlaLoop``: the controller that moves the threshold while the cluster runs (beyond the
  paper, which calibrates offline only). It watches every scale-out the engine grants or
  denies and tightens or loosens the threshold on a Wilson interval of the realized failure
  rate, within the bounds the derivation allows.

Units. ``threshold`` and ``first_moment`` take t in cores, ``second_moment`` the Cantelli
bound ρ. What transfers between capacities is t / c (the share of the cores the rule may
commit) and ρ itself, so the table holds those. Neither is scale-free, and for the moment
rules neither is monotone in c (their values fall from 500 to 2,000 cores and then rise),
which is why a capacity between two anchors gets the tighter anchor's value and may
loosen only up to the looser one's: safe as long as the calibrated value has no dip between
two anchors.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from dataclasses import asdict, dataclass
from typing import Any

from app.policies.moments.calibrations import (
    CALIBRATED,
    CALIBRATED_GROWTH,
    CALIBRATED_SIZED,
    CAUTIOUS_BY_DEFAULT,
    OVERFLOW_SD_BY_DEFAULT,
    TABLE_SLA,
    Anchor,
)
from app.policies.moments.formulas import DEFAULT_STEPS
from app.policies.moments.learning import CAUTIOUS_GROWTH
from app.policies.moments.options import TIGHTEST
from app.policies.moments.priors import Prior
from app.policies.moments.recipe import (
    Recipe,
    calibration_inputs,
    calibration_key,
    default_arrival_rate,
)


def _as_measured(learn_prior: bool, threshold_given: bool, population_prior_given: bool,
                 arrival_size_evidence: bool) -> bool:
    """A declaration like the simulated ones the per-capacity defaults were measured on: the
    learner on, the table's threshold, Table 1's priors, arrivals not counted as evidence."""
    return learn_prior and not (threshold_given or population_prior_given or arrival_size_evidence)


def default_cautious_growth(kind: str, capacity: int, learn_prior: bool, threshold_given: bool,
                            population_prior_given: bool, arrival_size_evidence: bool) -> float:
    """The cautious_growth a declaration that names none gets: CAUTIOUS_GROWTH where
    CAUTIOUS_BY_DEFAULT measured it, else 1 (off)."""
    span = CAUTIOUS_BY_DEFAULT.get(kind)
    if (span is None or not _as_measured(learn_prior, threshold_given, population_prior_given,
                                         arrival_size_evidence)
            or not span[0] <= capacity <= span[1]):
        return 1.0
    return CAUTIOUS_GROWTH


def default_overflow_sd(kind: str, capacity: int, learn_prior: bool, threshold_given: bool,
                        population_prior_given: bool, arrival_size_evidence: bool) -> float:
    """The overflow_sd a declaration that names none gets: OVERFLOW_SD_BY_DEFAULT's line where
    it was measured, else 0 (E's line, as before the option)."""
    span = OVERFLOW_SD_BY_DEFAULT.get(kind)
    if (span is None or not _as_measured(learn_prior, threshold_given, population_prior_given,
                                         arrival_size_evidence)
            or capacity < span[0]):
        return 0.0
    return span[1]


# Wilson interval of the realized failure rate at 95%.
Z = 1.96
# When the failure rate is above τ with confidence the threshold is multiplied by τ / (the
# interval's lower bound): a proportional answer, the harder the surer and the further above
# τ, kept within [TIGHTEN_MAX, TIGHTEN_MIN] so that one window moves it by 10% to 50%.
TIGHTEN_MIN, TIGHTEN_MAX = 0.9, 0.5
LOOSEN = 1.1  # threshold × 1.1 when it is below τ / FAR with confidence
FAR = 2.0


def _unit_to_threshold(policy: str, value: float, capacity: int) -> float:
    return value if policy == "second_moment" else value * capacity


def _near(anchors: tuple[Anchor, ...], capacity: int, extrapolate: bool) -> list[Anchor]:
    """The anchor at `capacity`, else the two around it, else (if `extrapolate`) the nearest."""
    caps = [a[0] for a in anchors]
    i = bisect_left(caps, capacity)
    if i < len(caps) and caps[i] == capacity:
        return [anchors[i]]
    if 0 < i < len(caps):
        return [anchors[i - 1], anchors[i]]
    return [anchors[min(i, len(caps) - 1)]] if extrapolate and anchors else []


def _anchor_view(a: Anchor) -> dict[str, Any]:
    return {"capacity": a[0], "value": a[1], "runs": a[2], "confidence": a[3], "failure_rate": a[4]}


def _same_prior(a: dict[str, Any] | None, b: dict[str, Any] | None) -> bool:
    """Two population priors ({"lambda", "mu", "sigma"}: [shape, rate]; None is Table 1's)."""
    def norm(p: Any) -> dict[str, list[float]] | None:
        if p is None:
            return Prior().to_dict()
        try:  # a derivation's scale is the client's to write: anything malformed differs
            return {k: [float(x) for x in p[k]] for k in ("lambda", "mu", "sigma")}
        except (KeyError, TypeError, ValueError):
            return None
    na, nb = norm(a), norm(b)
    return na is not None and na == nb


def table_threshold(policy: str, capacity: int, sla: float,
                    arrival_size_evidence: bool = False,
                    population_prior: dict[str, Any] | None = None) -> tuple[float, dict[str, Any]]:
    """(threshold, derivation) for a declaration that gave none.

    Between two calibrated capacities the tighter anchor's value is used and the looser one
    bounds how far the loop may loosen; outside them the nearest anchor is used for both, with
    no confidence (none was measured there), except where arrival_size_evidence has no anchor
    at or below the capacity (ValueError). An
    SLA looser than the table's (τ > 1e-4) gets the table's threshold (conservative); a
    stricter one has no calibration behind it (``confidence`` is null) and relies on the loop.
    A declared population prior other than Table 1's has no table (ValueError): every anchor
    was calibrated on deployments drawn from Table 1, and a t or ρ calibrated for one prior
    does not carry over to another (docs/moments.md measured λ × 2 at 2,000 cores).
    """
    if not _same_prior(population_prior, None):
        raise ValueError(
            "no calibrated threshold for a population_prior other than Table 1's (the table's "
            "calibrations drew every deployment from Table 1): give the threshold of `headroom "
            "calibrate moment --population-prior ...` for this capacity and prior")
    # An engine that counts arrivals' sizes as σ evidence admits differently at the same t or
    # ρ, so it has anchors of its own; the zeroth-moment rule has no belief to inform.
    sized = arrival_size_evidence and policy != "threshold"
    anchors = (CALIBRATED_SIZED if sized else CALIBRATED)[policy]
    caps = [a[0] for a in anchors]
    if sized and (not caps or capacity < caps[0]):
        # Counting arrivals' sizes admits small newcomers more freely, and the rare small one
        # that grows wild fills the cluster: no second-moment ρ held τ on fresh seeds, and no
        # first-moment t was searched below 500 cores (docs/moments.md). There the option has
        # no threshold to offer.
        where = f" below {caps[0]} cores" if caps else ""
        raise ValueError(
            f"no calibrated {policy} threshold with arrival_size_evidence{where}: declare the "
            "cluster without it, or give the threshold of `headroom calibrate moment "
            "--arrival-size-evidence` for this capacity")
    near = _near(anchors, capacity, extrapolate=True)
    values = [_unit_to_threshold(policy, a[1], capacity) for a in near]
    threshold, loosest = min(values), max(values)
    # Outside the calibrated capacities the nearest anchor's value stands in, but its runs
    # were lives of another cluster: the second moment's ρ = 0.112 met τ at 20,000 cores with
    # confidence 0.94 and at 50,000 with 0.69 over 48 lives (docs/moments.md), so no
    # confidence carries over.
    outside = not caps[0] <= capacity <= caps[-1]
    confs = [a[3] for a in near]
    derivation = {
        "source": "table",
        "table_sla": TABLE_SLA,
        "anchors": [_anchor_view(a) for a in near],
        "runs": min(a[2] for a in near),
        # Only inside the calibrated capacities, where the SLA is no stricter than the table's
        # and every anchor stated one.
        "confidence": (None if outside or sla < TABLE_SLA or None in confs
                       else min(confs)),  # type: ignore[type-var]
        "bounds": [threshold * TIGHTEST, loosest],
    }
    # Where the table's anchors were calibrated for faster growth too (never with the sized
    # engine, which has none), the derivation carries them: a learning cluster's ladder.
    steps = [] if sized else growth_steps(policy, capacity, threshold)
    if steps and sla >= TABLE_SLA:
        derivation["by_growth"] = steps
    return threshold, derivation


def growth_steps(policy: str, capacity: int, table: float) -> list[dict[str, Any]]:
    """The thresholds CALIBRATED_GROWTH gives this capacity, one per λ factor: at an anchor its
    value; strictly between two, the table's threshold for this capacity (`table`) times the smaller of
    the two anchors' ratios to their Table 1 values; none outside them (a value found at 2,000
    cores says nothing of 20,000). Ratios, not values: the calibrated value may rise with the
    factor at one anchor and fall at the next (the first moment: ×1.41 at 2,000 cores, ×0.6
    at 500), and the smaller ratio keeps a step between them from loosening more than both."""
    base = {a[0]: a[1] for a in CALIBRATED[policy]}
    out = []
    for factor, anchors in sorted(CALIBRATED_GROWTH[policy].items()):
        near = _near(anchors, capacity, extrapolate=False)
        if not near:
            continue
        value = (_unit_to_threshold(policy, near[0][1], capacity) if len(near) == 1
                 else table * min(a[1] / base[a[0]] for a in near))
        out.append({"lambda_factor": factor, "threshold": value,
                    "anchors": [{**_anchor_view(a), "ratio_to_table": a[1] / base[a[0]]}
                                for a in near]})
    return out


def table_anchor(kind: str, capacity: int, arrival_size_evidence: bool,
                 population_prior: dict[str, Any] | None, arrival_rate: float | None
                 ) -> Anchor | None:
    """The table's anchor for this very declaration at τ = TABLE_SLA: calibrated at this
    capacity, on Table 1's priors, at the paper's load and with the same arrival evidence;
    None where the table has none (it has no other declarations)."""
    sized = arrival_size_evidence and kind != "threshold"
    if not _same_prior(population_prior, None) or (
            arrival_rate is not None and arrival_rate != default_arrival_rate(capacity)):
        return None
    return next((a for a in (CALIBRATED_SIZED if sized else CALIBRATED)[kind]
                 if a.capacity == capacity), None)


def derived_threshold(kind: str, capacity: int, sla: float, arrival_size_evidence: bool,
                      population_prior: dict[str, Any] | None, arrival_rate: float | None,
                      recipe: Recipe) -> tuple[float | None, dict[str, Any]]:
    """(threshold, derivation) of a new declaration that gave no threshold.

    The table's, calibrated, where it holds this very declaration (table_anchor, τ = 1e-4).
    Anything else is calibrated for itself by `recipe` (the service runs it in the background
    and logs its result as a ``threshold_calibrated`` event); until then the cluster stands on
    an interim no less safe than τ, which the derivation names:

    * ``table_stricter_sla``: the table's anchor for this very declaration at τ = 1e-4 when
      the declared τ is looser. The same lives met the stricter rate, so they meet this one.
    * ``admit_nothing``: otherwise. No other finished calibration is safe to borrow: the
      calibrated values are not monotone in capacity (the table's fall from 500 to 2,000
      cores and rise after), and a threshold of one prior or arrival evidence says nothing
      of another's (docs/moments.md). A cluster that admits nothing has no scale-outs to fail.
    """
    prior = None if population_prior is None else Prior.from_dict(population_prior).to_dict()
    inputs = calibration_inputs(kind, capacity, sla, arrival_rate=arrival_rate,
                                population_prior=prior,
                                arrival_size_evidence=arrival_size_evidence, recipe=recipe)
    pending = {"status": "calibrating",
               "calibration": {"key": calibration_key(inputs), "inputs": inputs}}
    anchor = table_anchor(kind, capacity, arrival_size_evidence, population_prior, arrival_rate)
    if anchor is not None and sla >= TABLE_SLA:
        threshold, derivation = table_threshold(kind, capacity, sla, arrival_size_evidence,
                                                population_prior)
        if sla == TABLE_SLA:
            return threshold, {**derivation, "status": "calibrated"}
        return threshold, {**derivation, **pending, "interim": "table_stricter_sla"}
    return None, {"source": "calibration", **pending, "interim": "admit_nothing"}


def declared_threshold(kind: str, capacity: int, sla: float, threshold: float | None,
                       derivation: dict[str, Any] | None,
                       arrival_size_evidence: bool = False,
                       population_prior: dict[str, Any] | None = None) -> tuple[float, dict[str, Any]]:
    """The (threshold, derivation) a declaration stands for: the table's when it gave no
    threshold, else its own (an expert override, or a calibration's output) checked against
    its derivation. ValueError names what is inconsistent."""
    if threshold is None:
        if derivation is not None:
            raise ValueError("policy.derivation needs the policy.threshold it derived")
        return table_threshold(kind, capacity, sla, arrival_size_evidence, population_prior)
    if derivation is None:
        derivation = {"source": "declared", "bounds": [threshold * TIGHTEST, threshold]}
    lo, hi = derivation["bounds"]
    if not lo <= threshold <= hi:
        raise ValueError(f"policy.threshold {threshold:g} is outside policy.derivation.bounds "
                         f"[{lo:g}, {hi:g}]")
    if derivation.get("sla") is not None and derivation["sla"] != sla:
        raise ValueError(f"policy.derivation was calibrated for sla {derivation['sla']:g}, "
                         f"the cluster declares {sla:g}")
    scale = derivation.get("scale") or {}
    if scale.get("capacity", capacity) != capacity:
        raise ValueError(f"policy.derivation was calibrated for {scale['capacity']} cores, "
                         f"the cluster declares {capacity}")
    # A derivation that states its simulated scale was calibrated with or without counting
    # arrivals' sizes (without, if it says nothing: calibrations from before the option).
    if scale and bool(scale.get("arrival_size_evidence", False)) != arrival_size_evidence:
        said = "with" if scale.get("arrival_size_evidence") else "without"
        raise ValueError(f"policy.derivation was calibrated {said} arrival_size_evidence; the "
                         "cluster declares the other (the same t or ρ admits differently)")
    # Likewise the population its deployments were drawn from (Table 1's, if it says nothing).
    if scale and not _same_prior(scale.get("population_prior"), population_prior):
        raise ValueError("policy.derivation was calibrated for another population prior than "
                         "the cluster declares (policy.population_prior; none is Table 1's): "
                         "a t or ρ calibrated for one prior does not carry over to another")
    if scale.get("steps", DEFAULT_STEPS) != DEFAULT_STEPS:
        raise ValueError(f"policy.derivation was calibrated on {scale['steps']} steps per "
                         f"horizon; the service decides on {DEFAULT_STEPS}, where t and ρ mean "
                         "something else")
    return threshold, derivation


@dataclass
class GrowthLadder:
    """The threshold of each calibrated λ factor, for a cluster that learns its prior.

    ``steps``: (λ factor, threshold) pairs, factor 1 the declared threshold, factors rising.
    When the learner adopts a prior whose λ mean is f > 1 times the declared one, the step in
    use becomes the largest factor k ≤ f; a step is left downwards only once f < k /
    HYSTERESIS, so a learnt factor that wanders around k does not flip the threshold every
    day. Between two steps the tighter of the two rules (as between two capacities of the
    table), above the last its own: where the calibrated threshold rises with the factor (the
    second and first moment at 2,000 cores) that is the step at or below f, so the engine
    believes at least the growth its threshold was calibrated for; where it falls (the first
    moment at 500 cores) the one above, so f's own calibration can only be looser. No step
    was calibrated for longer-lived cores: when μ's mean moved too, the ladder never loosens
    past the declared threshold.
    """

    steps: list[tuple[float, float]]
    factor: float = 1.0  # the step in use
    threshold: float | None = None  # its threshold (before the closed loop's moves); None: step 1's

    HYSTERESIS = 1.1

    def in_use(self) -> float:
        return self.steps[0][1] if self.threshold is None else self.threshold

    def target(self, lam_factor: float, mu_factor: float) -> tuple[float, float]:
        """(step, threshold) for a learnt prior with these mean factors."""
        if lam_factor == 1.0:  # λ was not learnt (μ may have been): the declared threshold
            return 1.0, self.steps[0][1]
        i = 0
        for j, (k, _) in enumerate(self.steps):
            if lam_factor >= k or (k == self.factor and lam_factor >= k / self.HYSTERESIS):
                i = j
        value = min(v for _, v in self.steps[i:i + 2])
        if mu_factor != 1.0:
            value = min(value, self.steps[0][1])
        return self.steps[i][0], value

    def to_dict(self) -> dict[str, Any]:
        return {"steps": [list(s) for s in self.steps], "factor": self.factor,
                "threshold": self.in_use()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GrowthLadder:
        return cls([(float(k), float(v)) for k, v in data["steps"]], float(data["factor"]),
                   float(data["threshold"]))


def wilson(failures: float, n: float, z: float = Z) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (0, 1) when nothing was observed."""
    if n <= 0:
        return 0.0, 1.0
    p = failures / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # At p = 0 (or 1) centre and half are the same number, computed two ways: their difference
    # rounds to ~1e-22 instead of the exact 0 (which a plot's error bar below 0 refuses).
    lo = 0.0 if failures <= 0 else max(0.0, centre - half)
    hi = 1.0 if failures >= n else min(1.0, centre + half)
    return lo, hi


@dataclass
class SlaLoop:
    """Closed-loop threshold control on the realized scale-out failure rate.

    After every scale-out (granted or denied) the window since the last change holds n
    requests and f denials. Once n ≥ 1/τ (enough requests that a rate of τ would show about
    one failure, and a pause after each change so one overflow episode — denials come in
    bursts — is answered once, not ratcheted on every denial of it):
      * Wilson lower bound L of f/n > τ    → threshold × τ/L, within [0.5, 0.9] (not below
                                             bounds[0]);
      * Wilson upper bound of f/n < τ/FAR  → threshold × LOOSEN  (not above bounds[1]);
    and the window restarts. Decisions depend only on the sequence of scale-out outcomes, so
    replaying the log reproduces every change.
    """

    sla: float
    lo: float
    hi: float
    window_requests: int = 0
    window_denied: int = 0
    tightened: int = 0
    loosened: int = 0

    def observe(self, granted: bool, threshold: float) -> float:
        """The threshold after this scale-out's outcome."""
        self.window_requests += 1
        self.window_denied += 0 if granted else 1
        if self.window_requests < math.ceil(1 / self.sla):
            return threshold
        low, high = wilson(self.window_denied, self.window_requests)
        new = threshold
        if low > self.sla:
            new = max(self.lo, threshold * min(TIGHTEN_MIN, max(TIGHTEN_MAX, self.sla / low)))
            self.tightened += new < threshold
        elif high < self.sla / FAR:
            new = min(self.hi, threshold * LOOSEN)
            self.loosened += new > threshold
        else:
            return threshold
        self.window_requests = self.window_denied = 0  # a verdict was reached: start afresh
        return new

    def describe(self) -> dict[str, Any]:
        low, high = wilson(self.window_denied, self.window_requests)
        return {**self.to_dict(), "window_failure_rate_interval": [low, high]}

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SlaLoop:
        return cls(**data)
