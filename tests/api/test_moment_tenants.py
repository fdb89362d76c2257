"""Tenants' quotas in cores on moment clusters over HTTP: a deployment or a scale-out its
tenant's quota cannot take is refused with the numbers, before the engine (so the scale-out
failure rate the SLA counts is the cluster's alone); scale-ins and shutdowns free quota; a
cluster without tenants stores and logs what it always did."""

from __future__ import annotations

from typing import Any

from tests.api.test_tenants import assert_problem

SPEC: dict[str, Any] = {
    "capacity_cores": 2000, "sla": 0.001, "policy": {"kind": "second_moment"},
    "tenants": [{"name": "shop", "nominal": {"cores": 10}},
                {"name": "ml", "nominal": {"cores": 4}, "cohort": "lab"},
                {"name": "web", "nominal": {"cores": 4}, "cohort": "lab",
                 "borrowing_limit": {"cores": 1}}]}


def _cluster(client, name: str, **extra: Any) -> str:
    r = client.post("/v1/clusters", json={**SPEC, "name": name, **extra})
    assert r.status_code == 201, r.text
    return r.json()["id"]


def _deploy(client, cid: str, dep: str, cores: int, at: float, **extra: Any):
    return client.post(f"/v1/clusters/{cid}/deployments", json={
        "event_id": f"d-{dep}", "deployment_id": dep, "cores": cores, "at": at, **extra})


def _scale(client, cid: str, dep: str, verb: str, cores: int, at: float, n: int = 0):
    return client.post(f"/v1/clusters/{cid}/deployments/{dep}/{verb}", json={
        "event_id": f"{verb}-{dep}-{n}", "cores": cores, "at": at})


def _tenancy(client, cid: str) -> dict[str, dict[str, Any]]:
    state = client.get(f"/v1/clusters/{cid}/state").json()
    return {t["name"]: t for t in state["tenancy"]["tenants"]}


def test_a_deployment_over_its_tenants_quota_is_rejected_with_the_numbers(client):
    cid = _cluster(client, "moment-tenants")
    r = _deploy(client, cid, "cart", 4, 1.0, tenant="shop")
    assert r.status_code == 200 and r.json()["decision"] == "admitted", r.text
    r = _deploy(client, cid, "search", 7, 2.0, tenant="shop")
    assert r.status_code == 200
    body = r.json()
    assert body["decision"] == "rejected" and body["reason"] == "quota_exceeded"
    quota = body["details"]["quota"]
    assert quota["tenant"] == "shop" and quota["limit"] == "nominal"
    assert quota["short"] == {"cores": 1.0} and quota["usage"] == {"cores": 4.0}
    state = client.get(f"/v1/clusters/{cid}/state").json()
    assert state["rejected"] == 0 and state["active_cores"] == 4  # the engine never saw it
    assert _tenancy(client, cid)["shop"]["refused"] == 1
    # a borrower in the cohort: ml lends web what it does not use, up to web's limit
    r = _deploy(client, cid, "api", 5, 3.0, tenant="web")
    assert r.json()["decision"] == "admitted", r.text
    over = _deploy(client, cid, "api2", 1, 4.0, tenant="web").json()
    assert over["reason"] == "quota_exceeded"
    assert over["details"]["quota"]["limit"] == "borrowing_limit"


def test_a_scale_out_over_quota_is_denied_and_not_counted_as_the_clusters_failure(client):
    cid = _cluster(client, "moment-scaleouts")
    assert _deploy(client, cid, "cart", 4, 1.0, tenant="shop").json()["decision"] == \
        "admitted"
    r = _scale(client, cid, "cart", "scale-outs", 7, 2.0)
    assert r.status_code == 200
    body = r.json()
    assert body["decision"] == "denied" and body["reason"] == "quota_exceeded"
    assert body["details"]["quota"]["short"] == {"cores": 1.0}
    state = client.get(f"/v1/clusters/{cid}/state").json()
    assert state["scaleout_requests"] == 0 and state["scaleouts_denied"] == 0
    assert state["sla_failure_rate"] == 0.0
    granted = _scale(client, cid, "cart", "scale-outs", 6, 3.0, 1).json()
    assert granted["decision"] == "granted" and granted.get("reason") is None
    assert _tenancy(client, cid)["shop"]["usage"] == {"cores": 10.0}
    assert _scale(client, cid, "cart", "scale-ins", 3, 4.0).status_code == 200
    assert _tenancy(client, cid)["shop"]["usage"] == {"cores": 7.0}
    r = client.delete(f"/v1/clusters/{cid}/deployments/cart",
                      params={"event_id": "bye", "at": 5.0})
    assert r.status_code == 200, r.text
    assert _tenancy(client, cid)["shop"]["usage"] == {"cores": 0.0}
    assert _tenancy(client, cid)["shop"]["jobs"] == 0


def test_tenants_are_required_where_declared_and_quotas_change_by_generation(client):
    cid = _cluster(client, "moment-quotas")
    assert_problem(_deploy(client, cid, "x", 1, 1.0), 422, "validation_error",
                   field="tenant")
    assert_problem(_deploy(client, cid, "x", 1, 1.0, tenant="nobody"), 404, "unknown_tenant")
    r = client.put(f"/v1/clusters/{cid}/tenants", json={
        "event_id": "q1", "generation": 1,
        "tenants": [{"name": "shop", "nominal": {"cores": 2}}]})
    assert r.status_code == 200 and r.json()["generation"] == 2, r.text
    assert _deploy(client, cid, "y", 3, 2.0, tenant="shop").json()["reason"] == \
        "quota_exceeded"
    assert_problem(client.put(f"/v1/clusters/{cid}/tenants", json={
        "event_id": "q2", "generation": 1,
        "tenants": [{"name": "shop", "nominal": {"cores": 2}}]}), 412, "precondition_failed")
    r = client.post("/v1/clusters", json={**SPEC, "name": "bad", "tenants": [
        {"name": "shop", "nominal": {"cpu": 2}}]})
    assert_problem(r, 422, "validation_error")


def test_a_moment_cluster_without_tenants_stores_and_logs_as_before(client):
    cid = _cluster(client, "moment-plain", tenants=None)
    assert client.get(f"/v1/clusters/{cid}").json().get("tenants") is None
    assert_problem(_deploy(client, cid, "x", 1, 1.0, tenant="shop"), 422, "validation_error",
                   field="tenant")
    assert _deploy(client, cid, "x", 1, 1.0).status_code == 200
    [event] = client.get(f"/v1/clusters/{cid}/events").json()["items"]
    assert "tenant" not in event["request"]
    assert client.get(f"/v1/clusters/{cid}/state").json().get("tenancy") is None
