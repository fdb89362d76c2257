"""Beliefs over a deployment's (λ, μ, σ) and how observations update them.

Time unit: hours. Table 1 fits the processes in continuous time without naming the unit; §5.2
runs one arrival per hour and App. D's simplified run has "730 new deployments" per month
(730 hours), so rates here are per hour: μ is the per-core death rate, λμ^ν the scale-out rate.

Population priors (Table 1, Gamma(shape, rate)): μ ~ Γ(0.3107, 0.5778), λ ~ Γ(0.4907, 0.4496),
σ ~ Γ(0.2616, 0.0552); Δ = 0.119, ν = 0.673.

A belief is the prior plus sufficient statistics ("pseudo-observations", §6 fn. 13), so
per-deployment priors, category priors and cluster observations all add the same way:

  μ: core lifetimes are Exp(μ) and the maximum lifetime Exp(Δμ). With d observed core deaths
     over core_time core-hours, and e observed spontaneous shutdowns over age_time hours alive,
     the likelihood is μ^{d+e} e^{-μ(core_time + Δ·age_time)} (censored cores contribute
     exposure only), so μ | obs ~ Γ(a + d + e, b + core_time + Δ·age_time). Exact conjugate.
  σ: each scale-out has size 1 + Pois(σ); with m scale-outs adding X cores in total,
     σ | obs ~ Γ(a + X − m, b + m). Exact conjugate. Where the cluster says an arrival's
     size is drawn like a scale-out's (arrival_size_evidence), an arrival of c cores is one
     more such observation: X − m grows by c − 1 and m by 1, for σ alone.
  λ: scale-outs are Poisson with rate λμ^ν, so m scale-outs over T hours give likelihood
     λ^m e^{-λ μ^ν T}. μ is uncertain, so this is not conjugate; we plug in the posterior mean
     of μ^ν: λ | obs ~ Γ(a + m, b + E[μ^ν | obs]·T). Approximation, recomputed from the
     stored statistics every time, so it improves as μ's posterior concentrates.
Denied scale-outs are observations too: the request happened, whether or not it was granted.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields
from typing import Any

from app.policies.moments.errors import InvalidPrior
from app.policies.moments.formulas import Belief

POPULATION_LAM = (0.4907, 0.4496)
POPULATION_MU = (0.3107, 0.5778)
POPULATION_SIG = (0.2616, 0.0552)
POPULATION_DELTA = 0.119
POPULATION_NU = 0.673

# What a client may declare (§6 per-deployment priors). Every moment is a product of Gamma
# expectations E[μ^p e^{-sμ}] = Γ(a+p)/Γ(a) b^a/(b+s)^{a+p} and means a/b, a/b²; with shape
# and rate in [1e-6, 1e6] a mean is at most 1e12 per hour and a variance 1e18, so E[λ²]E[(1+σ)²]
# times the 600² pairs of the double sum stays near 1e60, far from float overflow, and b² never
# underflows to 0 (a/b² was a ZeroDivisionError at b = 1e-200). Outside it, a prior says a
# deployment scales out 1e12 times an hour or less than once in 1e6 years: no real belief.
GAMMA_MIN = 1e-6
GAMMA_MAX = 1e6
# Pseudo-observations (counts, core-hours, hours) only add to a posterior's shape or rate. Up
# to 1e12 (the service's bound on amounts and instants) they stay exact enough in a float and
# the moments finite; lower would refuse real evidence: §6's simulation draws 50 lifetimes of
# a process whose rate is a Gamma(0.49, ·) draw, and their sum passes 1e9 hours.
PSEUDO_MAX = 1e12


def _number(value: Any, field: str, lo: float, hi: float) -> float:
    """A JSON number in [lo, hi]: ``true`` and ``"1e5"`` are not numbers (no coercion)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidPrior(f"prior.{field}", f"must be a number, got {type(value).__name__}")
    v = float(value)
    if not (lo <= v <= hi):  # also refuses NaN
        raise InvalidPrior(f"prior.{field}", f"must be in [{lo:g}, {hi:g}], got {value!r}")
    return v


@dataclass
class Stats:
    """Sufficient statistics of one deployment's processes (real or pseudo observations)."""

    core_deaths: float = 0.0  # cores that shut down on their own (scale-in)
    core_time: float = 0.0  # core-hours of exposure
    shutdowns: float = 0.0  # spontaneous deaths (maximum lifetime reached)
    age_time: float = 0.0  # hours alive (exposure for the maximum lifetime and for scale-outs)
    scaleouts: float = 0.0  # scale-out requests seen
    scaleout_time: float = 0.0  # hours over which scale-outs were counted
    extra_cores: float = 0.0  # Σ (size − 1) over scale-outs
    # An arrival's own size as evidence of σ (engine option arrival_size_evidence): σ only,
    # since an arrival is not one of the scale-outs that come at rate λμ^ν. Not declarable.
    sized_arrivals: float = 0.0
    arrival_extra_cores: float = 0.0  # Σ (size − 1) over those arrivals

    # plus and copy run for every moment recomputation (~1.1 million times in a 3-year life
    # at 20,000 cores): they read the instance dict instead of dataclasses' field machinery
    # (getattr per field, replace), which cost ~3x more.
    def plus(self, other: "Stats") -> "Stats":
        a, b = self.__dict__, other.__dict__
        return Stats(*[a[name] + b[name] for name in _STAT_FIELDS])

    def to_dict(self) -> dict[str, float]:
        return asdict(self)

    def copy(self) -> "Stats":
        out = object.__new__(Stats)
        out.__dict__.update(self.__dict__)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Stats":
        unknown = set(data) - set(_STAT_FIELDS)
        if unknown:
            raise ValueError(f"unknown prior statistics: {sorted(unknown)}")
        out = cls(**{k: float(v) for k, v in data.items()})
        if any(v < 0 or not math.isfinite(v) for v in asdict(out).values()):
            raise ValueError("prior statistics must be finite and non-negative")
        return out


_STAT_FIELDS = tuple(f.name for f in fields(Stats))


@dataclass(frozen=True)
class Prior:
    """Gamma (shape, rate) base beliefs before a deployment's own statistics."""

    lam: tuple[float, float] = POPULATION_LAM
    mu: tuple[float, float] = POPULATION_MU
    sig: tuple[float, float] = POPULATION_SIG

    def to_dict(self) -> dict[str, list[float]]:
        return {"lambda": list(self.lam), "mu": list(self.mu), "sigma": list(self.sig)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Prior":
        out = cls(tuple(data["lambda"]), tuple(data["mu"]), tuple(data["sigma"]))  # type: ignore[arg-type]
        for pair in (out.lam, out.mu, out.sig):
            if len(pair) != 2 or not all(math.isfinite(x) and x > 0 for x in pair):
                raise ValueError("Gamma (shape, rate) must be two positive numbers")
        return out


def e_mu_pow(mu: tuple[float, float], p: float) -> float:
    """E[μ^p] for μ ~ Gamma(a, b)."""
    a, b = mu
    return math.exp(math.lgamma(a + p) - math.lgamma(a)) * b ** (-p)


def posterior(prior: Prior, stats: Stats, delta: float, nu: float) -> Belief:
    mu = (prior.mu[0] + stats.core_deaths + stats.shutdowns, prior.mu[1] + stats.core_time + delta * stats.age_time)
    # + 0.0 where arrivals are not evidence: the same bits as before the option existed.
    sig = (prior.sig[0] + stats.extra_cores + stats.arrival_extra_cores,
           prior.sig[1] + stats.scaleouts + stats.sized_arrivals)
    lam = (prior.lam[0] + stats.scaleouts, prior.lam[1] + e_mu_pow(mu, nu) * stats.scaleout_time)
    return Belief(lam=lam, mu=mu, sig=sig, delta=delta, nu=nu)


def gamma_mean_var(shape_rate: tuple[float, float]) -> tuple[float, float]:
    a, b = shape_rate
    return a / b, a / b**2


def category_prior(members: list[Belief], fallback: Prior, min_members: int) -> Prior:
    """Empirical-Bayes prior for a user-labelled category (§7).

    Moment-match a Gamma to the mixture of the members' posteriors: mean = average posterior
    mean, variance = average posterior variance + variance of the posterior means (law of total
    variance, the quantity Prop. 4 says labelling reduces). Below `min_members` the category
    knows too little and the population prior is used.
    """
    if len(members) < min_members:
        return fallback

    def fit(pairs: list[tuple[float, float]], base: tuple[float, float]) -> tuple[float, float]:
        mv = [gamma_mean_var(p) for p in pairs]
        m = sum(x for x, _ in mv) / len(mv)
        v = sum(y for _, y in mv) / len(mv) + sum((x - m) ** 2 for x, _ in mv) / len(mv)
        if not (m > 0 and v > 0 and math.isfinite(m) and math.isfinite(v)):
            return base
        return (m * m / v, m / v)

    return Prior(
        lam=fit([b.lam for b in members], fallback.lam),
        mu=fit([b.mu for b in members], fallback.mu),
        sig=fit([b.sig for b in members], fallback.sig),
    )


def declared_prior(gamma: Any) -> Prior:
    """A client's {"lambda": [shape, rate], "mu": [...], "sigma": [...]}, within bounds."""
    if not isinstance(gamma, dict) or set(gamma) != {"lambda", "mu", "sigma"}:
        raise InvalidPrior("prior.gamma", "needs exactly lambda, mu and sigma")
    pairs = []
    for name in ("lambda", "mu", "sigma"):
        pair = gamma[name]
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise InvalidPrior(f"prior.gamma.{name}", "must be [shape, rate]")
        pairs.append(tuple(_number(x, f"gamma.{name}[{i}]", GAMMA_MIN, GAMMA_MAX)
                           for i, x in enumerate(pair)))
    return Prior(*pairs)  # type: ignore[arg-type]


# What an arrival's own size says is the engine's to count, not a client's to declare.
ENGINE_ONLY = frozenset({"sized_arrivals", "arrival_extra_cores"})


def declared_observations(observations: Any) -> Stats:
    if not isinstance(observations, dict):
        raise InvalidPrior("prior.observations", "must be an object")
    names = set(_STAT_FIELDS) - ENGINE_ONLY
    unknown = set(observations) - names
    if unknown:
        raise InvalidPrior("prior.observations", f"unknown statistics {sorted(unknown)}")
    return Stats(**{k: _number(v, f"observations.{k}", 0.0, PSEUDO_MAX)
                    for k, v in observations.items()})


def resolve_prior(
    population: Prior, category_members: list[Belief] | None, prior: dict[str, Any] | None, min_members: int
) -> tuple[Prior, Stats]:
    """Base prior and pseudo-observations for an arrival: an explicit Gamma prior wins, else the
    category's learned prior (if it has enough members), else the population prior."""
    base = population
    if prior and "gamma" in prior:
        base = declared_prior(prior["gamma"])
    elif category_members is not None:
        base = category_prior(category_members, base, min_members)
    stats = declared_observations(prior.get("observations", {})) if prior else Stats()
    return base, stats
