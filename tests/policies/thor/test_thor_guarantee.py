"""Long-run violations of THOR on synthetic adversarial and non-stationary demand.

Tolerance, stated once: over T periods the realised violation rate may exceed ε by at most
three binomial standard deviations, 3·sqrt(ε(1−ε)/T) (sampling noise of a policy that is
exactly at ε), plus 2/T for the forced first-period violation and rounding.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.policies.thor import ThorStream
from app.policies.thor.envelope import upper_quantile

T = 6000
EPSILONS = (0.25, 0.1, 0.05, 0.01)


def tolerance(eps: float, n: int = T) -> float:
    return eps + 3 * math.sqrt(eps * (1 - eps) / n) + 2 / n


def run(series, eps, adversary=None, params=None):
    s = ThorStream([{"name": "r", "epsilon": eps}], params)
    violations, reserved = 0, []
    for t, lam in enumerate(series):
        if adversary is not None:  # sees the reservation before choosing demand
            lam = adversary(t, s.reservation()["r"] or 0.0)
        d = s.observe(t, {"r": float(lam)})
        violations += d.violated["r"]
        reserved.append(d.reserved["r"])
    return violations / len(series), float(np.mean(reserved[1:]))


def synthetic(kind: str) -> np.ndarray:
    rng = np.random.default_rng(11)
    t = np.arange(T)
    daily = 30 * np.sin(2 * np.pi * t / 288)
    series = {
        "daily_drift": 100 + daily + 0.5 * np.cumsum(rng.standard_normal(T))
        + 5 * rng.standard_normal(T),
        "level_shifts": np.where((t // 1000) % 2 == 0, 100.0, 160.0) + 5 * rng.standard_normal(T),
        "heavy_tails": 100 + 20 * np.sin(2 * np.pi * t / 288) + 3 * rng.standard_t(3, T),
        "rare_spikes": 100 + 5 * rng.standard_normal(T) + 60 * (rng.random(T) < 0.005),
    }[kind]
    return np.maximum(series, 0.0)


@pytest.mark.parametrize("kind", ["daily_drift", "level_shifts", "heavy_tails", "rare_spikes"])
@pytest.mark.parametrize("eps", EPSILONS)
def test_non_stationary_series_within_budget(kind, eps):
    rate, _ = run(synthetic(kind), eps)
    assert rate <= tolerance(eps)


@pytest.mark.parametrize("eps", EPSILONS)
def test_known_cap_against_an_adaptive_adversary(eps):
    # The paper's model: Lambda_t ~ N(100, 10^2) i.i.d. caps demand; the adversary sees x_t and
    # exceeds it whenever the cap allows, else drops to 50. With the cap known (paper §II-A)
    # THOR settles at its (1 - eps) quantile and realised violations stay within eps.
    caps = 100 + 10 * np.random.default_rng(5).standard_normal(T)
    rate, mean_x = run(np.zeros(T), eps, adversary=lambda t, x: caps[t] if x < caps[t] else 50,
                       params={"caps": {"r": {"mean": 100.0, "sigma": 10.0}}})
    assert rate <= tolerance(eps)
    assert mean_x <= (100 + 10 * upper_quantile(eps)) * 1.01


@pytest.mark.parametrize("eps", EPSILONS)
def test_learnt_cap_against_an_adversary_pushing_past_the_reservation(eps):
    # Demand always just above the reservation, up to a ceiling of 150: THOR has to climb
    # over the ceiling, after which nothing can violate it.
    rate, mean_x = run(np.zeros(T), eps, adversary=lambda t, x: min(150.0, 1.01 * x + 1e-3))
    assert rate <= tolerance(eps)
    assert mean_x < 150 * 1.1


@given(st.lists(st.floats(min_value=0, max_value=1e4), min_size=1, max_size=300),
       st.sampled_from(EPSILONS))
@settings(max_examples=60, deadline=None)
def test_queue_bounds_the_predicted_excess(series, eps):
    # From (9): Q(t+1) >= Q(t) + b(x^t) - eps, so sum_t b(x^t) - eps T <= Q(T+1) - Q(1) on
    # any sample path: the predictor queue bounds the model's cumulative excess exactly.
    s = ThorStream([{"name": "r", "epsilon": eps}])
    total_b, q1, q_last = 0.0, None, 0.0
    for t, v in enumerate(series):
        d = s.observe(t, {"r": v})
        if q1 is None:
            q1 = d.details["r"]["queue_before"]
        total_b += d.details["r"]["predicted_violation"]
        q_last = d.queue["r"]
    assert total_b - eps * len(series) <= q_last - q1 + 1e-9 * (1 + abs(total_b))
