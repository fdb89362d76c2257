"""Arrival streams: Poisson rates and type mix, time-varying rates, determinism."""

from __future__ import annotations

import math

import numpy as np
import pytest

from app.sim.dra.workload import PoissonWorkload, RateSeries


def _take(workload, until: float):
    """Every arrival before ``until``, as arrays (times, types, durations)."""
    ts: list[float] = []
    js: list[int] = []
    ds: list[float] = []
    for times, types, durations in workload.blocks():
        ts += times
        js += types
        ds += durations
        if times[-1] >= until:
            break
    t = np.array(ts)
    keep = t < until
    return t[keep], np.array(js)[keep], np.array(ds)[keep]


def test_poisson_rates_mix_and_service_means():
    wl = PoissonWorkload([30.0, 10.0], [1.0, 4.0], np.random.default_rng(1), block=1000)
    t, j, d = _take(wl, 500.0)
    assert np.all(np.diff(t) >= 0)
    n = len(t)  # Poisson(20000): sd ≈ 141
    assert abs(n - 40 * 500) < 5 * math.sqrt(40 * 500)
    assert abs((j == 1).mean() - 0.25) < 5 * math.sqrt(0.25 * 0.75 / n)
    assert d[j == 0].mean() == pytest.approx(1.0, rel=0.05)
    assert d[j == 1].mean() == pytest.approx(4.0, rel=0.05)


def test_same_seed_same_stream():
    a = _take(PoissonWorkload([5.0, 1.0], 1.0, np.random.default_rng(9)), 200.0)
    b = _take(PoissonWorkload([5.0, 1.0], 1.0, np.random.default_rng(9)), 200.0)
    c = _take(PoissonWorkload([5.0, 1.0], 1.0, np.random.default_rng(10)), 200.0)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not np.array_equal(a[0][:10], c[0][:10])


def test_time_varying_rate_follows_the_multiplier():
    """m(t) = 0 on [0, 5), 2 on [5, 10), repeated: no arrival in the off half, twice the
    rate in the on half, the nominal rate on average."""
    series = RateSeries(5.0, (0.0, 2.0))
    wl = PoissonWorkload([40.0], 1.0, np.random.default_rng(2), multiplier=series)
    t, _, _ = _take(wl, 1000.0)
    assert np.all(np.mod(t, 10.0) >= 5.0 - 1e-9)
    assert abs(len(t) - 40_000) < 5 * math.sqrt(40_000)
    # A three-level series: counts per level proportional to the multiplier.
    series = RateSeries.normalised(1.0, [1, 2, 3])
    assert sum(series.values) / 3 == pytest.approx(1.0)
    wl = PoissonWorkload([60.0], 1.0, np.random.default_rng(4), multiplier=series)
    t, _, _ = _take(wl, 3000.0)
    counts = np.bincount(np.floor(np.mod(t, 3.0)).astype(int), minlength=3)
    expected = np.array([1, 2, 3]) / 2 * 60 * 1000
    assert np.all(np.abs(counts - expected) < 5 * np.sqrt(expected))


def test_rate_series_inverse():
    s = RateSeries(2.0, (1.0, 0.0, 3.0))  # M: 2 over [0,2), flat over [2,4), 6 over [4,6)
    tau = np.array([0.0, 1.0, 2.0, 5.0, 8.0, 9.5])
    assert s.invert(tau) == pytest.approx([0.0, 1.0, 4.0, 5.0, 6.0, 7.5])
    held = RateSeries(1.0, (1.0, 0.0), repeat=False)  # after t=1 no arrival ever
    assert held.invert(np.array([0.5, 1.5])).tolist() == [0.5, math.inf]
    assert held.at(7.0) == 0.0 and s.at(7.0) == 1.0
    with pytest.raises(ValueError):
        RateSeries(1.0, (0.0, 0.0))
    with pytest.raises(ValueError):
        RateSeries(1.0, (1.0, -1.0))
