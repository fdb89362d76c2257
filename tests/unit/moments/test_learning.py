"""The population-prior estimator (app/policies/moments/learning.py) on synthetic evidence."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from app.policies.moments.learning import LR_CRITICAL, LR_EDGE, _choose, log_likelihood, ml_rate


def negative_binomial(rng: np.random.Generator, shape: float, rate: float, n: int
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Counts k_i ~ Pois(θ_i X_i) with θ_i ~ Gamma(shape, rate), exposures spread widely."""
    x = rng.exponential(500.0, n)
    theta = rng.gamma(shape, 1.0 / rate, n)
    return rng.poisson(theta * x).astype(float), x


def test_ml_rate_recovers_the_rate_that_generated_the_counts() -> None:
    rng = np.random.default_rng(7)
    for shape, rate in ((0.4907, 0.4496 * 200), (0.3107, 0.5778 * 300), (2.0, 50.0)):
        k, x = negative_binomial(rng, shape, rate, 20000)
        est = ml_rate(shape, k, x)
        assert abs(math.log(est / rate)) < 0.08, (shape, rate, est)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 50), st.floats(1e-3, 1e5)), min_size=1, max_size=40),
       st.floats(0.05, 5.0))
def test_ml_rate_maximises_the_likelihood(rows, shape) -> None:  # type: ignore[no-untyped-def]
    k = np.array([r[0] for r in rows], dtype=float)
    x = np.array([r[1] for r in rows])
    est = ml_rate(shape, k, x)
    if k.sum() == 0:
        assert est == math.inf  # nothing happened: the rate's mean is 0
        return
    best = log_likelihood(shape, est, k, x)
    for factor in (0.9, 0.99, 1.01, 1.1):
        assert best >= log_likelihood(shape, est * factor, k, x) - 1e-9 * (1 + abs(best))


def test_ml_rate_at_the_edges() -> None:
    # Events over no exposure at all: the likelihood rises as the rate falls to 0.
    assert ml_rate(1.0, np.array([1.0]), np.array([0.0])) == 0.0
    assert ml_rate(1.0, np.zeros(3), np.ones(3)) == math.inf


def test_a_prior_moves_only_on_clear_evidence() -> None:
    rng = np.random.default_rng(3)
    shape, rate = 0.4907, 0.4496 * 100
    k, x = negative_binomial(rng, shape, rate, 2000)
    # Data from the prior in use: it stays (and the statistic is small).
    kept, lr = _choose(shape, rate, rate, k, x)
    assert kept == rate and lr < LR_CRITICAL
    # Data whose mean is 3x the prior's: the rate falls towards a third, to the edge of the
    # 95% interval on the prior's side (between the prior and the point estimate, and
    # where the likelihood ratio against the point estimate is 3.84).
    k3, x3 = negative_binomial(rng, shape, rate / 3, 2000)
    moved, lr = _choose(shape, rate, rate, k3, x3)
    best = ml_rate(shape, k3, x3)
    assert lr > LR_CRITICAL and best < moved < rate and 2.2 < rate / moved < 3.8
    gap = 2 * (log_likelihood(shape, best, k3, x3) - log_likelihood(shape, moved, k3, x3))
    assert abs(gap - LR_EDGE) < 1e-6
