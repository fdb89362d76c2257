"""The moments of formulas.py, compiled: one pass per deployment and grid row.

formulas.moments_batch is the derivation written as numpy array expressions; it stays the
reference. Each of its ~40 expressions walks a (k, 5, 1201) array, so a deployment costs
~1 ms of CPU on the 5 x 600 grid: memory traffic of the temporaries and numpy's per-call
cost. Here each row computes each exponential once, reused for every Gamma expectation that
shares it:

  x_j = log(b + j·h),  u_j = (b/(b + j·h))^a = w(jh, 0),  y_j = (b + j·h)^{-ν},
  w(jh, ν) = Γ(a+ν)/Γ(a) · u_j y_j,   w(jh, 2ν) = Γ(a+2ν)/Γ(a) · u_j y_j².

What is left is ~6,000 exponentials and logarithms per row (u_j, y_j, M_n's and D_n's
factors), so a row is laid out as passes that the compiler vectorises: first those tables,
with the exp and log below (~1 ns per element, where the C library's take ~3 ns one at a
time and no loop around them can be vectorised), then the running sums (the only
recurrences), then the moments of every step from them (docs/benchmarks.md has the
figures: `python -m app.bench.moments --kernel`).

The results agree with formulas.moments_batch to rounding (tests/policies/moments/test_kernel.py
checks 1e-8 of each row on random beliefs), not bit for bit: exp(-(a+ν)x) and u·y round
differently. Every row is computed alone, so a deployment's moments do not depend on its
batch, and the engine caches, persists and rebuilds them with this kernel only. No fast-math:
several processes share a database and must agree, so the compiled code keeps IEEE order of
operations (no reordering, no fused multiply-add but the exp and log polynomials' explicit
ones, which IEEE 754 specifies exactly too); the exp and log below are plain arithmetic,
so the tables no longer depend on which C library a machine has (the few calls left, log(b)
and the Gamma ratios, still do).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numba import njit, types
from numba.core.extending import intrinsic

from app.policies.moments.formulas import Belief, Grid, log_gamma_ratio

# exp(t) ≤ 2^-54 at t ≤ -37.5 (exp(-37.5) = 5.2e-17 < 5.55e-17, far beyond vexp's 1 ulp), so
# 1 − exp(t) rounds to exactly 1.0 there: D_n's factor changes nothing and is skipped.
D_ONE = -37.5
D_CHUNK = 64  # D_n's logs are taken this many steps at a time until its factors are all 1
# Which rounding the moments below have: bump it with any change that alters a single bit of
# them. The engine stamps its states with it, and a state stamped by another kernel re-sums
# its totals from the caches this one rebuilds (engine.from_state). 1: vectorised exp and log
# with explicit fused multiply-adds. 2: survival tables from log1p, D_n's factors from expm1
# where they cancel and the Gamma ratios from formulas.log_gamma_ratio.
ROUNDING = 2


def compiled(f):  # type: ignore[no-untyped-def]
    """Compiled once per machine and cached (a few seconds to compile, ~0.1 s to load). numba
    caches beside the module or in the user's cache directory, and refuses the function
    outright if it can write neither (a read-only install run by a user without a home: the
    image sets NUMBA_CACHE_DIR for that); then each process compiles it for itself. numba's
    cache does not notice a change in another module a cached function calls, which is why
    a compiled function calls only compiled functions of its own file (the moments here,
    the admission rules' scan in policies.py).
    error_model="numpy" drops numba's check for a division by zero, whose branch stops the
    vectoriser, and divides as IEEE 754 does (policies.py relies on 0 / 0 being NaN)."""
    try:
        return njit(cache=True, nogil=True, error_model="numpy")(f)
    except RuntimeError:  # "cannot cache function ...: no locator available"
        return njit(nogil=True, error_model="numpy")(f)


# ---- exp and log that vectorise ------------------------------------------------------------
# Range reduction and a polynomial in plain IEEE arithmetic, the polynomials' Horner steps as
# explicit fused multiply-adds (_fma: a third faster than a multiply and an add, and exactly
# specified by IEEE 754, so still the same bits everywhere). Within 1 ulp of the C library
# wherever the result is a normal number (tests/policies/moments/test_vmath.py). exp below -708
# is 0 where the C library gives a subnormal (under 2.3e-308; D_n meets such exponents all the
# time, and the C library is slow there). Anything else outside the polynomials' range (log
# of zero, negatives, subnormals, infinities, NaN; exp above 709 or of NaN) is recomputed by
# math.log / math.exp in a cheap second pass, so those edge cases are the C library's.
# No tables (2^(j/64), logarithm buckets): as accurate, but their lookups (gathers) are
# slower here, 1.2 and 1.9 ns per element.
@intrinsic
def _fma(typingctx, a, b, c):  # type: ignore[no-untyped-def]
    """a·b + c rounded once (llvm.fma): IEEE 754's fused multiply-add, the same bits on every
    machine: one instruction where the CPU has it (x86-64 since Haswell and Piledriver, every
    arm64), elsewhere a call to the C library's fma, which is exact too, only slow. Unlike
    letting the compiler contract a·b + c where it likes (fast-math), the code says where."""
    sig = types.float64(types.float64, types.float64, types.float64)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return builder.fma(*args)

    return sig, codegen


LN2_HI = 6.93147180369123816490e-01  # ln 2 split so that k·LN2_HI is exact for |k| < 2^21
LN2_LO = 1.90821492927058770002e-10
INV_LN2 = 1.44269504088896338700e00
SHIFT = 6755399441055744.0  # 1.5·2^52: x + SHIFT - SHIFT rounds x to the nearest integer
EXP_MIN, EXP_MAX = -708.0, 709.0  # 2^k stays a normal number in between
DBL_MIN, DBL_MAX = 2.2250738585072014e-308, 1.7976931348623157e308
MANTISSA = 0x000FFFFFFFFFFFFF
ONE = 0x3FF0000000000000  # the bits of 1.0
SQRT2_MANTISSA = 0x6A09E667F3BCD  # mantissa bits of √2


# Coefficients, highest power first: e^r = Σ_{k≤13} r^k/k!, and atanh's series in z = s²
# from z^10/23 down to 1/3 (vlog uses 2 z q for R).
EXP_TAYLOR = tuple(1.0 / math.factorial(k) for k in range(13, -1, -1))
# (e^r − 1)/r = Σ_{k≥1} r^(k−1)/k! to r^13/14! (|r| ≤ ln2/2: remainder < 5e-18 relative).
EXPM1_TAYLOR = tuple(1.0 / math.factorial(k) for k in range(14, 0, -1))
ATANH_SERIES = tuple(1.0 / (2 * k + 1) for k in range(11, 0, -1))


@compiled
def _horner(coefficients: tuple[float, ...], x: float) -> float:
    """Σ c_k x^k by Horner's rule with fused multiply-adds, coefficients highest power first
    (a constant tuple: numba unrolls the loop)."""
    p = coefficients[0]
    for c in coefficients[1:]:
        p = _fma(p, x, c)
    return p


@compiled
def vexp(x: np.ndarray, out: np.ndarray, n: int, scratch: np.ndarray) -> None:
    """out[:n] = exp(x[:n]); scratch: n int64s. x = k·ln2 + r with |r| ≤ ln2/2, e^r by its
    Taylor series to r^13 (remainder < 5e-18 relative), then 2^k added to the exponent bits."""
    for i in range(n):
        xi = min(max(x[i], EXP_MIN), EXP_MAX)
        k = (xi * INV_LN2 + SHIFT) - SHIFT
        r = _fma(-k, LN2_LO, _fma(-k, LN2_HI, xi))
        out[i] = _horner(EXP_TAYLOR, r)
        scratch[i] = np.int64(k)
    bits = out.view(np.int64)
    for i in range(n):
        bits[i] += scratch[i] << 52
    for i in range(n):
        xi = x[i]
        if xi < EXP_MIN:
            out[i] = 0.0
        elif not xi <= EXP_MAX:  # overflow, NaN
            out[i] = math.exp(xi)


@compiled
def vexp_complement(x: np.ndarray, out: np.ndarray, n: int, scratch: np.ndarray, spare: np.ndarray) -> None:
    """out[:n] = 1 − exp(x[:n]) to a few ulps, also where exp(x) is near 1; scratch: n int64s,
    spare: n doubles. vexp's reduction x = k·ln2 + r, its series written as e^r = 1 + r·p(r)
    (p to r^13/14!): where k = 0 (|x| ≤ ln2/2) the answer is −r·p, which cancels nothing;
    elsewhere exp(x) ≤ 0.71 (or ≥ 1.41) and 1 − exp(x) cancels at most ~2.5 ulps' worth."""
    for i in range(n):
        xi = min(max(x[i], EXP_MIN), EXP_MAX)
        k = (xi * INV_LN2 + SHIFT) - SHIFT
        r = _fma(-k, LN2_LO, _fma(-k, LN2_HI, xi))
        p = _horner(EXPM1_TAYLOR, r)
        spare[i] = r * p
        out[i] = _fma(r, p, 1.0)
        scratch[i] = np.int64(k)
    bits = out.view(np.int64)
    for i in range(n):
        bits[i] += scratch[i] << 52
    for i in range(n):
        out[i] = 0.0 - spare[i] if scratch[i] == 0 else 1.0 - out[i]  # 0 − (+0) is +0
    for i in range(n):
        xi = x[i]
        if xi < EXP_MIN:
            out[i] = 1.0
        elif not xi <= EXP_MAX:  # overflow, NaN
            out[i] = 1.0 - math.exp(xi)


@compiled
def vlog(x: np.ndarray, out: np.ndarray, n: int, scratch: np.ndarray) -> None:
    """out[:n] = log(x[:n]); scratch: n int64s; out must not be x. x = 2^e·m with
    m in [√2/2, √2), and log m = 2·atanh(s), s = (m−1)/(m+1), as f − (f²/2 − s(f²/2 + R))
    with R = 2 Σ_{k≥1} s^{2k}/(2k+1) to k = 11 (|s| ≤ 0.172: remainder < 1e-20)."""
    xb = x.view(np.int64)
    ob = out.view(np.int64)
    for i in range(n):
        ix = xb[i]
        mant = ix & MANTISSA
        big = ((SQRT2_MANTISSA - mant) >> 63) & 1  # 1 when the mantissa is above √2's: halve it
        scratch[i] = (ix >> 52) - 1023 + big
        ob[i] = (mant | ONE) - (big << 52)
    for i in range(n):
        f = out[i] - 1.0
        e = np.float64(scratch[i])
        s = f / (2.0 + f)
        z = s * s
        q = _horner(ATANH_SERIES, z)
        half_f2 = 0.5 * f * f
        out[i] = _fma(e, LN2_HI, f - (half_f2 - _fma(s, _fma(z, 2.0 * q, half_f2), e * LN2_LO)))
    for i in range(n):
        xi = x[i]
        if not (xi >= DBL_MIN and xi <= DBL_MAX):
            out[i] = math.log(xi)


@compiled
def _log1p_fix(logs: np.ndarray, w: np.ndarray, z: np.ndarray, n: int) -> None:
    """logs[:n] = log1p(z) for z ≥ 0, from logs = log(w) with w = 1 + z as rounded:
    log(w) + d/w with d = z − (w − 1) the rounding of 1 + z (w − 1 is exact for w < 2), and
    1/w taken as 1 − z: that costs d·z²/(1 + z) ≤ ε z²/2, within an ulp of log1p(z); for
    z > 1 the correction is left out (|d/w| ≤ ε/2 against log(w) > 0.69). Where w rounds
    to 1 this is z(1 − z), which is z as rounded. No division: the loop vectorises."""
    for i in range(n):
        zi = z[i]
        logs[i] = logs[i] + (zi - (w[i] - 1.0)) * max(1.0 - zi, 0.0)


@compiled
def _row(out_e: np.ndarray, out_v: np.ndarray, c: float, a: float, b: float, g1: float, g2: float,
         el: float, e2l: float, es1: float, e2s1: float, esig2: float, eys: float, delta: float,
         nu: float, h: float, n: int, variance: bool, s: np.ndarray, d_one: float) -> None:
    """One grid row of one deployment: E[L_n] into out_e, Var[L_n] into out_v (if variance)."""
    # Scratch rows of s (2n+1 each): the tables, then the running sums.
    u, y, x, t, e_m, e_d, c1, c_sq, dbl, f_pre = s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9]
    ks = s[10].view(np.int64)
    top = 2 * n + 1 if variance else n + 1
    _gamma_tables(u, y, x, t, e_m, e_d, a, b, nu, delta, h, n, top, ks)
    first, stop = _death_factors(x, t, u, c1, c, eys * h, n, ks, d_one)
    _running_sums(c1, c_sq, f_pre, u, y, g1, g2, n, variance)
    _death_products(e_d, dbl, f_pre, x, t, u, y, g2, first, stop, n, variance, d_one)
    if not variance:
        for k in range(n):
            out_e[k] = e_m[k] * e_d[k] * (el * es1 * h * c1[k] + c * u[k + 1])
        return
    _step_moments(out_e, out_v, u, e_m, e_d, c1, c_sq, dbl, c, el, e2l, es1, e2s1, esig2, h, n)


@compiled
def _gamma_tables(u: np.ndarray, y: np.ndarray, x: np.ndarray, t: np.ndarray, e_m: np.ndarray,
                  e_d: np.ndarray, a: float, b: float, nu: float, delta: float, h: float, n: int,
                  top: int, ks: np.ndarray) -> None:
    """The tables, each a vectorised pass: u_j, y_j, then M_n's e_m.

    (b / (b + s))^a as exp(−a·log1p(s/b)), not exp(a·(log b − log(b + s))): that
    difference of two logs carries their rounding, ~|log b|·ε, and a (in the thousands once
    μ is well known) multiplies it into the exponent: 1e-12 relative in u, which Var[B_n]'s
    c²(p2 − p1²) turns into visible error. log1p(z) is log(1 + z) corrected for the
    rounding of 1 + z (_log1p_fix). y_j = (b + jh)^−ν from the same log."""
    log_b = math.log(b)
    inv_b = 1.0 / b
    for j in range(top):
        t[j] = (j * h) * inv_b
        y[j] = 1.0 + t[j]
    vlog(y, x, top, ks)
    _log1p_fix(x, y, t, top)
    for j in range(top):
        t[j] = -a * x[j]
    vexp(t, u, top, ks)
    for j in range(top):
        t[j] = -nu * (log_b + x[j])
    vexp(t, y, top, ks)
    for m in range(n):
        t[m] = (delta * ((m + 1) * h)) * inv_b
        e_d[m] = 1.0 + t[m]
    vlog(e_d, x, n, ks)
    _log1p_fix(x, e_d, t, n)
    for m in range(n):
        t[m] = -a * x[m]
    vexp(t, e_m, n, ks)


@compiled
def _death_factors(x: np.ndarray, t: np.ndarray, u: np.ndarray, spare: np.ndarray, c: float,
                   eys_h: float, n: int, ks: np.ndarray, d_one: float) -> tuple[int, int]:
    """D_n's factors 1 − exp(t_m) into x[first:stop] (formulas.moments_batch), their
    exponents in t; (first, stop): from `stop` on every factor is exactly 1, and below
    `first` too where an exponent is at or below d_one.

    The exponents are t_m = c·log P(a core of age (m+1)·h is dead) + E[Y]E[S]h · Σ_{i<m}
    (the same logs). The logs are a running sum of log1p(−p), here log(w)·(−p)/(w − 1) with
    w = 1 − p (Goldberg's log1p, exact where w rounds to 1). Both terms of t_m are ≤ 0 and
    the second only falls with m, so once it is at or below D_ONE every later exponent is
    too, and 1 − exp(t) rounds to exactly 1 there: the logs are taken in chunks until then,
    and the exponentials only from the first step whose exponent is above D_ONE: the same
    bits, without 45% of these logs and 64% of these exponentials (the rows of the first
    half year of a 20,000-core second-moment life, seed 0)."""
    prior = 0.0
    stop = n
    lo = 0
    while lo < n and stop == n:
        hi = min(lo + D_CHUNK, n)
        for m in range(lo, hi):
            t[m] = 1.0 - min(u[m + 1], 1.0 - 1e-12)
        vlog(t[lo:hi], x[lo:hi], hi - lo, ks)
        for m in range(lo, hi):
            tail = eys_h * prior
            if tail <= d_one:
                stop = m
                break
            q = -min(u[m + 1], 1.0 - 1e-12)  # x[m] = log P(a core of age (m+1)·h is dead)
            xm = q if t[m] == 1.0 else x[m] * (q / (t[m] - 1.0))
            t[m] = c * xm + tail
            prior += xm
        lo = hi
    first = 0
    while first < stop and t[first] <= d_one:
        first += 1
    # 1 − exp(t_m) cancels where exp(t_m) is near 1 (every core dead by then almost surely):
    # vexp_complement keeps it to a few ulps there too (`spare` is free until the sums).
    vexp_complement(t[first:stop], x[first:stop], stop - first, ks, spare[first:stop])
    return first, stop


@compiled
def _running_sums(c1: np.ndarray, c_sq: np.ndarray, f_pre: np.ndarray, u: np.ndarray,
                  y: np.ndarray, g1: float, g2: float, n: int, variance: bool) -> None:
    """The recurrences, interleaved so that the processor overlaps their chains of additions:
    c1[k] = Σ_{i≤k} w(ih, ν), c_sq[k] = Σ_{i≤k} w(2ih, ν), and f_pre, the exclusive prefix
    sums of w(jh, 2ν) for the double sum, as two half-sums (even and odd j) so that no chain
    is twice as long."""
    acc1 = 0.0
    acc_sq = 0.0
    even = 0.0
    odd = 0.0
    for k in range(n):
        acc1 += g1 * u[k] * y[k]
        c1[k] = acc1
        if variance:
            acc_sq += g1 * u[2 * k] * y[2 * k]
            c_sq[k] = acc_sq
            f_pre[2 * k] = even + odd
            even += g2 * u[2 * k] * y[2 * k] * y[2 * k]
            f_pre[2 * k + 1] = even + odd
            odd += g2 * u[2 * k + 1] * y[2 * k + 1] * y[2 * k + 1]


@compiled
def _death_products(e_d: np.ndarray, dbl: np.ndarray, f_pre: np.ndarray, x: np.ndarray,
                    t: np.ndarray, u: np.ndarray, y: np.ndarray, g2: float, first: int,
                    stop: int, n: int, variance: bool, d_one: float) -> None:
    """e_d[m-1] = D_m, the running product of D's factors, and dbl[m-1] = Σ_{k,l<m}
    w((k+l)h, 2ν), Q_n's double sum."""
    prod = 1.0
    acc = 0.0
    for m in range(1, n + 1):
        if first < m <= stop and t[m - 1] > d_one:
            prod *= x[m - 1]
        e_d[m - 1] = prod
        if variance:
            acc += 2.0 * (f_pre[2 * m - 2] - f_pre[m - 1]) + g2 * u[2 * m - 2] * y[2 * m - 2] ** 2
            dbl[m - 1] = acc


@compiled
def _step_moments(out_e: np.ndarray, out_v: np.ndarray, u: np.ndarray, e_m: np.ndarray,
                  e_d: np.ndarray, c1: np.ndarray, c_sq: np.ndarray, dbl: np.ndarray, c: float,
                  el: float, e2l: float, es1: float, e2s1: float, esig2: float, h: float,
                  n: int) -> None:
    """E[L_n] and Var[L_n] of every step from the tables and sums (no recurrence left:
    vectorised): L_n = M_n · D_n · (Q_n + B_n), its factors independent."""
    for k in range(n):
        m = k + 1
        e_q = el * es1 * h * c1[k]
        p1 = u[m]
        size = e_q + c * p1  # Q_n + B_n
        em, ed = e_m[k], e_d[k]
        out_e[k] = em * ed * size
        within = el * h * (es1 * c1[k] + esig2 * c_sq[k])
        between = h * h * (e2l * e2s1 * dbl[k] - (el * es1 * c1[k]) ** 2)
        v_q = within + max(between, 0.0)
        p2 = u[2 * m]
        v_b = c * (p1 - p2) + c * c * (p2 - p1 * p1)
        v_m = em * (1.0 - em)
        v_d = ed - ed * ed
        v_size = v_q + v_b
        v_dqb = ed * ed * v_size + size * size * v_d + v_d * v_size
        out_v[k] = em * em * v_dqb + v_m * (ed * size) ** 2 + v_m * v_dqb


@compiled
def _deployment(p: np.ndarray, h: np.ndarray, n: int, variance: bool, out_e: np.ndarray, out_v: np.ndarray,
                s: np.ndarray, d_one: float = D_ONE) -> bool:
    """All rows of one deployment; False if any moment is not a finite number. d_one: D_ONE,
    or -inf to compute every factor of D_n (tests/policies/moments/test_kernel.py: the same bits)."""
    finite = True
    for r in range(h.shape[0]):
        _row(out_e[r], out_v[r], p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10],
             p[11], p[12], h[r], n, variance, s, d_one)
        for k in range(n):
            finite &= np.isfinite(out_e[r, k]) & np.isfinite(out_v[r, k])
    return finite


@compiled
def retotal(tot_e: np.ndarray, tot_v: np.ndarray, old_e: np.ndarray, old_v: np.ndarray, new_e: np.ndarray,
            new_v: np.ndarray, has_old: bool, has_new: bool) -> None:
    """The engine's cluster totals with one deployment's cached moments replaced: tot −= old,
    then tot += new, element by element (the bits of numpy's `tot -= old; tot += new`, in one
    call instead of four: ~10% of a 20,000-core life was those four calls' overhead)."""
    rows, steps = tot_e.shape
    for r in range(rows):
        for k in range(steps):
            e, v = tot_e[r, k], tot_v[r, k]
            if has_old:
                e = e - old_e[r, k]
                v = v - old_v[r, k]
            if has_new:
                e = e + new_e[r, k]
                v = v + new_v[r, k]
            tot_e[r, k], tot_v[r, k] = e, v


class NotFinite(ValueError):
    """A belief whose moments are not all finite numbers (the `index`-th of a batch)."""

    def __init__(self, index: int) -> None:
        super().__init__(f"the belief of deployment {index} of the batch gives moments that are not finite")
        self.index = index


def _params(cores: int, b: Belief) -> list[float]:
    """The scalars a deployment's row needs; the Gamma-function ratios are formulas.py's."""
    a_m, b_m = b.mu
    a_l, b_l = b.lam
    a_s, b_s = b.sig
    el, es, vs = a_l / b_l, a_s / b_s, a_s / b_s**2
    g1 = math.exp(log_gamma_ratio(a_m, b.nu))
    g2 = math.exp(log_gamma_ratio(a_m, 2.0 * b.nu))
    e_mu_nu = g1 * b_m ** (-b.nu)  # E[μ^ν]
    return [float(cores), a_m, b_m, g1, g2, el, a_l / b_l**2 + el**2, 1.0 + es,
            vs + (1.0 + es) ** 2, vs + es**2 + 2.0 * es, el * e_mu_nu * (1.0 + es), b.delta, b.nu]


def moments_each(cores: list[int], beliefs: list[Belief], grid: Grid,
                 variance: bool = True) -> list[tuple[np.ndarray, np.ndarray]]:
    """(E[L_n], Var[L_n]) of each deployment, arrays of shape grid.shape; with variance=False
    only E (Var zeros), E the same numbers either way. NotFinite if a moment is not a finite
    number (the engine's last line of defence behind the request bounds).

    Each deployment gets arrays of its own (48 KB on the 5 x 600 grid), which is what the
    engine caches: one (k, rows, steps) array for a batch of twenty is ~1 MB, which the C
    library maps fresh from the kernel on every call, and its page faults cost as much as a
    third of the moments themselves (measured in docs/benchmarks.md)."""
    if len({b.nu for b in beliefs}) > 1:
        raise ValueError("a batch shares ν (a population constant)")
    h, n = grid.step_sizes, grid.steps
    scratch = np.empty((11, 2 * n + 1))
    out = []
    for c, b in zip(cores, beliefs):
        e = np.empty(grid.shape)
        v = np.empty(grid.shape) if variance else np.zeros(grid.shape)
        if not _deployment(np.array(_params(c, b)), h, n, variance, e, v, scratch):
            raise NotFinite(len(out))
        out.append((e, v))
    return out


def moments_batch(cores: list[int], beliefs: list[Belief], grid: Grid,
                  variance: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """formulas.moments_batch, compiled: (E[L_n], Var[L_n]) as (k, rows, steps) arrays."""
    each = moments_each(cores, beliefs, grid, variance)
    if not each:
        return np.zeros((0, *grid.shape)), np.zeros((0, *grid.shape))
    return np.stack([e for e, _ in each]), np.stack([v for _, v in each])


def moments(cores: int, belief: Belief, grid: Grid, variance: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """(E[L_n], Var[L_n]) of one deployment, arrays of shape grid.shape."""
    return moments_each([cores], [belief], grid, variance)[0]


@dataclass(frozen=True)
class MomentKernel:
    """How an engine computes deployments' moments on its grid: ``moments`` for one,
    ``moments_each`` for a batch, each result in arrays of its own. The engine takes one so
    that a benchmark or a test can run it on another implementation (formulas.py's numpy
    reference) without touching this module."""

    moments: Callable[[int, Belief, Grid, bool], tuple[np.ndarray, np.ndarray]]
    moments_each: Callable[[list[int], list[Belief], Grid, bool],
                           list[tuple[np.ndarray, np.ndarray]]]


COMPILED = MomentKernel(moments, moments_each)
