"""A stream declared without a policy runs quantile tracking, the policy whose realised
violation rate is held at ε (issue #14); its guarantee is visible in the stream's state."""

from __future__ import annotations

import pytest

from app.sim.thor.synthetic import series
from tests.helpers import assert_problem

RESOURCES = [{"name": "cpu", "cost": 1, "epsilon": 0.05},
             {"name": "memory", "cost": 0.5, "epsilon": 0.01}]


def test_a_stream_without_a_policy_runs_quantile_tracking(client):
    r = client.post("/v1/reservations", json={"name": "plain", "resources": RESOURCES})
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["policy"] == {"kind": "quantile_tracking", "params": {}}
    rid = body["id"]
    cpu, mem = series("bursts_0.03", 4, 120), series("student_t", 5, 120)
    for t in range(120):
        a = client.post(f"/v1/reservations/{rid}/observations", json={
            "event_id": f"p{t}", "period": t,
            "demand": {"cpu": float(cpu[t]), "memory": float(mem[t])}})
        assert a.status_code == 200, a.text
        out = a.json()
        assert out["queue"] == {}
        assert set(out["details"]["cpu"]) == {"forecast_mean", "forecast_sigma", "offset",
                                              "bound"}
    state = client.get(f"/v1/reservations/{rid}").json()["state"]
    assert state["policy"] == "quantile_tracking" and state["periods"] == 120
    for res in state["resources"]:
        ceiling = res["guarantee"]["violation_rate_at_most"]
        assert res["violation_rate"] <= ceiling <= 1.0
        assert ceiling > res["epsilon"]


def test_explicit_quantile_tracking_params_are_kept(client):
    r = client.post("/v1/reservations", json={
        "name": "tuned", "resources": RESOURCES,
        "policy": {"kind": "quantile_tracking", "params": {"step": 0.5}}})
    assert r.status_code == 201, r.text
    assert r.json()["policy"]["params"] == {"step": 0.5}


@pytest.mark.parametrize("params,field", [({"step": 0}, "policy.params.step"),
                                          ({"steps": 1}, "policy.params.steps"),
                                          ({"estimator": {"tail_factor": 0}},
                                           "policy.params.estimator.tail_factor")])
def test_bad_params_are_422_and_create_nothing(client, params, field):
    r = client.post("/v1/reservations", json={
        "name": "bad", "resources": RESOURCES,
        "policy": {"kind": "quantile_tracking", "params": params}})
    body = assert_problem(r, 422)
    assert any(e["field"] == field for e in body["errors"]), body
    assert client.get("/v1/reservations").json()["items"] == []
