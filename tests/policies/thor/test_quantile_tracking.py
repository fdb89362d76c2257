"""Quantile tracking (the default reservation policy): its stated pathwise bound on realised
violations holds on any series, it uses its budget on well-behaved demand, its state
round-trips exactly, and the declared cost does not steer it (as the API says)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.policies.thor import (
    DEFAULT_POLICY, QuantileTrackingStream, ReservationError, ThorStream, make_stream,
    stream_from_state)
from app.sim.thor.synthetic import GENERATORS, series

RESOURCES = [{"name": "cpu", "epsilon": 0.1, "cost": 2.0},
             {"name": "mem", "epsilon": 0.02, "initial": 3.0}]
DEMAND = st.floats(min_value=0.0, max_value=1e6, allow_nan=False, allow_infinity=False)


def run(values, eps, params=None, adversary=None):
    s = QuantileTrackingStream([{"name": "r", "epsilon": eps}], params)
    violations = 0
    for t, lam in enumerate(values):
        if adversary is not None:  # sees the reservation before choosing demand
            lam = adversary(t, s.reservation()["r"] or 0.0)
        violations += s.observe(t, {"r": float(lam)}).violated["r"]
    state = s.describe()["resources"][0]
    return violations / len(values), state["guarantee"]["violation_rate_at_most"], s


def test_it_is_the_default_policy():
    assert DEFAULT_POLICY == "quantile_tracking"


@given(values=st.lists(DEMAND, min_size=1, max_size=200),
       eps=st.sampled_from([1e-6, 0.01, 0.05, 0.3]),
       step=st.sampled_from([0.05, 1.0, 7.0]))
@settings(max_examples=150, deadline=None)
def test_the_stated_bound_holds_on_any_series(values, eps, step):
    """Pathwise: realised ≤ ε + bound, and Σ(err − ε) over the periods that moved q is
    exactly (q_{T+1} − q_1)/η — the identity the bound is derived from."""
    rate, ceiling, s = run(values, eps, {"step": step})
    assert rate <= ceiling + 1e-12
    tr = s._track[0]
    assert tr.unmodelled == 1  # the first period, judged against nothing reserved
    moved_violations = s.violations[0] - (values[0] > 0)
    assert moved_violations - eps * tr.moved == pytest.approx((tr.q - tr.q1) / step, abs=1e-6)


def test_the_bound_holds_against_an_adversary_that_sees_the_reservation():
    """The paper's capped adversary (§II-A) steers a learnt cap: THOR's realised rate was
    7.5% at ε = 1% (docs/reproduction/thor.md). Feedback on realised violations holds ε."""
    rng = np.random.default_rng(5)
    caps = 100 + 10 * rng.standard_normal(6000)
    def adversary(t, x):
        return caps[t] if x < caps[t] else 50.0
    for eps in (0.01, 0.05):
        rate, ceiling, _ = run(caps, eps, adversary=adversary)
        assert rate <= ceiling
        # The bound is not vacuous here: measured 1.50% (ceiling 1.66%) at ε = 1%, 5.07% at 5%.
        assert rate <= 1.6 * eps
        thor = ThorStream([{"name": "r", "epsilon": eps}])
        v = 0
        for t in range(len(caps)):
            v += thor.observe(t, {"r": adversary(t, thor.reservation()["r"] or 0.0)}
                              ).violated["r"]
        assert v / len(caps) > 2 * rate  # the case THOR's model-only queue misses


# Seeds differ from both the calibration seeds (1000-1002) and the report's (7).
@pytest.mark.parametrize("name", sorted(GENERATORS))
@pytest.mark.parametrize("eps", [0.01, 0.05])
def test_generated_series_within_the_stated_bound(name, eps):
    values = series(name, 31, 5000)
    rate, ceiling, _ = run(values, eps)
    assert rate <= ceiling
    # Measured, not proven: the transient above ε is small at this horizon (worst seen 8%
    # of ε on the report's seed; the proven ceiling is looser on heavy tails)...
    assert rate <= 1.15 * eps
    # ...and the budget is used, not over-covered (realised well above 0).
    assert rate >= eps / 3


@pytest.mark.parametrize("name", ["gaussian", "gaussian_daily"])
@pytest.mark.parametrize("eps", [0.01, 0.05])
def test_well_behaved_series_use_the_budget(name, eps):
    """Where THOR with κ = 1.6 over-covers several-fold, tracking sits near ε."""
    values = series(name, 32, 8000)
    rate, _, _ = run(values, eps)
    assert 0.7 * eps <= rate <= 1.15 * eps


def test_declared_cost_does_not_steer_the_reservation():
    cheap = make_stream("quantile_tracking", [{"name": "r", "cost": 1e-6, "epsilon": 0.05}])
    dear = make_stream("quantile_tracking", [{"name": "r", "cost": 1e9, "epsilon": 0.05}])
    for t, lam in enumerate(series("regimes", 3, 300)):
        a, b = cheap.observe(t, {"r": float(lam)}), dear.observe(t, {"r": float(lam)})
        assert a.next_reservation == b.next_reservation


@given(data=st.data(), rows=st.lists(st.tuples(DEMAND, DEMAND), min_size=2, max_size=60))
@settings(max_examples=60, deadline=None)
def test_round_trip_makes_identical_decisions(data, rows):
    cut = data.draw(st.integers(min_value=0, max_value=len(rows)))
    a = make_stream("quantile_tracking", RESOURCES, {"step": 0.5})
    for t, (c, m) in enumerate(rows[:cut]):
        a.observe(t, {"cpu": c, "mem": m})
    b = stream_from_state(json.loads(json.dumps(a.to_state())))
    assert b.to_state() == a.to_state()
    assert b.describe() == a.describe()
    for t, (c, m) in enumerate(rows[cut:], start=cut):
        assert a.observe(t, {"cpu": c, "mem": m}).to_dict() == \
            b.observe(t, {"cpu": c, "mem": m}).to_dict()
    assert json.dumps(a.to_state()) == json.dumps(b.to_state())


def test_a_bad_second_resource_leaves_the_first_untouched():
    s = make_stream("quantile_tracking", RESOURCES)
    for t in range(10):
        s.observe(t, {"cpu": 1.0 + t, "mem": 2.0})
    before = json.dumps(s.to_state())
    with pytest.raises(ReservationError):
        s.observe(10, {"cpu": 5.0, "mem": -1.0})
    assert json.dumps(s.to_state()) == before


@pytest.mark.parametrize("params,field", [
    ({"step": 0}, "params.step"),
    ({"step": float("nan")}, "params.step"),
    ({"initial_offset": 1e9}, "params.initial_offset"),
    ({"gain": 1}, "params"),
    ({"estimator": 3}, "params.estimator"),
    ({"estimator": {"tail_factor": -1}}, "params.estimator.tail_factor"),
])
def test_bad_params_are_refused_with_their_field(params, field):
    with pytest.raises(ReservationError) as exc:
        make_stream("quantile_tracking", RESOURCES, params)
    assert exc.value.field == field


def test_estimator_defaults_to_the_variance_matched_gaussian():
    s = make_stream("quantile_tracking", RESOURCES, {"estimator": {"level_weight": 0.3}})
    est = s.params_dict()["estimator"]
    assert est["tail_factor"] == 1.0 and est["level_weight"] == 0.3
