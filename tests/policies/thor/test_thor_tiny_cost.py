"""A cost as small as the API accepts (5e-324) must not put Infinity into THOR's answer:
Postgres' json refuses the token (a 500 on every observation) and JSON has no such number."""

from __future__ import annotations

import json

from app.policies.thor import ThorStream


def test_tiny_cost_answers_are_strict_json():
    s = ThorStream([{"name": "cpu", "cost": 5e-324, "epsilon": 0.05}])
    for t in range(5):
        json.dumps(s.observe(t, {"cpu": 1.0 + t}).to_dict(), allow_nan=False)
    json.dumps(s.derived(), allow_nan=False)
    json.dumps(s.to_state(), allow_nan=False)


def test_tiny_cost_decides_like_unit_cost():
    """With derived V the price cancels out of THOR's decisions (V c_i = Q* φ(z_ε))."""
    a = ThorStream([{"name": "cpu", "cost": 5e-324, "epsilon": 0.05}])
    b = ThorStream([{"name": "cpu", "cost": 1.0, "epsilon": 0.05}])
    for t in range(20):
        assert (a.observe(t, {"cpu": 1.0 + t % 3}).next_reservation
                == b.observe(t, {"cpu": 1.0 + t % 3}).next_reservation)
