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


# Stirling's series for log Γ beyond its leading terms, Σ B_2k / (2k(2k − 1)) x^(1−2k) for
# k = 1..6: from x = 20 on, the first term left out (x^-13 / 156) is below 1e-19.
S1, S2, S3, S4, S5, S6 = 1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360
STIRLING_FROM = 20.0


def _stirling_tail(x: float) -> float:
    z = 1.0 / (x * x)  # Horner in 1/x², written out: the engine calls this per recompute
    return (((((S6 * z + S5) * z + S4) * z + S3) * z + S2) * z + S1) / x


def log_gamma_ratio(a: float, p: float) -> float:
    """log(Γ(a + p) / Γ(a)) for a > 0, p ≥ 0, to a few ε of the result.

    math.lgamma(a + p) − math.lgamma(a) carries ε·lgamma(a) of rounding (5e-13 at a = 455, a
    posterior after a few hundred core deaths), and Var[Q_n]'s between-deployment term
    multiplies that by up to a thousand. From STIRLING_FROM on, Stirling's series is taken
    as a difference whose large parts cancel on paper instead of in floating point:
    (a + p − ½)·log(a + p) − (a − ½)·log a − p = (a − ½)·log1p(p/a) + p·(log(a + p) − 1)."""
    if a < STIRLING_FROM:
        return math.lgamma(a + p) - math.lgamma(a)
    return (a - 0.5) * math.log1p(p / a) + p * (math.log(a + p) - 1.0) + (_stirling_tail(a + p) - _stirling_tail(a))


def _w(s: np.ndarray, p: float, a: float, b: float) -> np.ndarray:
    """E[μ^p e^{-sμ}] for μ ~ Gamma(a, b), written to avoid overflow of b^a."""
    g = math.exp(log_gamma_ratio(a, p))
    # (b / (b + s))^a as exp(−a·log1p(s/b)): the power of a rounded ratio carries its
    # rounding times a, which is large once μ is well known.
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
    """w(s, p) at s = j·h for j = 0..2n on every grid row, for k deployments at once: one
    log(b + s) table of shape (k, rows, 2n+1), each deployment with its own μ ~ Gamma(a, b)."""

    def __init__(self, a: np.ndarray, b: np.ndarray, h: np.ndarray, n: int, top: int | None = None) -> None:
        # a, b: (k, 1, 1). Every expression below is the one-deployment formula with the
        # scalars broadcast, so a deployment's moments are bit-identical however it is batched.
        # top: the largest j needed (2n for variances, n for means only).
        self.a = a
        # log(b + s) = log b + log1p(s/b): a·(log b − log(b + s)) would carry both logs'
        # rounding times a into the exponent (1e-12 relative once a is in the thousands).
        self.log_b = np.log(b)
        self.log1p_s = np.log1p((np.arange((2 * n if top is None else top) + 1)[None, :] * h) / b)

    def at(self, j: slice | np.ndarray, p: float) -> np.ndarray:
        g = np.array([log_gamma_ratio(v, p) for v in self.a.ravel()]).reshape(self.a.shape)
        return np.exp(g - p * self.log_b - (self.a + p) * self.log1p_s[..., j])

    def at_pair(self, first: int, n: int, p: float) -> tuple[np.ndarray, np.ndarray]:
        """(w(jh, p) for j = first..first+n-1, w(2jh, p) for the same j), sharing the exps
        of the indices both need (the even j < first+n): a quarter fewer exponentials, and
        each value is the same exp of the same argument as `at` would give."""
        lo, hi = first, first + n  # first sequence: [lo, hi); second: 2lo, 2lo+2, ..., 2hi-2
        tail = np.arange(hi + (hi % 2), 2 * hi - 1, 2)  # even indices the first one lacks
        both = self.at(np.concatenate([np.arange(lo, hi), tail]), p)
        evens = np.arange(2 * lo, 2 * hi - 1, 2)
        pos = np.where(evens < hi, evens - lo, n + (evens - hi - (hi % 2)) // 2)
        return both[..., :n], both[..., pos]


def _column(values: list[float]) -> np.ndarray:
    """Per-deployment scalars as a (k, 1, 1) column that broadcasts against (rows, steps)."""
    return np.asarray(values, dtype=float).reshape(-1, 1, 1)


def q_moments(belief: Belief, grid: Grid, naive: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """E[Q_n] and Var[Q_n] on the grid (eqs. 14, 25-27, 65, 69-74), one deployment."""
    h = grid.step_sizes[:, None]
    kern = _Kernel(_column([belief.mu[0]]), _column([belief.mu[1]]), h, grid.steps)
    e, v = _q_moments([belief], grid, kern, naive)
    return e[0], v[0]


def _q_moments(beliefs: list[Belief], grid: Grid, kern: _Kernel, naive: bool = False,
               variance: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
    n = grid.steps
    h = grid.step_sizes[:, None]
    e_lam, e2_lam, e_s1, e2_s1, e_sig2, nu = [], [], [], [], [], []
    for b in beliefs:
        a_l, b_l = b.lam
        a_s, b_s = b.sig
        el = a_l / b_l
        es = a_s / b_s
        vs = a_s / b_s**2
        e_lam.append(el)
        e2_lam.append(a_l / b_l**2 + el**2)
        e_s1.append(1.0 + es)
        e2_s1.append(vs + (1.0 + es) ** 2)
        e_sig2.append(vs + es**2 + 2.0 * es)  # E[σ(2+σ)]
        nu.append(b.nu)
    if len(set(nu)) != 1:
        raise ValueError("a batch shares ν (a population constant)")
    e_lam_c, e2_lam_c, e_s1_c, e2_s1_c, e_sig2_c = map(_column, (e_lam, e2_lam, e_s1, e2_s1, e_sig2))
    if not variance:
        return e_lam_c * e_s1_c * h * np.cumsum(kern.at(slice(0, n), nu[0]), axis=-1), None
    w1, w1_sq = kern.at_pair(0, n, nu[0])  # w(kh, ν) and w(2kh, ν), k < n
    c1 = np.cumsum(w1, axis=-1)
    mean = e_lam_c * e_s1_c * h * c1
    within = e_lam_c * h * (e_s1_c * c1 + e_sig2_c * np.cumsum(w1_sq, axis=-1))

    f2 = kern.at(slice(0, 2 * n - 1), 2.0 * nu[0])  # w((k+l)h, 2ν), k + l ≤ 2n-2
    dbl = _double_sum_naive(f2, n) if naive else _double_sum_fast(f2, n)
    between = h**2 * (e2_lam_c * e2_s1_c * dbl - (e_lam_c * e_s1_c * c1) ** 2)
    return mean, within + np.maximum(between, 0.0)


def moments(cores: int, belief: Belief, grid: Grid, variance: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """(E[L_n], Var[L_n]) arrays of shape grid.shape for a deployment with `cores` active."""
    e, v = moments_batch([cores], [belief], grid, variance)
    return e[0], v[0]


def moments_batch(cores: list[int], beliefs: list[Belief], grid: Grid,
                  variance: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """moments() of k deployments at once, as (k, rows, steps) arrays.

    One numpy pass over all k instead of k passes: a moment evaluation on the 5 x 600 grid is
    some forty array operations, each too small to amortise numpy's per-call cost, and the
    engine needs ~27 evaluations per admission on a busy 20,000-core cluster. Row i is
    bit-identical to the one-deployment computation (tests/policies/moments/test_moments_batch.py).
    With variance=False only E is computed (the first moment policy needs nothing else) and
    Var is returned as zeros: half the logarithms and under half the exponentials, and the
    same E bit for bit.
    """
    n = grid.steps
    h = grid.step_sizes[:, None]
    t = np.arange(1, n + 1)[None, :] * h
    a_m = _column([b.mu[0] for b in beliefs])
    b_m = _column([b.mu[1] for b in beliefs])
    c = np.asarray(cores).reshape(-1, 1, 1)

    kern = _Kernel(a_m, b_m, h, n, None if variance else n)
    e_q, v_q = _q_moments(beliefs, grid, kern, variance=variance)

    # B_n (eqs. 15, 28, 76-77): each current core survives with p = e^{-μ t}.
    if variance:
        p1, p2 = kern.at_pair(1, n, 0.0)  # p at steps k = 1..n and at 2k
    else:
        p1 = kern.at(slice(1, n + 1), 0.0)
    e_b = c * p1

    # M_n (eqs. 68, 78): the maximum lifetime is Exp(Δμ). A per-deployment power (numpy
    # special-cases some scalar exponents, so a broadcast exponent could round differently).
    e_m = np.stack([_w(b.delta * t, 0.0, *b.mu) for b in beliefs])

    # D_n (eqs. 16-17, 66): probability all cores are dead at step i, both the C current cores
    # and E[Y]E[S] expected cores from each earlier step; then a running product.
    e_y_s = _column([(b.lam[0] / b.lam[1]) * float(_w(np.zeros(1), b.nu, *b.mu)[0]) for b in beliefs]) * h * _column(
        [1.0 + b.sig[0] / b.sig[1] for b in beliefs])
    log_dead_k = np.log1p(-np.minimum(p1, 1.0 - 1e-12))  # index k-1 holds age k = 1..n
    log_dead_now = c * log_dead_k
    prior_steps = np.concatenate([np.zeros(log_dead_k.shape[:-1] + (1,)), np.cumsum(log_dead_k, axis=-1)[..., :-1]], axis=-1)
    # 1 − P(all dead) as −expm1: a plain 1 − exp cancels where the deployment is almost
    # surely dead (its relative error grows as 1/P(alive)).
    e_d = np.cumprod(-np.expm1(log_dead_now + e_y_s * prior_steps), axis=-1)

    size = e_q + e_b
    e_l = e_m * e_d * size
    if v_q is None:
        return e_l, np.zeros_like(e_l)
    v_b = c * (p1 - p2) + c**2 * (p2 - p1**2)
    v_m = e_m * (1.0 - e_m)
    v_d = e_d - e_d**2
    v_size = v_q + v_b
    v_dqb = e_d**2 * v_size + size**2 * v_d + v_d * v_size  # eqs. 23-24
    v_l = e_m**2 * v_dqb + v_m * (e_d * size) ** 2 + v_m * v_dqb  # eqs. 21-22
    return e_l, v_l
