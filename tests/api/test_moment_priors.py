"""Per-deployment priors (moment paper §6) are bounded and strictly typed (issue #12, defect 2).

Priors that passed validation used to crash the engine (OverflowError, ZeroDivisionError, NaN
in the log); ``true`` and ``"1e5"`` were coerced into numbers.
"""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.policies.moments.priors import GAMMA_MAX, GAMMA_MIN, PSEUDO_MAX
from tests.api.test_deployments import deploy, moment_cluster
from tests.helpers import assert_problem

POPULATION = {"lambda": [0.4907, 0.4496], "mu": [0.3107, 0.5778], "sigma": [0.2616, 0.0552]}


def numbers(value):
    if isinstance(value, dict):
        for v in value.values():
            yield from numbers(v)
    elif isinstance(value, list):
        for v in value:
            yield from numbers(v)
    elif isinstance(value, float):
        yield value


def log_uniform(lo: float, hi: float):
    # Bounds themselves are the likeliest to break a formula: draw them often.
    inner = st.floats(math.log10(lo), math.log10(hi)).map(lambda e: min(max(10.0 ** e, lo), hi))
    return st.one_of(st.sampled_from([lo, hi]), inner)


param = log_uniform(GAMMA_MIN, GAMMA_MAX)
pair = st.lists(param, min_size=2, max_size=2)
observations = st.dictionaries(
    st.sampled_from(["core_deaths", "core_time", "shutdowns", "age_time", "scaleouts",
                     "scaleout_time", "extra_cores"]),
    st.one_of(st.just(0.0), log_uniform(1e-6, PSEUDO_MAX)), max_size=7)
priors = st.fixed_dictionaries({}, optional={
    "gamma": st.fixed_dictionaries({"lambda": pair, "mu": pair, "sigma": pair}),
    "observations": observations})


@pytest.mark.parametrize("kind", ["first_moment", "second_moment"])
def test_every_accepted_prior_gets_a_finite_answer(client, kind):
    cid = moment_cluster(client, kind, capacity=10_000_000)["id"]
    counter = itertools.count()

    @settings(max_examples=25, deadline=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(prior=priors, cores=st.sampled_from([1, 64, 10_000_000]))
    def check(prior, cores):
        n = next(counter)
        r = deploy(client, cid, f"d{n}", cores, float(n), prior=prior)
        assert r.status_code == 200, r.text
        assert all(math.isfinite(v) for v in numbers(r.json())), r.json()
        if r.json()["decision"] == "admitted":
            view = client.get(f"/v1/clusters/{cid}/deployments/d{n}")
            assert view.status_code == 200, view.text
            assert all(math.isfinite(v) for v in numbers(view.json())), view.json()
            out = client.post(f"/v1/clusters/{cid}/deployments/d{n}/scale-outs",
                              json={"event_id": f"s{n}", "cores": 1, "at": float(n)})
            assert out.status_code == 200, out.text
        state = client.get(f"/v1/clusters/{cid}/state")
        assert state.status_code == 200, state.text
        assert all(math.isfinite(v) for v in numbers(state.json())), state.json()

    check()


@pytest.mark.parametrize("prior, field", [
    ({"gamma": {**POPULATION, "lambda": [True, 1.0]}}, "prior.gamma.lambda[0]"),
    ({"gamma": {**POPULATION, "mu": [1.0, "1e5"]}}, "prior.gamma.mu[1]"),
    ({"gamma": {**POPULATION, "lambda": [1, 1e-50]}}, "prior.gamma.lambda[1]"),
    ({"gamma": {**POPULATION, "sigma": [1e7, 1.0]}}, "prior.gamma.sigma[0]"),
    ({"gamma": {**POPULATION, "sigma": [1.0]}}, "prior.gamma.sigma"),
    ({"gamma": {"lambda": [1, 1], "mu": [1, 1]}}, "prior.gamma.sigma"),
    ({"observations": {"core_time": "1e5"}}, "prior.observations.core_time"),
    ({"observations": {"scaleouts": True}}, "prior.observations.scaleouts"),
    ({"observations": {"extra_cores": 1e300}}, "prior.observations.extra_cores"),
    ({"observations": {"bogus": 1}}, "prior.observations.bogus"),
    ({"beliefs": {}}, "prior.beliefs"),
])
def test_bad_priors_are_422_naming_the_field_and_change_nothing(client, prior, field):
    cid = moment_cluster(client)["id"]
    assert deploy(client, cid, "a", 4, 1.0).status_code == 200
    before = client.get(f"/v1/clusters/{cid}/state").json()
    body = assert_problem(deploy(client, cid, "b", 4, 2.0, prior=prior), 422)
    assert field in [e["field"] for e in body["errors"]], body
    assert client.get(f"/v1/clusters/{cid}/state").json() == before
    assert_problem(client.get(f"/v1/clusters/{cid}/deployments/b"), 404)
    # The same event id with a good body is a first delivery: nothing was logged for it.
    r = deploy(client, cid, "b", 4, 2.0, prior={"gamma": POPULATION})
    assert r.status_code == 200 and r.json()["replayed"] is False


def test_the_engine_refuses_non_finite_moments_before_changing_anything(monkeypatch):
    """The last line of defence: whatever slips past the bounds never reaches the totals."""
    import json

    import numpy as np

    from app.policies.moments import engine as moment_engine
    from app.policies.moments.errors import InvalidPrior
    from app.policies.moments.options import MomentOptions

    e = moment_engine.MomentEngine(MomentOptions(capacity=20_000))
    e.admit("a", 2, 1.0)
    e.scale_out("a", 1, 1.5)  # "a" is dirty: the next admission recomputes it
    before = json.dumps(e.to_state())
    # The kernel checks what it computes: give it a belief whose moments are NaN.
    from app.policies.moments import kernel

    monkeypatch.setattr(kernel, "_params", lambda cores, b: [np.nan] * 13)
    with pytest.raises(InvalidPrior):
        e.admit("b", 1, 2.0)  # its own moments (the newcomer's)
    assert json.dumps(e.to_state()) == before
    # As if "b"'s own moments were cached: now "a"'s recompute is the one that fails.
    monkeypatch.setattr(e, "_newcomer", lambda cores, belief: (np.zeros(e.grid.shape), np.zeros(e.grid.shape)))
    with pytest.raises(InvalidPrior) as failed:
        e.admit("b", 1, 2.0)
    assert failed.value.field == "deployments.a"
    assert json.dumps(e.to_state()) == before
