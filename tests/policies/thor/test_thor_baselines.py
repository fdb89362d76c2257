"""Baselines of THOR §V: FTL, the static hindsight oracle and the VPA-style recommender."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.policies.thor import (
    FollowTheLeader, PercentileRecommender, ReservationError, StaticOracle, feasible_quantile)
from app.policies.thor.baselines import PercentileParams


def test_feasible_quantile_by_hand():
    v = sorted([5.0, 1.0, 4.0, 2.0, 3.0, 9.0, 8.0, 7.0, 6.0, 10.0])
    assert feasible_quantile(v, 0.1) == 9.0    # one value (10) may exceed
    assert feasible_quantile(v, 0.25) == 8.0   # floor(2.5) = 2 may exceed
    assert feasible_quantile(v, 0.01) == 10.0
    assert feasible_quantile([float(i) for i in range(100)], 0.29) == 70.0  # 0.29*100 = 29


@given(st.lists(st.floats(min_value=0, max_value=1e6), min_size=1, max_size=200),
       st.floats(min_value=0.001, max_value=0.5))
def test_static_oracle_is_feasible_and_minimal(values, eps):
    x = feasible_quantile(sorted(values), eps)
    above = sum(v > x for v in values)
    assert above <= eps * len(values) + 1e-9
    smaller = [v for v in values if v < x]
    if smaller:  # any lower reservation among the sample would exceed the budget
        y = max(smaller)
        assert sum(v > y for v in values) > math.floor(eps * len(values) + 1e-9)


def test_static_oracle_stream():
    series = [3.0, 1.0, 2.0, 5.0, 4.0]
    s = StaticOracle.fit([{"name": "r", "epsilon": 0.2}], {"r": series})
    out = [s.observe(t, {"r": v}) for t, v in enumerate(series)]
    assert all(d.reserved == {"r": 4.0} for d in out)
    assert [d.violated["r"] for d in out] == [False, False, False, True, False]
    with pytest.raises(ReservationError):
        StaticOracle([{"name": "r"}])


def test_ftl_follows_the_past_quantile():
    s = FollowTheLeader([{"name": "r", "epsilon": 0.25}])
    seen, out = [], []
    for t, v in enumerate([4.0, 1.0, 3.0, 2.0, 8.0, 0.5]):
        d = s.observe(t, {"r": v})
        seen.append(v)
        assert d.next_reservation["r"] == feasible_quantile(sorted(seen), 0.25)
        out.append(d)
    assert out[0].reserved == {"r": 0.0} and out[0].violated == {"r": True}
    assert out[1].reserved == {"r": 4.0}                 # one value: itself
    assert out[4].reserved == {"r": 3.0}                 # of 4,1,3,2: floor(1) above -> 3
    assert out[4].violated == {"r": True}


def test_vpa_buckets_and_percentile_by_hand():
    p = PercentileParams()
    assert p.bucket_start(0) == 0.0 and math.isclose(p.bucket_start(1), 0.01)
    assert math.isclose(p.bucket_start(2), 0.01 + 0.0105)
    assert p.find_bucket(0.005) == 0 and p.find_bucket(0.015) == 1
    assert p.find_bucket(0.0205) == 1 and p.find_bucket(0.0206) == 2
    s = PercentileRecommender([{"name": "r", "epsilon": 0.5}], {"half_life": 1e9})
    for t, v in enumerate([0.005, 0.015, 0.015, 0.03]):
        d = s.observe(t, {"r": v})
    # Equal weights; the median sits in bucket 1 (0.01..0.0205): VPA returns its end, +15%.
    assert math.isclose(d.next_reservation["r"], 1.15 * p.bucket_start(2))


def test_vpa_decay_half_life():
    # VPA's growing weights: a sample at period k weighs 2^(k / half_life), so after one
    # half-life (4 periods) an old sample weighs half of a fresh one.
    s = PercentileRecommender([{"name": "r", "epsilon": 0.5}],
                              {"half_life": 4.0, "margin": 0.0})
    s.observe(0, {"r": 10.0})
    for t in range(1, 5):
        s.observe(t, {"r": 0.001})
    w = s._w[0]
    assert w[s.params.find_bucket(10.0)] == 1.0
    assert math.isclose(w[0], sum(2 ** (k / 4) for k in range(1, 5)))
    assert 2 ** (4 / 4) == 2 * w[s.params.find_bucket(10.0)]


def test_vpa_rescaling_keeps_decisions():
    # Weights are rescaled after 60 half-lives; the reservation sequence must not notice.
    a = PercentileRecommender([{"name": "r", "epsilon": 0.1}], {"half_life": 2.0})
    rng = np.random.default_rng(3)
    xs = [a.observe(t, {"r": float(v)}).next_reservation["r"]
          for t, v in enumerate(rng.uniform(0, 1, 400))]
    assert a._age < 400  # it did rescale
    assert all(x > 0 for x in xs)


def test_percentile_params_validated():
    with pytest.raises(ReservationError):
        PercentileRecommender([{"name": "r"}], {"bucket_ratio": 1.0})
    with pytest.raises(ReservationError):
        PercentileRecommender([{"name": "r"}], {"nope": 1})
    with pytest.raises(ReservationError):
        FollowTheLeader([{"name": "r"}], {"x": 1})
