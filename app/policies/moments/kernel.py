"""The moments of formulas.py as one compiled loop per deployment and grid row.

formulas.moments_batch is the derivation written as numpy array expressions; it stays the
reference. Each of its ~40 expressions walks a (k, 5, 1201) array, so a deployment costs
~1 ms of CPU on the 5 x 600 grid, of which the ~10 exponentials and logarithms a grid point
needs are under a third (this kernel, which does little else, takes 0.3 ms): the rest is
memory traffic of the temporaries and numpy's per-call cost. Here each row is one pass that
keeps its running sums in registers and computes each exponential once, reused for every
Gamma expectation that shares it:

  x_j = log(b + j·h),  u_j = (b/(b + j·h))^a = w(jh, 0),  y_j = (b + j·h)^{-ν},
  w(jh, ν) = Γ(a+ν)/Γ(a) · u_j y_j,   w(jh, 2ν) = Γ(a+2ν)/Γ(a) · u_j y_j².

The results agree with formulas.moments_batch to rounding (tests/unit/moments/test_kernel.py
checks 1e-8 of each row on random beliefs), not bit for bit: exp(-(a+ν)x) and u·y round
differently. Every row is computed alone, so a deployment's moments do not depend on its
batch, and the engine caches, persists and rebuilds them with this kernel only.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from app.policies.moments.formulas import Belief, Grid

_EXP_ZERO = -746.0  # math.exp of anything at or below is 0.0


def _jit(f):  # type: ignore[no-untyped-def]
    """Compiled once per machine and cached (~2-4 s to compile, ~0.1 s to load). numba caches
    beside the module or in the user's cache directory, and refuses the function outright if
    it can write neither (a read-only install run by a user without a home: the image sets
    NUMBA_CACHE_DIR for that); then each process compiles it for itself.
    No fastmath: several processes share a database and must agree, so the compiled code keeps
    IEEE order of operations (the same on every machine of one CPU family, as numpy's own
    SIMD loops are)."""
    try:
        return njit(cache=True, nogil=True)(f)
    except RuntimeError:  # "cannot cache function ...: no locator available"
        return njit(nogil=True)(f)


@_jit
def _row(out_e: np.ndarray, out_v: np.ndarray, c: float, a: float, b: float, g1: float, g2: float,
         el: float, e2l: float, es1: float, e2s1: float, esig2: float, eys: float, delta: float,
         nu: float, h: float, n: int, variance: bool, u: np.ndarray, y: np.ndarray,
         f_pre: np.ndarray) -> None:
    log_b = math.log(b)
    top = 2 * n if variance else n
    for j in range(top + 1):
        x = math.log(b + j * h)
        u[j] = math.exp(a * (log_b - x))
        y[j] = math.exp(-nu * x)
    if variance:  # exclusive prefix sums of w(jh, 2ν), j <= 2n-2, for the double sum
        f_pre[0] = 0.0
        for j in range(2 * n - 1):
            f_pre[j + 1] = f_pre[j] + g2 * u[j] * y[j] * y[j]
    c1 = 0.0  # Σ_{k<m} w(kh, ν)
    c_sq = 0.0  # Σ_{k<m} w(2kh, ν)
    dbl = 0.0  # Σ_{k,l<m} w((k+l)h, 2ν)
    prior = 0.0  # Σ_{i<m} log P(a core of age i·h is dead)
    e_d = 1.0
    eys_h = eys * h
    settled = False  # e_d can no longer change (below)
    for m in range(1, n + 1):
        k = m - 1
        c1 += g1 * u[k] * y[k]
        e_q = el * es1 * h * c1
        p1 = u[m]
        # B_n, M_n, D_n (formulas.moments_batch): survival of current cores, the maximum
        # lifetime, and the probability that every core born so far is dead.
        e_b = c * p1
        e_m = math.exp(a * (log_b - math.log(b + delta * (m * h))))
        # exp(x) is exactly 0 below -745.14, and then e_d is multiplied by exactly 1: skipping
        # the exponential changes no bit. The exponent is c·log_dead + eys_h·prior with both
        # terms <= 0 and prior decreasing in m, so once eys_h·prior is that low it stays so,
        # and neither log_dead nor the exponential is needed for the rest of the row (on the
        # long horizons, most of it).
        if not settled:
            log_dead = math.log1p(-min(p1, 1.0 - 1e-12))
            arg = c * log_dead + eys_h * prior
            if arg > _EXP_ZERO:
                e_d *= 1.0 - math.exp(arg)
            prior += log_dead
            settled = eys_h * prior <= _EXP_ZERO
        size = e_q + e_b
        out_e[k] = e_m * e_d * size
        if not variance:
            continue
        c_sq += g1 * u[2 * k] * y[2 * k]
        within = el * h * (es1 * c1 + esig2 * c_sq)
        dbl += 2.0 * (f_pre[2 * m - 2] - f_pre[m - 1]) + g2 * u[2 * m - 2] * y[2 * m - 2] ** 2
        between = h * h * (e2l * e2s1 * dbl - (el * es1 * c1) ** 2)
        v_q = within + max(between, 0.0)
        p2 = u[2 * m]
        v_b = c * (p1 - p2) + c * c * (p2 - p1 * p1)
        v_m = e_m * (1.0 - e_m)
        v_d = e_d - e_d * e_d
        v_size = v_q + v_b
        v_dqb = e_d * e_d * v_size + size * size * v_d + v_d * v_size
        out_v[k] = e_m * e_m * v_dqb + v_m * (e_d * size) ** 2 + v_m * v_dqb


@_jit
def _batch(params: np.ndarray, h: np.ndarray, n: int, variance: bool) -> tuple[np.ndarray, np.ndarray]:
    k, rows = params.shape[0], h.shape[0]
    out_e = np.zeros((k, rows, n))
    out_v = np.zeros((k, rows, n))
    u = np.empty(2 * n + 1)
    y = np.empty(2 * n + 1)
    f_pre = np.empty(2 * n)
    for i in range(k):
        p = params[i]
        for r in range(rows):
            _row(out_e[i, r], out_v[i, r], p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8],
                 p[9], p[10], p[11], p[12], h[r], n, variance, u, y, f_pre)
    return out_e, out_v


def _params(cores: int, b: Belief) -> list[float]:
    """The scalars a deployment's row needs; the Gamma-function ratios come from math.lgamma,
    as in formulas.py."""
    a_m, b_m = b.mu
    a_l, b_l = b.lam
    a_s, b_s = b.sig
    el, es, vs = a_l / b_l, a_s / b_s, a_s / b_s**2
    g1 = math.exp(math.lgamma(a_m + b.nu) - math.lgamma(a_m))
    g2 = math.exp(math.lgamma(a_m + 2.0 * b.nu) - math.lgamma(a_m))
    e_mu_nu = g1 * b_m ** (-b.nu)  # E[μ^ν]
    return [float(cores), a_m, b_m, g1, g2, el, a_l / b_l**2 + el**2, 1.0 + es,
            vs + (1.0 + es) ** 2, vs + es**2 + 2.0 * es, el * e_mu_nu * (1.0 + es), b.delta, b.nu]


def moments_batch(cores: list[int], beliefs: list[Belief], grid: Grid,
                  variance: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """formulas.moments_batch, compiled: (E[L_n], Var[L_n]) as (k, rows, steps) arrays; with
    variance=False only E (Var zeros), E the same numbers either way."""
    if len({b.nu for b in beliefs}) > 1:
        raise ValueError("a batch shares ν (a population constant)")
    params = np.array([_params(c, b) for c, b in zip(cores, beliefs)], dtype=float).reshape(len(cores), 13)
    return _batch(params, grid.step_sizes, grid.steps, variance)


def moments(cores: int, belief: Belief, grid: Grid, variance: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """(E[L_n], Var[L_n]) of one deployment, arrays of shape grid.shape."""
    e, v = moments_batch([cores], [belief], grid, variance)
    return e[0], v[0]
