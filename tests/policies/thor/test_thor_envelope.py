"""The convexified Gaussian CCDF of THOR §III-A: continuity, convexity, majorant."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from app.policies.thor.envelope import (
    PHI0, envelope, envelope_slope, envelope_slope_std, envelope_std, gaussian_ccdf_std,
    upper_quantile)

U = st.floats(min_value=-50, max_value=50, allow_nan=False)
MU = st.floats(min_value=-1e3, max_value=1e3, allow_nan=False)
SIGMA = st.floats(min_value=1e-3, max_value=1e3, allow_nan=False)


def test_pieces_by_hand():
    # Below the mean: the tangent 1/2 - phi(0) u; at and above: the CCDF itself.
    assert envelope_std(-2.0) == 0.5 + 2.0 / math.sqrt(2 * math.pi)
    assert envelope_std(0.0) == 0.5
    assert math.isclose(envelope_std(1.0), 0.15865525393145707, rel_tol=1e-15)
    assert envelope_slope_std(-3.0) == -PHI0
    assert math.isclose(envelope_slope_std(1.0), -math.exp(-0.5) / math.sqrt(2 * math.pi))
    # In x units: mu = 10, sigma = 2, x = 8 is u = -1.
    assert math.isclose(envelope(8.0, 10.0, 2.0), 0.5 + PHI0)
    assert math.isclose(envelope_slope(8.0, 10.0, 2.0), -PHI0 / 2)


def test_continuous_and_c1_at_the_mean():
    h = 1e-9
    assert abs(envelope_std(-h) - envelope_std(h)) < 1e-9
    assert abs(envelope_slope_std(-h) - envelope_slope_std(h)) < 1e-12
    assert envelope_slope_std(0.0) == -PHI0


@given(U)
def test_slope_is_the_derivative(u):
    h = 1e-6
    numeric = (envelope_std(u + h) - envelope_std(u - h)) / (2 * h)
    assert math.isclose(numeric, envelope_slope_std(u), rel_tol=1e-4, abs_tol=1e-9)


@given(U, U, st.floats(min_value=0, max_value=1))
def test_convex(a, b, lam):
    mid = lam * a + (1 - lam) * b
    chord = lam * envelope_std(a) + (1 - lam) * envelope_std(b)
    assert envelope_std(mid) <= chord + 1e-12


@given(U, U)
def test_slope_nondecreasing(a, b):
    lo, hi = min(a, b), max(a, b)
    assert envelope_slope_std(lo) <= envelope_slope_std(hi)


@given(U)
def test_upper_bound_of_the_ccdf_and_equal_above_the_mean(u):
    assert envelope_std(u) >= gaussian_ccdf_std(u) - 1e-15
    if u >= 0:
        assert envelope_std(u) == gaussian_ccdf_std(u)


@given(MU, SIGMA, U)
@settings(max_examples=200)
def test_scaled_envelope_is_the_standard_one(mu, sigma, u):
    x = mu + sigma * u
    assert math.isclose(envelope(x, mu, sigma), envelope_std((x - mu) / sigma), rel_tol=1e-12)


def test_upper_quantile():
    for eps in (0.25, 0.1, 0.05, 0.01):
        assert math.isclose(gaussian_ccdf_std(upper_quantile(eps)), eps, rel_tol=1e-9)
    assert math.isclose(upper_quantile(0.5), 0.0, abs_tol=1e-12)
