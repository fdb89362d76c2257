"""Moment formulas (Props. 2-3, App. C) against Monte-Carlo of the same discrete-step model."""

from __future__ import annotations

import numpy as np
import pytest

from app.policies.moments.formulas import (
    Belief,
    Grid,
    _double_sum_fast,
    _double_sum_naive,
    _w,
    moments,
    q_moments,
)
from app.policies.moments.priors import POPULATION_LAM, POPULATION_MU, POPULATION_SIG


def _population() -> Belief:
    return Belief(POPULATION_LAM, POPULATION_MU, POPULATION_SIG, 0.119, 0.673)


def test_double_sum_fast_matches_naive() -> None:
    rng = np.random.default_rng(1)
    f = rng.random((3, 2 * 25 - 1))
    np.testing.assert_allclose(_double_sum_fast(f, 25), _double_sum_naive(f, 25), rtol=1e-12)


@pytest.mark.parametrize("belief", [_population(), Belief((4.0, 2.0), (3.0, 9.0), (2.0, 1.0), 0.5, 0.3)])
def test_var_q_fast_matches_naive(belief: Belief) -> None:
    grid = Grid((24.0, 730.0, 26280.0), 40)
    e_fast, v_fast = q_moments(belief, grid)
    e_naive, v_naive = q_moments(belief, grid, naive=True)
    np.testing.assert_array_equal(e_fast, e_naive)
    np.testing.assert_allclose(v_fast, v_naive, rtol=1e-9)


def _mc_components(b: Belief, cores: int, h: float, n: int, draws: int, seed: int) -> dict[str, np.ndarray]:
    """Sample Q_n, B_n, M_n of §4 in the discrete model: parameters from the Gamma beliefs."""
    rng = np.random.default_rng(seed)
    lam = rng.gamma(b.lam[0], 1 / b.lam[1], draws)
    mu = rng.gamma(b.mu[0], 1 / b.mu[1], draws)
    sig = rng.gamma(b.sig[0], 1 / b.sig[1], draws)
    q = np.zeros(draws)
    for i in range(1, n + 1):
        y = rng.poisson(lam * mu**b.nu * h)
        k = y + rng.poisson(sig * y)  # Σ_{l≤Y} (1 + Pois(σ))
        q += rng.binomial(k, np.exp(-mu * (n - i) * h))
    bn = rng.binomial(cores, np.exp(-mu * n * h))
    m = rng.random(draws) < np.exp(-b.delta * mu * n * h)
    return {"q": q, "b": bn, "m": m.astype(float)}


def _close_mean(x: np.ndarray, expected: float, z: float = 4.5) -> None:
    se = x.std(ddof=1) / np.sqrt(len(x))
    assert abs(x.mean() - expected) <= z * se + 1e-12, (x.mean(), expected, se)


def _close_var(x: np.ndarray, expected: float, z: float = 4.5) -> None:
    c = x - x.mean()
    var = c @ c / (len(x) - 1)
    se = np.sqrt(max(np.mean(c**4) - var**2, 0.0) / len(x))
    assert abs(var - expected) <= z * se, (var, expected, se)


def test_q_b_m_match_monte_carlo() -> None:
    b = Belief((4.0, 4.0), (5.0, 10.0), (3.0, 2.0), 0.2, 0.673)
    h, n, cores = 1.0, 8, 6
    grid = Grid((h * n,), n)
    e_q, v_q = q_moments(b, grid)
    mc = _mc_components(b, cores, h, n, 200_000, seed=7)
    _close_mean(mc["q"], e_q[0, -1])
    _close_var(mc["q"], v_q[0, -1])
    p1 = _w(np.array(n * h), 0.0, *b.mu)
    p2 = _w(np.array(2 * n * h), 0.0, *b.mu)
    _close_mean(mc["b"], cores * p1)
    _close_var(mc["b"], cores * (p1 - p2) + cores**2 * (p2 - p1**2))
    _close_mean(mc["m"], _w(np.array(b.delta * n * h), 0.0, *b.mu))


def test_l_matches_monte_carlo_when_parameters_are_nearly_known() -> None:
    # Concentrated beliefs and many cores: μ is almost fixed (so M, Q, B decorrelate) and D ≈ 1,
    # the regime where Props. 2-3's independence assumptions hold and E, Var are exact.
    b = Belief((2e4, 2e4), (2e4, 2e5), (4e4, 2e4), 0.5, 0.673)
    h, n, cores = 1.0, 6, 60
    e, v = moments(cores, b, Grid((h * n,), n))
    mc = _mc_components(b, cores, h, n, 200_000, seed=11)
    lsamp = mc["m"] * (mc["q"] + mc["b"])
    _close_mean(lsamp, e[0, -1])
    _close_var(lsamp, v[0, -1])


def test_moments_are_finite_and_non_negative_on_default_grid() -> None:
    e, v = moments(3, _population(), Grid())
    assert e.shape == v.shape == (5, 600)
    assert np.isfinite(e).all() and np.isfinite(v).all()
    assert (e >= 0).all() and (v >= 0).all()


def test_expected_size_decays_for_short_lived_deployment() -> None:
    # μ ≈ 10/h (cores live six minutes): after a day nothing should be left -> marginal (§6.1).
    b = Belief((1e3, 1e3), (1e4, 1e3), (1e3, 1e4), 0.119, 0.673)
    e, _ = moments(2, b, Grid((24.0,), 600))
    assert e[0, -1] < 1e-5
