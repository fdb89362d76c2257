"""Contract tests for moment-based admission clusters and their deployments (both databases)."""

from __future__ import annotations

import pytest

from app.main import create_app
from tests.conftest import admin_client
from tests.helpers import assert_problem


def moment_cluster(client, kind="second_moment", capacity=2000, **policy):
    r = client.post("/v1/clusters", json={"name": f"m-{kind}", "capacity_cores": capacity,
                                          "sla": 0.001, "policy": {"kind": kind, **policy}})
    assert r.status_code == 201, r.text
    return r.json()


def deploy(client, cid, dep, cores, at, **extra):
    return client.post(f"/v1/clusters/{cid}/deployments",
                       json={"event_id": f"a-{dep}", "deployment_id": dep, "cores": cores,
                             "at": at, **extra})


@pytest.mark.parametrize("kind", ["threshold", "first_moment", "second_moment"])
def test_admit_scale_out_scale_in_shutdown(client, kind):
    c = moment_cluster(client, kind)
    assert c["capacity_cores"] == 2000 and c["dimensions"] is None
    cid = c["id"]
    r = deploy(client, cid, "d1", 4, 0.0).json()
    assert r["decision"] == "admitted" and r["event_seq"] == 1
    assert {"worst_horizon", "expected_cores", "overflow_bound", "threshold",
            "marginal"} <= set(r["details"])
    out = client.post(f"/v1/clusters/{cid}/deployments/d1/scale-outs",
                      json={"event_id": "s1", "cores": 2, "at": 1.0}).json()
    assert out == {**out, "decision": "granted", "active_cores": 6, "sla_failure_rate": 0.0}
    back = client.post(f"/v1/clusters/{cid}/deployments/d1/scale-ins",
                       json={"event_id": "i1", "cores": 1, "at": 2.0}).json()
    assert back["active_cores"] == 5 and back["alive"] is True
    view = client.get(f"/v1/clusters/{cid}/deployments/d1").json()
    assert view["cores"] == 5 and "posterior" in view
    gone = client.delete(f"/v1/clusters/{cid}/deployments/d1",
                         params={"at": 3.0, "event_id": "x1"}).json()
    assert gone["active_cores"] == 0 and gone["alive"] is False
    state = client.get(f"/v1/clusters/{cid}/state").json()
    assert state["active_cores"] == 0 and state["capacity"] == 2000
    assert state["policy"] == kind and "peak_expected_cores" in state
    assert state["safe"] is True and state["utilization_now"] == 0.0
    assert state["sla"] == 0.001 and state["meets_sla"] is True
    if kind == "threshold":
        assert state["overflow_bound_per_horizon"] is None
    else:
        assert set(state["overflow_bound_per_horizon"]) == {"3y", "1y", "1mo", "1w", "24h"}


def test_denied_scale_out_counts_as_an_sla_failure(client):
    cid = moment_cluster(client, "threshold", capacity=10, threshold=10)["id"]
    assert deploy(client, cid, "d1", 8, 0).json()["decision"] == "admitted"
    r = client.post(f"/v1/clusters/{cid}/deployments/d1/scale-outs",
                    json={"event_id": "s1", "cores": 5, "at": 1}).json()
    assert r["decision"] == "denied" and r["sla_failure_rate"] == 1.0
    state = client.get(f"/v1/clusters/{cid}/state").json()
    assert state["scaleouts_denied"] == 1 and state["meets_sla"] is False
    assert state["utilization_now"] == 0.8 and state["safe"] is True


def test_errors(client):
    cid = moment_cluster(client)["id"]
    deploy(client, cid, "d1", 4, 10.0)
    url = f"/v1/clusters/{cid}/deployments"
    assert_problem(client.post(f"{url}/ghost/scale-outs",
                               json={"event_id": "e1", "cores": 1, "at": 11}), 404,
                   "unknown_deployment")
    assert_problem(client.post(f"{url}/d1/scale-outs",
                               json={"event_id": "e2", "cores": 1, "at": 5}), 409,
                   "time_went_backwards")
    assert_problem(deploy(client, cid, "d1", 4, 12.0, event_id="again"), 409,
                   "deployment_exists")
    for cores in (0, -3, 1.5, "2"):
        assert_problem(client.post(f"{url}/d1/scale-outs",
                                   json={"event_id": "e3", "cores": cores, "at": 12}), 422)
    assert_problem(client.get(f"{url}/ghost"), 404, "unknown_deployment")
    assert client.get(f"/v1/clusters/{cid}").json()["version"] == 1


def test_dry_run_and_retry(client):
    cid = moment_cluster(client)["id"]
    probe = client.post(f"/v1/clusters/{cid}/deployments",
                        json={"deployment_id": "d1", "cores": 4, "at": 0, "dry_run": True}).json()
    assert probe["dry_run"] is True and probe["event_seq"] is None
    assert client.get(f"/v1/clusters/{cid}/state").json()["deployments"] == 0
    first = deploy(client, cid, "d1", 4, 0).json()
    again = deploy(client, cid, "d1", 4, 0).json()
    assert again["replayed"] and again["decision"] == first["decision"] == probe["decision"]


def test_kinds_do_not_mix_and_state_survives_a_restart(client, app):
    cid = moment_cluster(client)["id"]
    assert_problem(client.post(f"/v1/clusters/{cid}/arrivals",
                               json={"event_id": "e", "job_id": "j", "job_type": "x"}), 409,
                   "wrong_cluster_kind")
    for i in range(6):
        deploy(client, cid, f"d{i}", 2 + i, float(i))
    before = client.get(f"/v1/clusters/{cid}/state").json()
    with admin_client(create_app(app.state.ctx.settings, configure_logs=False)) as fresh:
        assert fresh.get(f"/v1/clusters/{cid}/state").json() == before
    assert [c["id"] for c in client.get("/v1/clusters").json()["items"]] == [cid]


def test_bad_moment_clusters_are_422(client):
    for body in ({"name": "m", "capacity_cores": 0, "policy": {"kind": "threshold"}},
                 {"name": "m", "capacity_cores": 10, "policy": {"kind": "threshold"},
                  "dimensions": ["cpu"]},
                 {"name": "m", "capacity_cores": 10, "sla": 2,
                  "policy": {"kind": "second_moment"}}):
        assert_problem(client.post("/v1/clusters", json=body), 422)
