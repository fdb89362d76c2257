# FROZEN ORACLE: app/policies/moments/formulas.py as of commit 889df3d, before moments_batch.
# test_moments_batch.py checks the live formulas against it bit for bit; do not edit.
"""Moments of a deployment's future size L_n under Gamma beliefs (paper §4, Props. 2-3, App. C).

L_n = M_n · D_n · (Q_n + B_n) with, for the n-th step of size h of a horizon grid:
  Q_n  cores activated in steps 1..n and still alive at n,
  B_n  of the C cores alive now, those still alive at n,
  M_n  1 while the deployment's maximum lifetime has not run out,
  D_n  1 while the deployment has not died by reaching zero cores.
Rates are per hour (see priors.py), so h is in hours.

Every Gamma expectation reduces to one kernel (App. C, eqs. 86-89 and 105-108):
  w(s, p) = E[μ^p e^{-sμ}] = Γ(a+p)/Γ(a) · b^a / (b+s)^{a+p},   μ ~ Gamma(a, b).
With k = n - i the age (in steps) of a scale-out, all sums over i are sums over k = 0..n-1,
so each is a cumulative sum along the grid: O(n) per horizon instead of per step.

Deviations from the printed App. C, which has typos; these are re-derived from Props. 2-3:
  * E[λ²] = a/b² + (a/b)² (the paper prints a²/b).
  * E[Var[Q_n|θ]] uses the exact compound-Poisson form
      Var[Q_n|θ] = Σ_k λμ^ν h [(1+σ) p_k + σ(2+σ) p_k²],  p_k = e^{-μ k h},
    which equals eq. (59) after expanding Var[S]=σ, E[S]=1+σ.
  * Var[E[Q_n|θ]] = h²(E[λ²]E[(1+σ)²] Σ_{k,l<n} w((k+l)h, 2ν) − (E[λ]E[1+σ] Σ_k w(kh, ν))²),
    i.e. the full double sum over all (k, l) pairs, not over i ≤ j only.
  * E[D] (eq. 16/66) uses E[Y]E[S] = E[λ]E[μ^ν]h(1+E[σ]) as the exponent for each earlier step.
M_n, D_n, Q_n, B_n are treated as uncorrelated, as in the paper, although all depend on μ.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from app.policies.moments.formulas import log_gamma_ratio

# Look-ahead horizons of §5.2 in hours: 3 years, 1 year, 1 month, 1 week, 24 hours.
HOURS_PER_YEAR = 8760.0
DEFAULT_HORIZONS: tuple[float, ...] = (3 * HOURS_PER_YEAR, HOURS_PER_YEAR, HOURS_PER_YEAR / 12, 168.0, 24.0)
HORIZON_LABELS = {3 * HOURS_PER_YEAR: "3y", HOURS_PER_YEAR: "1y", HOURS_PER_YEAR / 12: "1mo", 168.0: "1w", 24.0: "24h"}
DEFAULT_STEPS = 600


def horizon_label(hours: float) -> str:
    return HORIZON_LABELS.get(hours, f"{hours:g}h")


@dataclass(frozen=True)
class Grid:
    """`len(horizons)` rows of `steps` points; row r has step h_r = horizons[r] / steps."""

    horizons: tuple[float, ...] = DEFAULT_HORIZONS
    steps: int = DEFAULT_STEPS

    def __post_init__(self) -> None:
        if self.steps < 1 or not self.horizons or any(h <= 0 for h in self.horizons):
            raise ValueError("grid needs >= 1 step and positive horizons")

    @property
    def step_sizes(self) -> np.ndarray:
        return np.asarray(self.horizons, dtype=float) / self.steps

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self.horizons), self.steps)


@dataclass(frozen=True)
class Belief:
    """Gamma (shape, rate) beliefs over λ, μ, σ plus the population constants Δ and ν."""

    lam: tuple[float, float]
    mu: tuple[float, float]
    sig: tuple[float, float]
    delta: float
    nu: float


def _w(s: np.ndarray, p: float, a: float, b: float) -> np.ndarray:
    """E[μ^p e^{-sμ}] for μ ~ Gamma(a, b), written to avoid overflow of b^a."""
    g = math.exp(log_gamma_ratio(a, p))
    return g * np.exp(-a * np.log1p(s / b)) * (b + s) ** (-p)


def _double_sum_fast(f: np.ndarray, n: int) -> np.ndarray:
    """S(m) = Σ_{k,l<m} f(k+l) for m = 1..n, f given on 0..2n-2 along the last axis.

    S(m) - S(m-1) adds the pairs whose larger index is m-1: 2 Σ_{k<m-1} f(m-1+k) + f(2m-2),
    and Σ_{k<m-1} f(m-1+k) = F(2m-2) - F(m-1) with F the exclusive prefix sum of f.
    """
    F = np.concatenate([np.zeros(f.shape[:-1] + (1,)), np.cumsum(f, axis=-1)], axis=-1)
    m = np.arange(1, n + 1)
    inc = 2.0 * (F[..., 2 * m - 2] - F[..., m - 1]) + f[..., 2 * m - 2]
    return np.cumsum(inc, axis=-1)


def _double_sum_naive(f: np.ndarray, n: int) -> np.ndarray:
    """Reference O(n^2)-per-step version of `_double_sum_fast` (used by tests only)."""
    out = np.zeros(f.shape[:-1] + (n,))
    for m in range(1, n + 1):
        acc = np.zeros(f.shape[:-1])
        for k in range(m):
            for l in range(m):
                acc = acc + f[..., k + l]
        out[..., m - 1] = acc
    return out


class _Kernel:
    """w(s, p) at s = j·h for j = 0..2n on every grid row, from one log1p(s/b) table."""

    def __init__(self, a: float, b: float, h: np.ndarray, n: int) -> None:
        self.a = a
        self.log_b = math.log(b)
        self.log1p_s = np.log1p((np.arange(2 * n + 1)[None, :] * h) / b)

    def at(self, j: slice | np.ndarray, p: float) -> np.ndarray:
        g = log_gamma_ratio(self.a, p)
        return np.exp(g - p * self.log_b - (self.a + p) * self.log1p_s[:, j])


def q_moments(belief: Belief, grid: Grid, naive: bool = False, kernel: _Kernel | None = None) -> tuple[np.ndarray, np.ndarray]:
    """E[Q_n] and Var[Q_n] on the grid (eqs. 14, 25-27, 65, 69-74)."""
    n = grid.steps
    h = grid.step_sizes[:, None]
    a_l, b_l = belief.lam
    a_s, b_s = belief.sig
    nu = belief.nu
    kern = kernel or _Kernel(belief.mu[0], belief.mu[1], h, n)
    e_lam = a_l / b_l
    e2_lam = a_l / b_l**2 + e_lam**2
    e_sig = a_s / b_s
    v_sig = a_s / b_s**2
    e_s1 = 1.0 + e_sig
    e2_s1 = v_sig + e_s1**2
    e_sig2 = v_sig + e_sig**2 + 2.0 * e_sig  # E[σ(2+σ)]

    w1 = kern.at(slice(0, n), nu)  # w(kh, ν), k < n
    w1_sq = kern.at(slice(0, 2 * n - 1, 2), nu)  # w(2kh, ν)
    c1 = np.cumsum(w1, axis=1)
    mean = e_lam * e_s1 * h * c1
    within = e_lam * h * (e_s1 * c1 + e_sig2 * np.cumsum(w1_sq, axis=1))

    f2 = kern.at(slice(0, 2 * n - 1), 2.0 * nu)  # w((k+l)h, 2ν), k + l ≤ 2n-2
    dbl = _double_sum_naive(f2, n) if naive else _double_sum_fast(f2, n)
    between = h**2 * (e2_lam * e2_s1 * dbl - (e_lam * e_s1 * c1) ** 2)
    return mean, within + np.maximum(between, 0.0)


def moments(cores: int, belief: Belief, grid: Grid) -> tuple[np.ndarray, np.ndarray]:
    """(E[L_n], Var[L_n]) arrays of shape grid.shape for a deployment with `cores` active."""
    n = grid.steps
    h = grid.step_sizes[:, None]
    a_m, b_m = belief.mu
    t = np.arange(1, n + 1)[None, :] * h

    kern = _Kernel(a_m, b_m, h, n)
    e_q, v_q = q_moments(belief, grid, kernel=kern)

    # B_n (eqs. 15, 28, 76-77): each current core survives with p = e^{-μ t}.
    p1 = kern.at(slice(1, n + 1), 0.0)
    p2 = kern.at(slice(2, 2 * n + 1, 2), 0.0)
    e_b = cores * p1
    v_b = cores * (p1 - p2) + cores**2 * (p2 - p1**2)

    # M_n (eqs. 68, 78): the maximum lifetime is Exp(Δμ).
    e_m = _w(belief.delta * t, 0.0, a_m, b_m)
    v_m = e_m * (1.0 - e_m)

    # D_n (eqs. 16-17, 66): probability all cores are dead at step i, both the C current cores
    # and E[Y]E[S] expected cores from each earlier step; then a running product.
    e_y_s = (belief.lam[0] / belief.lam[1]) * float(_w(np.zeros(1), belief.nu, a_m, b_m)[0]) * h * (
        1.0 + belief.sig[0] / belief.sig[1]
    )
    log_dead_now = cores * np.log1p(-np.minimum(p1, 1.0 - 1e-12))
    log_dead_k = np.log1p(-np.minimum(p1, 1.0 - 1e-12))  # index k-1 holds age k = 1..n
    prior_steps = np.concatenate([np.zeros((len(grid.horizons), 1)), np.cumsum(log_dead_k, axis=1)[:, :-1]], axis=1)
    e_d = np.cumprod(-np.expm1(log_dead_now + e_y_s * prior_steps), axis=1)
    v_d = e_d - e_d**2

    size = e_q + e_b
    v_size = v_q + v_b
    e_l = e_m * e_d * size
    v_dqb = e_d**2 * v_size + size**2 * v_d + v_d * v_size  # eqs. 23-24
    v_l = e_m**2 * v_dqb + v_m * (e_d * size) ** 2 + v_m * v_dqb  # eqs. 21-22
    return e_l, v_l
