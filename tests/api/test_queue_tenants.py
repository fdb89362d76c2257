"""Tenants' quotas on queued clusters over HTTP: an arrival over its tenant's quota waits
(``waiting_for_quota``, with the numbers and its place), quota that frees goes to the tenant
of the lowest weighted share, and quota changes, withdrawals, job views and the state say
so; a queued cluster without tenants answers as before."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.test_tenants import assert_problem

SPEC: dict[str, Any] = {
    "dimensions": ["cpu"],
    "server_pools": [{"name": "p", "count": 2, "capacity": {"cpu": 4}}],
    "job_types": [{"name": "one", "demand": {"cpu": 1}}],
    "tenants": [{"name": "lender", "nominal": {"cpu": 8}, "cohort": "c"},
                {"name": "a", "nominal": {"cpu": 0}, "cohort": "c"},
                {"name": "b", "nominal": {"cpu": 0}, "cohort": "c", "weight": 2}],
}


def _cluster(client, kind: str = "first_fit_queue", **extra: Any) -> str:
    r = client.post("/v1/clusters", json={**SPEC, "name": f"{kind}-{len(extra)}",
                                          "policy": {"kind": kind, "clock": "client"}, **extra})
    assert r.status_code == 201, r.text
    return r.json()["id"]


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        self.t += 1.0
        return self.t


def _arrive(client, cid: str, job: str, tenant: str | None, at: float, **extra: Any):
    body = {"event_id": f"e-{job}", "job_id": job, "job_type": "one", "at": at, **extra}
    if tenant is not None:
        body["tenant"] = tenant
    return client.post(f"/v1/clusters/{cid}/arrivals", json=body)


def _depart(client, cid: str, job: str, at: float):
    r = client.post(f"/v1/clusters/{cid}/departures",
                    json={"event_id": f"d-{job}", "job_id": job, "at": at})
    assert r.status_code == 200, r.text
    return r.json()


def _tenancy(client, cid: str) -> dict[str, dict[str, Any]]:
    state = client.get(f"/v1/clusters/{cid}/state").json()
    return {t["name"]: t for t in state["tenancy"]["tenants"]}


@pytest.mark.parametrize("kind", ["first_fit_queue", "rms"])
def test_an_arrival_over_quota_waits_with_the_numbers_and_its_place(client, kind):
    cid = _cluster(client, kind)
    now = Clock()
    for i in range(4):
        for tenant in "ab":
            r = _arrive(client, cid, f"{tenant}{i}", tenant, now())
            assert r.status_code in (200, 202) and r.json().get("reason") is None, r.text
    r = _arrive(client, cid, "a4", "a", now())
    assert r.status_code == 202
    body = r.json()
    assert body["decision"] == "queued" and body["reason"] == "waiting_for_quota"
    assert body["position"] == 0
    quota = body["details"]["quota"]
    assert quota["tenant"] == "a" and quota["limit"] == "cohort"
    assert quota["short"] == {"cpu": 1.0} and quota["usage"] == {"cpu": 4.0}
    assert quota["borrowed"] == {"cpu": 4.0}
    assert quota["borrowers"] == [{"tenant": "b", "borrowed": {"cpu": 4.0}}]
    assert _arrive(client, cid, "a5", "a", now(), priority=5).json()["position"] == 0
    job = client.get(f"/v1/clusters/{cid}/jobs/a4").json()
    assert job["status"] == "queued" and job["reason"] == "waiting_for_quota"
    assert job["tenant"] == "a" and job["position"] == 1  # a5's priority put it ahead
    assert job["forecast"]["samples"] == 0 and "quota" in job["forecast"]["reason"]
    tenancy = _tenancy(client, cid)
    assert tenancy["a"]["waiting"] == 2 and tenancy["b"]["waiting"] == 0
    assert tenancy["a"]["usage"] == {"cpu": 4.0} and tenancy["a"]["jobs"] == 4
    ids = {j["job_id"] for j in client.get(f"/v1/clusters/{cid}/jobs?limit=100").json()["items"]}
    assert {"a4", "a5"} <= ids


def test_freed_quota_goes_to_the_lowest_weighted_share_and_a_withdrawal_frees_none(client):
    cid = _cluster(client)
    now = Clock()
    for i in range(4):
        for tenant in "ab":
            _arrive(client, cid, f"{tenant}{i}", tenant, now())
    waiting = [_arrive(client, cid, f"{t}{i}", t, now()) for i in (4, 5) for t in "ab"]
    assert all(r.json()["reason"] == "waiting_for_quota" for r in waiting)
    # a: 4 of 8 over weight 1 = 0.5; b: 4 of 8 over weight 2 = 0.25. b is next, though a4
    # waited longer; then whoever's share is lower, so that b comes to hold twice a's.
    released = _depart(client, cid, "a0", now())
    assert [s["job_id"] for s in released["started"]] == ["b4"]
    assert released["started"][0]["queued_at"] == 10.0
    assert [s["job_id"] for s in _depart(client, cid, "a1", now())["started"]] == ["a4"]
    assert [s["job_id"] for s in _depart(client, cid, "b0", now())["started"]] == ["b5"]
    tenancy = _tenancy(client, cid)
    assert tenancy["a"]["usage"] == {"cpu": 3.0} and tenancy["b"]["usage"] == {"cpu": 5.0}
    assert tenancy["a"]["dominant_share"] == 0.375 and tenancy["b"]["dominant_share"] == 0.3125
    withdrawn = _depart(client, cid, "a5", now())
    assert withdrawn["decision"] == "withdrawn" and withdrawn["started"] == []
    assert client.get(f"/v1/clusters/{cid}/jobs/a5").json()["status"] == "withdrawn"
    assert _tenancy(client, cid)["a"]["waiting"] == 0
    # a lender's job goes before every borrower's: its share is 0 within its nominal quota
    _arrive(client, cid, "b6", "b", now())
    _arrive(client, cid, "l0", "lender", now())
    assert [s["job_id"] for s in _depart(client, cid, "b1", now())["started"]] == ["l0"]


def test_a_quota_change_starts_what_now_fits_and_a_stale_one_is_refused(client):
    cid = _cluster(client)
    now = Clock()
    for i in range(9):
        _arrive(client, cid, f"a{i}", "a", now())
    assert _tenancy(client, cid)["a"]["waiting"] == 1
    stale = client.put(f"/v1/clusters/{cid}/tenants", json={
        "event_id": "q0", "generation": 7, "tenants": SPEC["tenants"]})
    assert_problem(stale, 412, "precondition_failed")
    assert _tenancy(client, cid)["a"]["waiting"] == 1
    # more quota than servers: a8 is admitted by quota and waits for a server instead
    r = client.put(f"/v1/clusters/{cid}/tenants", json={
        "event_id": "q1", "generation": 1,
        "tenants": [*SPEC["tenants"][:2], {"name": "b", "nominal": {"cpu": 4}, "cohort": "c"}]})
    assert r.status_code == 200, r.text
    assert r.json()["generation"] == 2 and r.json()["started"] == []
    job = client.get(f"/v1/clusters/{cid}/jobs/a8").json()
    assert job["status"] == "queued" and job.get("reason") is None and job["tenant"] == "a"
    assert [s["job_id"] for s in _depart(client, cid, "a0", now())["started"]] == ["a8"]


def test_tenants_are_refused_where_undeclared_and_required_where_declared(client):
    cid = _cluster(client)
    assert_problem(_arrive(client, cid, "x", None, 1.0), 422, "validation_error",
                   field="tenant")
    assert_problem(_arrive(client, cid, "x", "nobody", 1.0), 404, "unknown_tenant")
    plain = _cluster(client, tenants=None)
    assert_problem(_arrive(client, plain, "x", "a", 1.0), 422, "validation_error",
                   field="tenant")
    assert_problem(client.put(f"/v1/clusters/{plain}/tenants", json={
        "event_id": "q", "generation": 1, "tenants": SPEC["tenants"]}), 422,
        "validation_error")
    assert client.get(f"/v1/clusters/{plain}/state").json().get("tenancy") is None
    assert client.get(f"/v1/clusters/{cid}/events").json()["items"] == []


def test_a_queued_cluster_without_tenants_stores_and_answers_as_before(client):
    cid = _cluster(client, tenants=None)
    assert "tenants" not in client.get(f"/v1/clusters/{cid}").json() or \
        client.get(f"/v1/clusters/{cid}").json()["tenants"] is None
    r = _arrive(client, cid, "j", None, 1.0)
    assert r.status_code == 200 and r.json()["reason"] is None and r.json()["details"] is None
    [event] = client.get(f"/v1/clusters/{cid}/events").json()["items"]
    assert event["request"] == {"kind": "arrival", "job_id": "j", "job_type": "one", "at": 1.0}
    assert set(event["response"]) == {"decision", "job_id", "position", "server_id",
                                      "started", "at"}
