"""Seeded demand series for the realised-ε evaluation (issue #14): every shape a user's
demand may take that a Gaussian forecast does not cap. Each generator takes a
``numpy.random.Generator`` and a length and returns demand ≥ 0 around a level of 100."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

Generator = Callable[[np.random.Generator, int], np.ndarray]


def gaussian(rng: np.random.Generator, n: int) -> np.ndarray:
    """Well-behaved: i.i.d. N(100, 5²). A policy must use its budget here, not over-cover."""
    return 100 + 5 * rng.standard_normal(n)


def gaussian_daily(rng: np.random.Generator, n: int) -> np.ndarray:
    """Well-behaved with a daily cycle (288 periods of 5 min) and AR(1) noise."""
    t = np.arange(n)
    noise = np.empty(n)
    e = 5 * rng.standard_normal(n)
    noise[0] = e[0]
    for k in range(1, n):
        noise[k] = 0.6 * noise[k - 1] + e[k]
    return 100 + 30 * np.sin(2 * np.pi * t / 288) + noise


def bursts(rate: float) -> Generator:
    """i.i.d. bursts: with probability ``rate`` a period carries +40 on N(100, 5²)."""
    def make(rng: np.random.Generator, n: int) -> np.ndarray:
        return 100 + 5 * rng.standard_normal(n) + 40 * (rng.random(n) < rate)
    make.__name__ = f"bursts_{rate:g}"
    return make


def regimes(rng: np.random.Generator, n: int) -> np.ndarray:
    """Level and spread switch every n/5 periods: (100, 5), (160, 2), (120, 15), (60, 5)..."""
    levels = np.array([100.0, 160.0, 120.0, 60.0, 140.0])
    spreads = np.array([5.0, 2.0, 15.0, 5.0, 8.0])
    k = np.minimum(np.arange(n) * 5 // n, 4)
    return levels[k] + spreads[k] * rng.standard_normal(n)


def pareto(rng: np.random.Generator, n: int) -> np.ndarray:
    """Heavy right tail: 100 + 5·(Pareto(shape 2.5) − mean); finite variance, heavy quantiles."""
    a = 2.5
    return 100 + 5 * (rng.pareto(a, n) - 1 / (a - 1)) * 3


def student_t(rng: np.random.Generator, n: int) -> np.ndarray:
    """Heavy two-sided tails: 100 + 5·t(3)."""
    return 100 + 5 * rng.standard_t(3, n)


def trend(rng: np.random.Generator, n: int) -> np.ndarray:
    """Growth from 100 to 300 with a daily cycle and N(0, 5²) noise."""
    t = np.arange(n)
    return 100 + 200 * t / n + 20 * np.sin(2 * np.pi * t / 288) + 5 * rng.standard_normal(n)


def flash_crowds(rng: np.random.Generator, n: int) -> np.ndarray:
    """N(100, 5²) with about one flash crowd per 1000 periods: demand ramps to 2–4× within a
    few periods and decays over about 30."""
    out = 100 + 5 * rng.standard_normal(n)
    t = np.arange(n)
    for start in np.flatnonzero(rng.random(n) < 1e-3):
        height = 100 * rng.uniform(1, 3)
        rise = np.clip((t - start) / 3.0, 0, 1)
        decay = np.exp(-np.maximum(t - start - 3, 0) / 30.0)
        out += height * rise * decay * (t >= start)
    return out


def series(name: str, seed: int, n: int) -> np.ndarray:
    """One named series, clipped at 0 (demand is never negative)."""
    return np.maximum(GENERATORS[name](np.random.default_rng(seed), n), 0.0)


GENERATORS: dict[str, Generator] = {
    "gaussian": gaussian, "gaussian_daily": gaussian_daily,
    # Burst rates from ε to 5ε for both budgets evaluated, ε = 1% and 5%.
    **{f"bursts_{r:g}": bursts(r) for r in (0.01, 0.03, 0.05, 0.15, 0.25)}, "regimes": regimes, "pareto": pareto,
    "student_t": student_t, "trend": trend, "flash_crowds": flash_crowds}
