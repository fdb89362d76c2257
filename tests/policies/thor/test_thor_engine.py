"""THOR engine: eqs. (3), (8), (9) pinned on hand-computed steps; validation; state."""

from __future__ import annotations

import json
import math

import pytest

from app.policies.thor import ReservationError, ThorStream
from app.policies.thor.envelope import density_std, upper_quantile

PHI0 = 1.0 / math.sqrt(2.0 * math.pi)
# Estimator made hand-computable: level = last demand, first spread = 10% of the first demand,
# no tail factor, no floors in the way.
PLAIN = {"level_weight": 1.0, "spread_weight": 0.5, "tail_factor": 1.0, "sigma_floor": 0.0,
         "initial_spread": 0.1}
CPU = {"name": "cpu", "cost": 2.0, "epsilon": 0.1, "initial": 10.0}


def stream(normalize: bool) -> ThorStream:
    return ThorStream([CPU], {"V": 0.5, "alpha": 1.0, "normalize": normalize,
                              "initial_queue": 2.0, "estimator": PLAIN})


@pytest.mark.parametrize("normalize", [False, True])
def test_two_steps_by_hand(normalize):
    s = stream(normalize)
    # Period 0: demand 10 = x^0, no violation. Cap N(10, 1): u = 0, F = 1/2, F' = -phi(0).
    # (8): x1 = 10 - (V c + Q F')/(2 alpha) = 10 - (1 - 2 phi0)/2 (sigma = 1: both modes agree)
    d = s.observe(0, {"cpu": 10.0})
    x1 = 9.5 + PHI0
    b1 = 0.5 + (-PHI0) * (x1 - 10.0)                     # (3)
    q1 = 2.0 + b1 - 0.1                                  # (9)
    assert d.reserved == {"cpu": 10.0} and d.violated == {"cpu": False}
    assert math.isclose(d.next_reservation["cpu"], x1, rel_tol=1e-14)
    assert math.isclose(d.queue["cpu"], q1, rel_tol=1e-14)
    assert math.isclose(d.details["cpu"]["predicted_violation"], b1, rel_tol=1e-14)

    # Period 1: demand 12 > x1. Error 2, weight 1/2: msq = 1 + (4 - 1)/2 = 2.5; level 12.
    d = s.observe(1, {"cpu": 12.0})
    sigma = math.sqrt(2.5)
    u = (x1 - 12.0) / sigma                              # below the mean: linear piece
    f = 0.5 - PHI0 * u
    slope = -PHI0 / sigma
    if normalize:   # V/sigma and alpha/sigma^2 in (8)
        x2 = x1 - (1.0 / sigma + q1 * slope) / (2.0 / sigma ** 2)
    else:
        x2 = x1 - (1.0 + q1 * slope) / 2.0
    b2 = f + slope * (x2 - x1)
    q2 = max(0.0, q1 + b2 - 0.1)
    assert d.violated == {"cpu": True}
    assert math.isclose(d.details["cpu"]["cap_sigma"], sigma, rel_tol=1e-14)
    assert math.isclose(d.details["cpu"]["envelope"], f, rel_tol=1e-14)
    assert math.isclose(d.next_reservation["cpu"], x2, rel_tol=1e-13)
    assert math.isclose(d.queue["cpu"], q2, rel_tol=1e-13)
    assert d.violation_rate == {"cpu": 0.5}


def test_projection_and_queue_floor():
    # A huge V drives (8) below zero: the projection []^+ reserves 0. With the queue at 0 and
    # the reservation far above demand, b - eps < 0 and (9)'s []^+ keeps Q at 0.
    s = ThorStream([CPU], {"V": 1e6, "alpha": 1.0, "normalize": False, "initial_queue": 0.0,
                           "estimator": PLAIN})
    d = s.observe(0, {"cpu": 10.0})
    assert d.next_reservation == {"cpu": 0.0}
    b = 0.5 + (-PHI0) * (0.0 - 10.0)
    assert math.isclose(d.queue["cpu"], b - 0.1)
    s = ThorStream([{**CPU, "initial": 1000.0}], {"V": 0.0, "alpha": 1.0, "normalize": False,
                                                  "initial_queue": 0.0, "estimator": PLAIN})
    d = s.observe(0, {"cpu": 10.0})
    assert d.queue == {"cpu": 0.0} and d.next_reservation == {"cpu": 1000.0}


def test_derived_defaults_and_rest_start():
    s = ThorStream([{"name": "r", "epsilon": 0.1, "cost": 4.0}])
    z = upper_quantile(0.1)
    vc = 5.0 * density_std(z)                            # V c = Q* phi(z)
    assert math.isclose(s.derived()["r"]["V"], vc / 4.0)
    assert math.isclose(s.derived()["r"]["alpha"], vc * z / (2 * 0.5))
    # No initial reservation: start at the first cap's quantile with Q at equilibrium, which
    # is a fixed point of (8)-(9): the reservation stays, the queue stays at Q* = 5.
    d = s.observe(0, {"r": 10.0})
    sigma = 1.6 * 0.1 * 10.0
    assert d.reserved == {"r": 0.0} and d.violated == {"r": True}
    assert math.isclose(d.next_reservation["r"], 10.0 + z * sigma, rel_tol=1e-12)
    assert math.isclose(d.queue["r"], 5.0, rel_tol=1e-12)


def test_fixed_cap_ignores_demand():
    # The paper's setting: a known stationary cap; THOR converges to its (1 - eps) quantile.
    s = ThorStream([{"name": "r", "epsilon": 0.05}], {"caps": {"r": {"mean": 100.0,
                                                                     "sigma": 10.0}}})
    for t in range(300):
        d = s.observe(t, {"r": float(t % 7)})
    assert math.isclose(d.next_reservation["r"], 100 + 10 * upper_quantile(0.05), rel_tol=1e-6)


def test_resources_are_independent():
    # Proposition 1: the bound separates per resource; two resources in one stream decide
    # exactly as two single-resource streams.
    a, b = {"name": "a", "epsilon": 0.05, "cost": 3.0}, {"name": "b", "epsilon": 0.2}
    both, sa, sb = ThorStream([a, b]), ThorStream([a]), ThorStream([b])
    for t in range(200):
        la, lb = 5 + math.sin(t / 9) + (t % 5) * 0.1, 50 + 10 * math.cos(t / 30)
        d = both.observe(t, {"a": la, "b": lb})
        assert d.next_reservation["a"] == sa.observe(t, {"a": la}).next_reservation["a"]
        assert d.next_reservation["b"] == sb.observe(t, {"b": lb}).next_reservation["b"]


BAD = [  # the stream has seen periods 0..5
    (6, {"cpu": -1.0}, "demand.cpu"), (6, {"cpu": float("nan")}, "demand.cpu"),
    (6, {"cpu": float("inf")}, "demand.cpu"), (6, {"cpu": True}, "demand.cpu"),
    (6, {"cpu": "3"}, "demand.cpu"), (6, {"cpu": 1e300}, "demand.cpu"),
    (6, {}, "demand.cpu"), (6, {"cpu": 1.0, "gpu": 1.0}, "demand.gpu"),
    (6, [("cpu", 1.0)], "demand"), (6.0, {"cpu": 1.0}, "period"),
    (True, {"cpu": 1.0}, "period"), (-1, {"cpu": 1.0}, "period"),
    (5, {"cpu": 1.0}, "period"),  # not after the last period (5)
]


@pytest.mark.parametrize("period,demand,field", BAD)
def test_validation_raises_before_mutation(period, demand, field):
    s = ThorStream([CPU])
    for t in range(6):
        s.observe(t, {"cpu": 10.0 + t})
    before = json.dumps(s.to_state())
    with pytest.raises(ReservationError) as err:
        s.observe(period, demand)
    assert isinstance(err.value, ValueError) and err.value.field == field
    assert json.dumps(s.to_state()) == before
    s.observe(6, {"cpu": 11.0})  # still usable


@pytest.mark.parametrize("params,resources,field", [
    ({"normalize": False}, [CPU], "params.normalize"),
    ({"bogus": 1}, [CPU], "params"),
    ({"estimator": {"level_weight": 0}}, [CPU], "params.estimator.level_weight"),
    ({"tracking_gain": 3}, [CPU], "params.tracking_gain"),
    ({"caps": {"gpu": {"mean": 1, "sigma": 1}}}, [CPU], "params.caps.gpu"),
    ({"caps": {"cpu": {"mean": 1, "sigma": 0}}}, [CPU], "params.caps.cpu.sigma"),
    ({}, [{**CPU, "epsilon": 0.6}], "resources.cpu.epsilon"),
    ({}, [{**CPU, "cost": 0}], "resources.cpu.cost"),
    ({}, [CPU, CPU], "resources"),
    ({}, [], "resources"),
])
def test_bad_configuration(params, resources, field):
    with pytest.raises(ReservationError) as err:
        ThorStream(resources, params)
    assert err.value.field == field


def test_malformed_state_is_a_reservation_error():
    state = ThorStream([CPU]).to_state()
    for broken in ({**state, "kind": "ftl"}, {**state, "version": 99},
                   {k: v for k, v in state.items() if k != "policy"},
                   {**state, "reservation": [1.0, 2.0]}):
        with pytest.raises(ReservationError):
            ThorStream.from_state(broken)
