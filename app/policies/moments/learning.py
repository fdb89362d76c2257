"""Learning the population prior from the cluster's own deployments (beyond the paper).

The moment policies are only as right as their priors: Table 1 was fitted on one provider's
traces, and a cluster whose deployments grow twice as fast as it says admits deployments it
believes small and finds out when their scale-outs start to fail — too late, because those
deployments stay for their lifetime (docs/moments.md, "What the loop cannot do"). The failure
rate is a *lagging* signal. The *leading* one is the evidence every deployment produces from
its first hour: scale-outs, their sizes, core deaths, each against the exposure it had.

Empirical Bayes over the recent population-prior deployments, one Gamma at a time, with the
declared shape kept and the rate (so the mean) estimated:

  each deployment i shows k_i events over exposure X_i, with its rate θ_i ~ Gamma(a, β):
  k_i is negative-binomial with log-likelihood ℓ(β) = Σ a·log β − (a + k_i)·log(β + X_i) + const,
  whose derivative times β, n·a − Σ (a + k_i)·β / (β + X_i), falls strictly from n·a to −Σ k_i,
  so the maximum-likelihood β is the one root, found by bisection on log β.

  μ: k = core deaths + shutdowns,  X = core-hours + Δ·hours alive  (the engine's own conjugate
     update, priors.py);
  σ: k = extra cores,              X = scale-outs;
  λ: k = scale-outs,               X = E[μ^ν | that deployment's μ posterior]·hours counted,
     with the μ posterior under the μ prior just chosen (the same plug-in as priors.py).

The censoring is ignorable: a deployment stops producing evidence when it dies, and whether it
dies depends only on what was observed (its cores reaching zero) or on an independent clock
(its maximum lifetime), so the likelihood above is the right one for alive and dead alike.

A prior changes only when the data are clear about it: the likelihood-ratio statistic against
the prior in use exceeds ``LR_CRITICAL`` (χ²₁ at 99.9%); it then moves to the near edge of the
95% likelihood interval (``_choose`` says why not to the point estimate), if that moves the
mean by at least ``MIN_CHANGE``; one estimate per ``EVERY_HOURS`` of event time at the most. Under the right
prior neither fires except by chance (tests/sim/moments/test_learning_sim.py measures how
often). Everything is a pure function of engine state and event times, so a cluster rebuilt
from its log learns the same priors at the same events.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.special import gammaln

from app.policies.moments.priors import GAMMA_MAX, GAMMA_MIN, Prior, Stats

EVERY_HOURS = 24.0  # at most one estimate per day of event time
WINDOW = 1000  # most recent population-prior deployments, alive or dead
MIN_RECORDS = 20  # below this many deployments nothing is learnt (the test decides above)
LR_CRITICAL = 10.83  # χ²₁ 0.999 quantile: a prior changes only when rejected at this level
LR_EDGE = 3.84  # χ²₁ 0.95 quantile: ... and then to the edge of the 95% interval
MIN_CHANGE = 1.1  # a prior mean moves by ×1.1 or ÷1.1 at least, or not at all
MAX_FACTOR = 100.0  # a learnt mean stays within ×/÷100 of the declared one
REPRIOR_PER_ADMIT = 64  # deployments moved to a new prior per admission (spreads the cost)
HISTORY = 32  # adoptions kept for the cluster's view


def ml_rate(shape: float, k: np.ndarray, x: np.ndarray) -> float:
    """Maximum-likelihood rate β of Gamma(shape, β) given counts k over exposures x.
    +inf when nothing happened at all (the rate's mean is then 0), 0 when the events had
    next to no exposure; the caller bounds both."""
    total = float(k.sum())
    if total <= 0:
        return math.inf
    n = len(k)

    def score(log_b: float) -> float:  # β·ℓ'(β), strictly decreasing in β
        b = math.exp(log_b)
        return n * shape - float(np.sum((shape + k) * (b / (b + x))))

    lo, hi = math.log(GAMMA_MIN) - 30, math.log(GAMMA_MAX) + 30
    if score(lo) <= 0:
        return 0.0  # events with no exposure (pseudo-observations can say so): mean unbounded
    for _ in range(80):  # bracket width e^-80·(range): far below float resolution of β
        mid = 0.5 * (lo + hi)
        if score(mid) > 0:
            lo = mid
        else:
            hi = mid
    return math.exp(0.5 * (lo + hi))


def log_likelihood(shape: float, rate: float, k: np.ndarray, x: np.ndarray) -> float:
    return float(np.sum(shape * math.log(rate) - (shape + k) * np.log(rate + x)))


def _choose(shape: float, current: float, declared: float, k: np.ndarray, x: np.ndarray
            ) -> tuple[float, float]:
    """(rate to use, likelihood-ratio statistic against `current`).

    On clear evidence (the statistic above LR_CRITICAL) the rate moves, but only to the edge
    of the 95% likelihood interval on the side of `current`, not to the maximum-likelihood
    point: with a few dozen deployments of a dispersed population (λ's shape is 0.49) the
    point estimate is off by ±30%, and one that overshoots growth makes the cluster admit
    nobody, so no new evidence comes to correct it (measured: ×3.2 for a true ×2 left a
    2,000-core cluster at 2% utilisation for three years). From the edge, later estimates
    keep moving while the evidence says so."""
    lo, hi = declared / MAX_FACTOR, declared * MAX_FACTOR
    best = min(hi, max(lo, ml_rate(shape, k, x)))
    top = log_likelihood(shape, best, k, x)
    lr = 2.0 * (top - log_likelihood(shape, current, k, x))
    if lr <= LR_CRITICAL:
        return current, lr
    near, far = math.log(current), math.log(best)  # ℓ rises from `near` to `far`
    for _ in range(60):
        mid = 0.5 * (near + far)
        if 2.0 * (top - log_likelihood(shape, math.exp(mid), k, x)) > LR_EDGE:
            near = mid
        else:
            far = mid
    edge = math.exp(far)
    return (edge if max(edge / current, current / edge) >= MIN_CHANGE else current), lr


@dataclass
class PopulationLearner:
    """The learnt population prior and the evidence it comes from (engine state)."""

    declared: Prior
    learnt: Prior | None = None
    next_at: float = 0.0
    # (deployment id, final statistics once it died, else None: read live from the engine)
    evidence: deque[tuple[str, Stats | None]] = field(default_factory=lambda: deque(maxlen=WINDOW))
    adoptions: list[dict[str, Any]] = field(default_factory=list)
    last_lr: dict[str, float] = field(default_factory=dict)

    @property
    def prior(self) -> Prior:
        return self.learnt or self.declared

    def record(self, deployment_id: str) -> None:
        self.evidence.append((deployment_id, None))

    def freeze(self, deployment_id: str, stats: Stats) -> None:
        """A deployment died: keep its final statistics (the engine forgets it)."""
        for i, (key, frozen) in enumerate(self.evidence):
            if key == deployment_id and frozen is None:
                self.evidence[i] = (key, stats.copy())
                return

    def due(self, at: float) -> bool:
        return at >= self.next_at

    def estimate(self, live: dict[str, Stats], at: float, delta: float, nu: float) -> Prior | None:
        """The prior the evidence asks for, or None if it asks for no change. `live`: the
        statistics of the evidence's live deployments, with exposure up to `at`."""
        self.next_at = at + EVERY_HOURS
        rows = [frozen if frozen is not None else live.get(key) for key, frozen in self.evidence]
        stats = [s for s in rows if s is not None]
        if len(stats) < MIN_RECORDS:
            return None
        col = {name: np.array([getattr(s, name) for s in stats], dtype=float)
               for name in ("core_deaths", "shutdowns", "core_time", "age_time", "extra_cores",
                            "scaleouts", "scaleout_time")}
        cur, dec = self.prior, self.declared
        mu_rate, lr_mu = _choose(cur.mu[0], cur.mu[1], dec.mu[1], col["core_deaths"] + col["shutdowns"],
                                 col["core_time"] + delta * col["age_time"])
        # σ is not learnt: admission selects on a deployment's initial size, which (if it is
        # drawn like a scale-out's, as in our simulator) tells of its σ, so the admitted
        # deployments' σ is biased low against the arrivals' — a learnt σ would understate
        # every newcomer's growth (measured: ×0.15 at the right prior). λ and μ are not
        # selected on: nothing about them is seen before the decision.
        sig_rate, lr_sig = cur.sig[1], 0.0
        # E[μ^ν] under each deployment's μ posterior with the μ prior just chosen (priors.py).
        a_mu = cur.mu[0] + col["core_deaths"] + col["shutdowns"]
        b_mu = mu_rate + col["core_time"] + delta * col["age_time"]
        e_mu_nu = np.exp(gammaln(a_mu + nu) - gammaln(a_mu)) * b_mu ** (-nu)
        lam_rate, lr_lam = _choose(cur.lam[0], cur.lam[1], dec.lam[1], col["scaleouts"],
                                   e_mu_nu * col["scaleout_time"])
        self.last_lr = {"lambda": lr_lam, "mu": lr_mu, "sigma": lr_sig}
        new = Prior((cur.lam[0], lam_rate), (cur.mu[0], mu_rate), (cur.sig[0], sig_rate))
        if new == cur:
            return None
        self.learnt = new
        self.adoptions.append({"at": at, "records": len(stats), "prior": new.to_dict(),
                               "mean_factor": {n: d[0] / d[1] / (p[0] / p[1]) for n, p, d in (
                                   ("lambda", dec.lam, new.lam), ("mu", dec.mu, new.mu),
                                   ("sigma", dec.sig, new.sig))},
                               "likelihood_ratio": dict(self.last_lr)})
        del self.adoptions[:-HISTORY]
        return new

    def describe(self) -> dict[str, Any]:
        return {"prior": self.prior.to_dict(), "learnt": self.learnt is not None,
                "evidence": len(self.evidence), "next_estimate_at": self.next_at,
                "last_likelihood_ratio": self.last_lr, "adoptions": self.adoptions}

    def to_dict(self) -> dict[str, Any]:
        return {"declared": self.declared.to_dict(),
                "learnt": None if self.learnt is None else self.learnt.to_dict(),
                "next_at": self.next_at,
                "evidence": [[k, None if s is None else s.to_dict()] for k, s in self.evidence],
                "adoptions": self.adoptions, "last_lr": self.last_lr}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PopulationLearner:
        out = cls(Prior.from_dict(data["declared"]),
                  None if data["learnt"] is None else Prior.from_dict(data["learnt"]),
                  float(data["next_at"]))
        out.evidence.extend((k, None if s is None else Stats.from_dict(s)) for k, s in data["evidence"])
        out.adoptions = list(data["adoptions"])
        out.last_lr = dict(data["last_lr"])
        return out
