"""to_state/from_state: a stream restored from JSON makes identical future decisions, for
THOR and every baseline; bad input in any resource changes nothing."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.policies.thor import (
    ReservationError, StaticOracle, make_stream, stream_from_state)

RESOURCES = [{"name": "cpu", "epsilon": 0.1, "cost": 2.0},
             {"name": "mem", "epsilon": 0.02, "initial": 3.0}]
DEMAND = st.floats(min_value=0.0, max_value=1e6, allow_nan=False, allow_infinity=False)
SERIES = st.lists(st.tuples(DEMAND, DEMAND), min_size=2, max_size=60)


def build(kind: str, series):
    if kind == "static_oracle":
        return StaticOracle.fit(RESOURCES, {"cpu": [a for a, _ in series],
                                            "mem": [b for _, b in series]})
    return make_stream(kind, RESOURCES)


@pytest.mark.parametrize("kind", ["thor", "ftl", "percentile", "static_oracle"])
@given(series=SERIES, data=st.data())
@settings(max_examples=40, deadline=None)
def test_round_trip_makes_identical_decisions(kind, series, data):
    cut = data.draw(st.integers(min_value=0, max_value=len(series)))
    a = build(kind, series)
    for t, (c, m) in enumerate(series[:cut]):
        a.observe(t, {"cpu": c, "mem": m})
    b = stream_from_state(json.loads(json.dumps(a.to_state())))
    assert b.to_state() == a.to_state()
    assert b.reservation() == a.reservation()
    for t, (c, m) in enumerate(series[cut:], start=cut):
        da, db = a.observe(t, {"cpu": c, "mem": m}), b.observe(t, {"cpu": c, "mem": m})
        assert da.to_dict() == db.to_dict()
    assert json.dumps(a.to_state()) == json.dumps(b.to_state())


@pytest.mark.parametrize("kind", ["thor", "ftl", "percentile"])
def test_deterministic(kind):
    runs = []
    for _ in range(2):
        s = make_stream(kind, RESOURCES)
        runs.append([s.observe(t, {"cpu": (t * 7919) % 13 + 1.0, "mem": t % 3 + 0.5}).to_dict()
                     for t in range(100)])
    assert runs[0] == runs[1]


@pytest.mark.parametrize("kind", ["thor", "ftl", "percentile"])
def test_a_bad_second_resource_leaves_the_first_untouched(kind):
    s = make_stream(kind, RESOURCES)
    for t in range(10):
        s.observe(t, {"cpu": 1.0 + t, "mem": 2.0})
    before = json.dumps(s.to_state())
    with pytest.raises(ReservationError):
        s.observe(10, {"cpu": 5.0, "mem": -1.0})
    assert json.dumps(s.to_state()) == before


def test_unknown_kind_in_state():
    with pytest.raises(ReservationError):
        stream_from_state({"kind": "nope"})
    with pytest.raises(ReservationError):
        make_stream("static_oracle", RESOURCES)  # needs the future: not an online policy
