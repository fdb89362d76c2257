"""THOR on idle and constant resources (issue #12, defect 1b).

σ of a constant series is 0; eq. (8) runs with α_t = α/σ², so σ's floor decides how large
the step constants get. With the old 1e-9 floor an all-zero series answered α ≈ 8.5e17.
"""

from __future__ import annotations

import math

import pytest

from app.policies.thor import ThorStream
from app.policies.thor.estimator import CapParams

# α_t = α/σ² with σ at least the absolute floor and α ~ 1 (derived defaults): this bound is
# what "not 1e17" means, with two orders of slack.
ALPHA_BOUND = 1e8


def run(series, epsilon=0.05, **params):
    s = ThorStream([{"name": "r", "epsilon": epsilon}], params or None)
    return [s.observe(t, {"r": lam}) for t, lam in enumerate(series)]


def assert_bounded(decisions):
    for d in decisions:
        numbers = [d.next_reservation["r"], d.queue["r"], *d.details["r"].values()]
        assert all(math.isfinite(v) for v in numbers), d
        assert d.details["r"]["alpha"] <= ALPHA_BOUND, d.details
        assert abs(d.details["r"]["V"]) <= ALPHA_BOUND and abs(d.details["r"]["slope"]) <= ALPHA_BOUND


@pytest.mark.parametrize("epsilon", [0.5, 0.05, 1e-6])
def test_an_idle_resource_reserves_almost_nothing_with_bounded_steps(epsilon):
    decisions = run([0.0] * 300, epsilon)
    assert_bounded(decisions)
    floor = CapParams().sigma_floor_abs
    for d in decisions:
        # μ = 0, σ at its floor: the reservation stays at the cap's quantile z_ε σ.
        assert 0.0 <= d.next_reservation["r"] <= 5 * floor
        assert not d.violated["r"]


@pytest.mark.parametrize("level", [1e-6, 0.3, 5.0, 1e9])
def test_a_constant_series_is_covered_at_a_small_margin(level):
    decisions = run([level] * 300)
    assert_bounded(decisions)
    assert decisions[0].violated["r"]  # nothing was reserved before period 0
    floor = CapParams().sigma_floor_abs
    for d in decisions:
        x = d.next_reservation["r"]
        assert x >= level
        assert not d.violated["r"] or d.period == 0
    # At rest: μ + z_ε σ with σ at max(1% of the level, the absolute floor).
    assert x <= level + 2.0 * max(0.01 * level, floor)


def test_zero_for_a_while_then_a_jump_is_caught_up():
    decisions = run([0.0] * 100 + [10.0] * 100)
    assert_bounded(decisions)
    after = decisions[100:]
    assert after[0].violated["r"]  # nobody could see the jump coming
    caught = next(i for i, d in enumerate(after) if d.next_reservation["r"] >= 10.0)
    assert caught <= 5
    assert sum(d.violated["r"] for d in after) <= 5
    assert all(d.next_reservation["r"] >= 10.0 for d in after[caught:])


def test_a_resource_that_goes_idle_settles_near_zero():
    # The spread forgets the drop at the spread weight γ = 0.05 per period: a few hundred.
    decisions = run([10.0] * 100 + [0.0] * 400)
    assert_bounded(decisions)
    assert decisions[-1].next_reservation["r"] <= 5 * CapParams().sigma_floor_abs


def test_snapshots_taken_with_the_old_floor_still_load():
    """Snapshots carry their params; those written before the 1e-3 default say 1e-9."""
    old = ThorStream([{"name": "r", "epsilon": 0.05}], {"estimator": {"sigma_floor_abs": 1e-9}})
    old.observe(0, {"r": 0.0})
    restored = ThorStream.from_state(old.to_state())
    assert restored.observe(1, {"r": 0.0}).to_dict() == old.observe(1, {"r": 0.0}).to_dict()
