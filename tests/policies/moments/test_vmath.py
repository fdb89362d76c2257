"""The kernel's own exp and log (kernel.vexp, kernel.vlog) against the C library's (numpy's)."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from app.policies.moments.kernel import _log1p_fix, vexp, vexp_complement, vlog


def _exp(x: np.ndarray) -> np.ndarray:
    out = np.empty_like(x)
    vexp(x, out, x.size, np.empty(x.size, dtype=np.int64))
    return out


def _log(x: np.ndarray) -> np.ndarray:
    out = np.empty_like(x)
    vlog(x, out, x.size, np.empty(x.size, dtype=np.int64))
    return out


def _ulps(x: np.ndarray, ref: np.ndarray) -> float:
    return float((np.abs(x - ref) / np.spacing(np.abs(ref))).max())


def test_exp_is_within_one_ulp_where_the_result_is_normal() -> None:
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.uniform(-708, 709, 200_000), rng.uniform(-1, 1, 100_000), np.arange(-708, 710, dtype=float)])
    assert _ulps(_exp(x), np.exp(x)) <= 1.0
    assert _exp(np.zeros(1))[0] == 1.0


def test_log_is_within_one_ulp_on_normal_numbers() -> None:
    rng = np.random.default_rng(1)
    x = np.concatenate([np.exp(rng.uniform(-707, 709, 200_000)), rng.uniform(0.5, 2.0, 100_000),
                        1.0 + rng.uniform(-1e-9, 1e-9, 1000), [2.2250738585072014e-308, 1.7976931348623157e308]])
    ref = np.log(x)
    got = _log(x)
    near_one = ref == 0.0
    assert np.array_equal(got[near_one], ref[near_one])
    assert _ulps(got[~near_one], ref[~near_one]) <= 1.0
    assert _log(np.ones(1))[0] == 0.0


def test_edge_cases() -> None:
    """Below -708 exp is 0 (the C library: a subnormal under 2.3e-308); everything else outside
    the polynomials' range is the C library's own answer."""
    x = np.array([-708.5, -745.0, -800.0, -np.inf, 709.5, 710.0, np.inf, np.nan])
    got = _exp(x)
    assert np.array_equal(got[:4], np.zeros(4))
    assert got[4] == math.exp(709.5) and got[5] == np.inf and got[6] == np.inf and np.isnan(got[7])
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.array([0.0, -1.0, 5e-324, 1e-310, np.inf, np.nan, -np.inf])
        ref = np.log(y)
    got = _log(y)
    assert got[0] == -np.inf and np.isnan(got[1]) and got[2] == ref[2] and got[3] == ref[3]
    assert got[4] == np.inf and np.isnan(got[5]) and np.isnan(got[6])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-708, 709), min_size=1, max_size=70))
def test_any_length_and_value(values: list[float]) -> None:  # type: ignore[no-untyped-def]
    """The vectorised loops have remainders: every length, and the first n elements only."""
    x = np.array(values + [123.0])  # one more than n: must not be written
    out = np.full(x.size, -1.0)
    vexp(x, out, len(values), np.empty(x.size, dtype=np.int64))
    assert out[-1] == -1.0 and _ulps(out[:-1], np.exp(x[:-1])) <= 1.0
    pos = np.exp(x)
    out = np.full(x.size, -1.0)
    vlog(pos, out, len(values), np.empty(x.size, dtype=np.int64))
    ref = np.log(pos[:-1])
    assert out[-1] == -1.0
    assert np.all(np.abs(out[:-1] - ref) <= np.spacing(np.abs(ref)) + (ref == 0))


def test_one_minus_exp_is_within_two_ulps_also_near_zero() -> None:
    """kernel.vexp_complement, D_n's factors 1 − exp(t): where exp(t) is near 1 a plain
    1 − exp(t) keeps only a few of its digits (−expm1(t) is the reference)."""
    rng = np.random.default_rng(4)
    x = np.concatenate([-(10.0 ** rng.uniform(-20, 2.5, 200_000)), rng.uniform(-1, 0, 100_000),
                        rng.uniform(-708, 709, 100_000), [-0.3465, -0.3466, -1e-300]])
    out = np.empty_like(x)
    vexp_complement(x, out, x.size, np.empty(x.size, dtype=np.int64), np.empty_like(x))
    assert _ulps(out, -np.expm1(x)) <= 2.0
    edge = np.array([0.0, -800.0, np.nan])
    vexp_complement(edge, out, 3, np.empty(3, dtype=np.int64), np.empty(3))
    assert out[0] == 0.0 and math.copysign(1.0, out[0]) == 1.0 and out[1] == 1.0 and np.isnan(out[2])
    plain = 1.0 - np.exp(x[:200_000])
    assert _ulps(plain, -np.expm1(x[:200_000])) > 1e6  # what it replaced: no digits left near 0


def test_log1p_from_a_rounded_one_plus_z_is_within_two_ulps() -> None:
    """The survival tables' log1p(z), z = s/b ≥ 0: vlog(1 + z) corrected by kernel._log1p_fix."""
    rng = np.random.default_rng(3)
    z = np.concatenate([10.0 ** rng.uniform(-20, 8, 200_000), rng.uniform(0, 2, 100_000), [0.0, 5e-324, 1.0]])
    w = 1.0 + z
    out = np.empty_like(z)
    vlog(w, out, z.size, np.empty(z.size, dtype=np.int64))
    _log1p_fix(out, w, z, z.size)
    ref = np.log1p(z)
    assert float((np.abs(out - ref) / np.spacing(np.maximum(ref, 5e-324))).max()) <= 2.0
    assert out[-3] == 0.0 and out[-2] == 5e-324
