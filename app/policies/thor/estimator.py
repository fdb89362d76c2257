"""Online estimate of the Gaussian N(μ_t, σ_t²) that caps the demand (paper §II-A, §III-A).

The paper assumes the cap Λ is a known stationary Gaussian "configured based on the data" and
does not say how. THOR only sees demand through F_t, so here F_t is the CCDF of a one-step
forecast of the next period's demand made after period t:

- level  μ ← μ + β (λ − μ)            exponentially weighted level (``level_weight`` β);
- spread m ← m + γ (e² − m),  e = λ − μ_before   EW mean square of the one-step forecast
  error (``spread_weight`` γ; while fewer than 1/γ errors are known the weight is 1/n, a
  plain average, so the start is not dominated by the seed);
- σ = max(κ √m, f_rel |μ|, f_abs)     ``tail_factor`` κ, ``sigma_floor``, ``sigma_floor_abs``.

Why forecast errors rather than the spread of recent levels: σ should measure how wrong the
reservation can be one period ahead; the spread of levels also counts the predictable part
(daily cycles), which over-reserves. Why κ > 1: Λ must *cap* λ (F_λ ≤ F_Λ) at the quantile
THOR operates at, and one-step errors of real utilisation series are heavier-tailed than a
Gaussian with the same variance, so the variance-matched Gaussian under-covers at small ε.
The default κ = 1.6 was chosen on the Alibaba 2018 series only (see docs/reproduction/thor.md).
The first demand seeds m with (``initial_spread`` · λ)² as one pseudo-observation.

Floors. On a constant series m decays to 0, and on an idle resource (λ = 0) μ is 0 too, so
without floors σ = 0. σ is the scale of everything THOR does in normalised units: it reserves
μ + z_ε σ at rest and runs eq. (8) with α_t = α/σ², V_t = V/σ. So σ's floor is the finest
demand difference worth a reservation step. The relative floor (1% of the level) covers every
busy resource whatever its unit; only a level near 0 reaches the absolute floor. At 1e-9 an
idle resource would answer α_t ≈ 8.5e17 and slopes of 1e8 — numbers no client can use and
that jsonb cannot store exactly. The floor is 1e-3 demand units: a
thousandth of a core, of a fraction of capacity's percent scale, or of a byte, is below what
an orchestrator reserves; an idle resource then reserves z_ε · 1e-3 (at most 0.005 for ε ≥
1e-6) and α_t stays below α · 1e6. A stream whose demand is naturally below 1e-3 units (say
fractions of a huge pool) sets ``sigma_floor_abs`` lower, down to 1e-9.
On the reproduction's traces (utilisations 0.1–0.9) the relative floor is always above 1e-3,
so this default changes none of their numbers (checked: docs/reproduction/thor.md).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from app.policies.thor.stream import ReservationError, check_number


@dataclass(frozen=True)
class CapParams:
    level_weight: float = 0.5
    spread_weight: float = 0.05
    tail_factor: float = 1.6
    sigma_floor: float = 0.01
    sigma_floor_abs: float = 1e-3  # demand units; see the module docstring
    initial_spread: float = 0.1

    def __post_init__(self) -> None:
        p = "params.estimator."
        check_number(self.level_weight, p + "level_weight", lo=0.0, hi=1.0, lo_open=True)
        check_number(self.spread_weight, p + "spread_weight", lo=0.0, hi=1.0, lo_open=True)
        check_number(self.tail_factor, p + "tail_factor", lo=0.0, hi=1e3, lo_open=True)
        check_number(self.sigma_floor, p + "sigma_floor", hi=1e3)
        # 1e-9, the lowest accepted, is what snapshots from before the 1e-3 default carry; far
        # below it α/σ² overflows (1e-300 gives inf).
        check_number(self.sigma_floor_abs, p + "sigma_floor_abs", lo=1e-9)
        check_number(self.initial_spread, p + "initial_spread", hi=1e3)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any] | None) -> CapParams:
        d = dict(d or {})
        unknown = set(d) - set(cls.__dataclass_fields__)
        if unknown:
            raise ReservationError("params.estimator", f"unknown keys {sorted(unknown)}")
        return cls(**d)

    def to_dict(self) -> dict[str, float]:
        return {k: float(v) for k, v in asdict(self).items()}


class CapEstimator:
    """State of one resource's estimate: level μ, mean square error m, count n."""

    __slots__ = ("p", "level", "msq", "n")

    def __init__(self, params: CapParams):
        self.p = params
        self.level: float | None = None
        self.msq = 0.0
        self.n = 0

    def update(self, lam: float) -> tuple[float, float]:
        """Learn λ; return (μ, σ) of the cap for the next period."""
        p = self.p
        if self.level is None:
            self.level = lam
            self.msq = (p.initial_spread * lam) ** 2
            self.n = 1
        else:
            e = lam - self.level
            self.n += 1
            g = max(p.spread_weight, 1.0 / self.n)
            self.msq += g * (e * e - self.msq)
            self.level += p.level_weight * e
        return self.level, self.sigma()

    def sigma(self) -> float:
        p = self.p
        mu = self.level or 0.0
        return max(p.tail_factor * math.sqrt(self.msq), p.sigma_floor * abs(mu),
                   p.sigma_floor_abs)

    def to_state(self) -> list[Any]:
        return [self.level, self.msq, self.n]

    def load(self, state: list[Any]) -> None:
        level, msq, n = state
        self.level = None if level is None else float(level)
        self.msq = float(msq)
        self.n = int(n)
