"""Tenants' quotas and gangs over HTTP: what a cluster with tenants answers, refuses and logs,
and that a cluster without tenants answers and logs exactly as before tenants existed."""

from __future__ import annotations

from typing import Any

import pytest

from app.policies.model import cluster_model
from app.policies.registry import PLACEMENT_ENGINES
from app.service.auth import create_key
from tests.helpers import assert_problem as _assert_problem

SPEC: dict[str, Any] = {
    "dimensions": ["cpu", "memory"],
    "server_pools": [{"name": "p", "count": 2, "capacity": {"cpu": 4, "memory": 16}}],
    "job_types": [{"name": "small", "demand": {"cpu": 1, "memory": 2}},
                  {"name": "big", "demand": {"cpu": 4, "memory": 4}}],
    "policy": {"kind": "first_fit"},
}
TENANTS = [{"name": "ml", "nominal": {"cpu": 4, "memory": 16}, "cohort": "research"},
           {"name": "web", "nominal": {"cpu": 4, "memory": 16}, "cohort": "research",
            "borrowing_limit": {"cpu": 2, "memory": 8}},
           {"name": "batch", "nominal": {"cpu": 1, "memory": 2}}]


def assert_problem(r, status: int, code: str, field: str | None = None) -> None:
    body = _assert_problem(r, status, code)
    if field is not None:
        assert field in [e["field"] for e in body.get("errors") or []], body


def _cluster(client, name: str, **extra: Any) -> str:
    r = client.post("/v1/clusters", json={**SPEC, "name": name, **extra})
    assert r.status_code == 201, r.text
    return r.json()["id"]


def _arrive(client, cid: str, job: str, tenant: str | None = None, job_type: str = "small",
            **extra: Any):
    body = {"event_id": f"e-{job}", "job_id": job, "job_type": job_type, **extra}
    if tenant is not None:
        body["tenant"] = tenant
    return client.post(f"/v1/clusters/{cid}/arrivals", json=body)


def _state(client, cid: str) -> dict[str, Any]:
    r = client.get(f"/v1/clusters/{cid}/state")
    assert r.status_code == 200
    return r.json()


def _tenant(state: dict[str, Any], name: str) -> dict[str, Any]:
    [t] = [t for t in state["tenancy"]["tenants"] if t["name"] == name]
    return t


@pytest.mark.parametrize("kind", ["first_fit", "dra", "power_of_d"])
def test_a_cluster_without_tenants_answers_and_logs_as_its_engine_alone(client, kind):
    """No tenants: no tenancy in the state or the declaration, events logged with exactly
    the fields they always had, and every answer the engine's own."""
    spec = {**SPEC, "policy": {"kind": kind}}
    cid = _cluster(client, "plain", policy=spec["policy"])
    assert "tenants" not in client.get(f"/v1/clusters/{cid}").json() or \
        client.get(f"/v1/clusters/{cid}").json()["tenants"] is None
    engine = PLACEMENT_ENGINES[kind](cluster_model({**spec, "job_types": [
        {**t, "reward": 1.0, "priority": 0} for t in spec["job_types"]]}),
        {k: v for k, v in client.get(f"/v1/clusters/{cid}").json()["policy"].items()
         if k != "kind"}, __import__("numpy").random.default_rng(0))
    for i in range(12):
        job_type = "big" if i % 3 == 0 else "small"
        r = _arrive(client, cid, f"j{i}", job_type=job_type)
        assert r.status_code == 200
        want = engine.arrive(f"j{i}", job_type).to_dict()
        got = {k: v for k, v in r.json().items() if k in want}
        assert got == {**want, "preempted": [{**p, "tenant": None, "reason": None}
                                             for p in want["preempted"]]}
    assert _state(client, cid).get("tenancy") is None
    log = client.get(f"/v1/clusters/{cid}/events").json()["items"]
    assert all(set(e["request"]) == {"kind", "job_id", "job_type"} for e in log)
    assert all("tenant" not in p for e in log for p in e["response"]["preempted"])
    assert_problem(_arrive(client, cid, "x", tenant="ml"), 422, "validation_error",
                   field="tenant")


def test_one_tenant_with_the_whole_cluster_decides_as_no_tenants(client):
    """The layer wraps the policy's decision without changing it where the quota is the
    cluster's capacity."""
    plain = _cluster(client, "plain", policy={"kind": "dra"})
    whole = _cluster(client, "whole", policy={"kind": "dra"}, tenants=[
        {"name": "all", "nominal": {"cpu": 8, "memory": 32}}])
    running: list[str] = []
    for i in range(14):
        job_type = "big" if i % 4 == 1 else "small"
        a = _arrive(client, plain, f"j{i}", job_type=job_type).json()
        b = _arrive(client, whole, f"j{i}", "all", job_type=job_type).json()
        # (Where the quota refuses, the cluster is full anyway, so only its reason differs.)
        assert (a["decision"], a["server_id"]) == (b["decision"], b["server_id"]), i
        if a["decision"] == "placed":
            assert a["reason"] == b["reason"]
            running.append(f"j{i}")
        if i % 5 == 4:
            gone = running.pop(0)
            for cid in (plain, whole):
                assert client.post(f"/v1/clusters/{cid}/departures", json={
                    "event_id": f"d{i}", "job_id": gone}).status_code == 200


def test_an_arrival_over_quota_is_refused_with_the_numbers(client):
    cid = _cluster(client, "q", tenants=TENANTS)
    assert _arrive(client, cid, "b1", "batch").json()["decision"] == "placed"
    r = _arrive(client, cid, "b2", "batch")
    assert r.status_code == 200
    body = r.json()
    assert (body["decision"], body["reason"], body["server_id"]) == \
        ("rejected", "quota_exceeded", None)
    quota = body["details"]["quota"]
    assert quota["tenant"] == "batch" and quota["limit"] == "nominal"
    assert quota["usage"] == {"cpu": 1.0, "memory": 2.0}
    assert quota["nominal"] == {"cpu": 1.0, "memory": 2.0}
    assert quota["short"] == {"cpu": 1.0, "memory": 2.0}
    # web borrows ml's unused quota up to its borrowing limit, then is refused naming it.
    for i in range(6):
        assert _arrive(client, cid, f"w{i}", "web").json()["decision"] == "placed"
    r = _arrive(client, cid, "w6", "web").json()
    assert r["reason"] == "quota_exceeded"
    assert r["details"]["quota"]["limit"] == "borrowing_limit"
    assert r["details"]["quota"]["borrowed"] == {"cpu": 2.0, "memory": 0.0}
    state = _state(client, cid)
    assert _tenant(state, "web")["borrowed"] == {"cpu": 2.0, "memory": 0.0}
    assert _tenant(state, "batch")["refused"] == 1 and _tenant(state, "web")["refused"] == 1
    # The refusals are logged like any decision, and refused state is untouched.
    rejected = client.get(f"/v1/clusters/{cid}/events",
                          params={"reason": "quota_exceeded"}).json()["items"]
    assert [e["request"]["job_id"] for e in rejected] == ["b2", "w6"]
    assert state["jobs"] == 7


def test_a_lender_reclaims_its_quota_from_the_newest_lowest_priority_borrower(client):
    cid = _cluster(client, "reclaim", tenants=TENANTS[:2])
    for i, prio in enumerate([5, 0, 0, 1, 0, 5, 0]):
        r = _arrive(client, cid, f"w{i}", "web", priority=prio)
        assert r.json()["decision"] == ("placed" if i < 6 else "rejected"), (i, r.json())
    # web holds 6 cpu of 8: 2 borrowed from ml. ml's 3rd arrival needs one back.
    for i in range(2):
        assert _arrive(client, cid, f"m{i}", "ml").json()["preempted"] == []
    r = _arrive(client, cid, "m2", "ml").json()
    assert r["decision"] == "placed"
    assert [(p["job_id"], p["tenant"], p["reason"]) for p in r["preempted"]] == \
        [("w4", "web", "reclaim")]  # priority 0, the newest of them
    r = _arrive(client, cid, "m3", "ml").json()
    assert [p["job_id"] for p in r["preempted"]] == ["w2"]
    # web is back within nominal: ml, at its nominal, preempts no more.
    r = _arrive(client, cid, "m4", "ml").json()
    assert (r["decision"], r["preempted"]) == ("rejected", [])
    state = _state(client, cid)
    assert _tenant(state, "web")["preempted"] == 2
    assert _tenant(state, "web")["usage"]["cpu"] == 4.0
    assert _tenant(state, "ml")["usage"]["cpu"] == 4.0
    jobs = {j["job_id"] for j in client.get(f"/v1/clusters/{cid}/jobs").json()["items"]}
    assert "w4" not in jobs and "w2" not in jobs


def test_a_high_priority_job_preempts_its_own_tenants_lower_ones(client):
    cid = _cluster(client, "own", tenants=[{"name": "t", "nominal": {"cpu": 2, "memory": 4}}])
    for i, prio in enumerate([3, 1, 1]):
        _arrive(client, cid, f"j{i}", "t", priority=prio)
    r = _arrive(client, cid, "hi", "t", priority=2).json()
    assert r["decision"] == "placed"
    assert [(p["job_id"], p["reason"]) for p in r["preempted"]] == [("j1", "priority")]
    r = _arrive(client, cid, "low", "t", priority=0).json()
    assert r["reason"] == "quota_exceeded" and r["preempted"] == []


def test_a_gang_is_placed_whole_or_not_at_all(client):
    cid = _cluster(client, "gangs", tenants=[{"name": "t", "nominal": {"cpu": 16, "memory": 64}}])
    gang = {"event_id": "g1", "gang_id": "train", "tenant": "t", "members": [
        {"job_id": "train-0", "job_type": "big"}, {"job_id": "train-1", "job_type": "big"}]}
    r = client.post(f"/v1/clusters/{cid}/gangs", json=gang)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["decision"] == "placed" and body["reason"] == "all_placed"
    assert sorted(m["server_id"] for m in body["members"]) == ["p-0", "p-1"]
    assert client.post(f"/v1/clusters/{cid}/gangs", json=gang).json()["replayed"] is True
    # A second gang: its first member would fit (quota allows, servers do not): refused whole.
    client.post(f"/v1/clusters/{cid}/departures", json={"event_id": "d", "job_id": "train-1"})
    version = _state(client, cid)["version"]
    r = client.post(f"/v1/clusters/{cid}/gangs", json={
        "event_id": "g2", "gang_id": "two", "tenant": "t", "members": [
            {"job_id": "two-0", "job_type": "big"}, {"job_id": "two-1", "job_type": "big"}]})
    body = r.json()
    assert body["decision"] == "rejected" and body["members"] == []
    assert body["failed"] == {"job_id": "two-1", "job_type": "big",
                              "reason": body["reason"]}
    state = _state(client, cid)
    assert state["jobs"] == 1 and state["version"] == version + 1
    jobs = [j["job_id"] for j in client.get(f"/v1/clusters/{cid}/jobs").json()["items"]]
    assert jobs == ["train-0"]


def test_dry_runs_of_a_gang_and_of_a_batch_commit_nothing(client):
    cid = _cluster(client, "dry", tenants=TENANTS[:2])
    for i in range(8):
        _arrive(client, cid, f"w{i}", "web")
    before = _state(client, cid)
    log = client.get(f"/v1/clusters/{cid}/events").json()["items"]
    # web holds 6 cpu (its nominal 4, borrowing 2), 2 are free; ml's 3 need one back.
    r = client.post(f"/v1/clusters/{cid}/gangs", json={
        "gang_id": "g", "tenant": "ml", "dry_run": True,
        "members": [{"job_id": f"g-{i}", "job_type": "small"} for i in range(3)]})
    body = r.json()
    assert (body["decision"], body["dry_run"], body["event_seq"]) == ("placed", True, None)
    assert [(p["tenant"], p["reason"]) for p in body["preempted"]] == [("web", "reclaim")]
    r = client.post(f"/v1/clusters/{cid}/events:batch", json={"dry_run": True, "events": [
        {"kind": "arrival", "event_id": "x1", "job_id": "x", "job_type": "small",
         "tenant": "ml"},
        {"kind": "departure", "event_id": "x2", "job_id": "x"},
        {"kind": "gang", "event_id": "x3", "gang_id": "y", "tenant": "web",
         "members": [{"job_id": "y-0", "job_type": "small"}]}]})
    assert r.status_code == 200, r.text
    results = r.json()["results"]
    assert [x["decision"] for x in results] == ["placed", "released", "rejected"]
    assert all(x["dry_run"] and x["event_seq"] is None for x in results)
    assert _state(client, cid) == before
    assert client.get(f"/v1/clusters/{cid}/events").json()["items"] == log
    # The same batch for real answers what its dry run said.
    real = client.post(f"/v1/clusters/{cid}/events:batch", json={"events": [
        {"kind": "arrival", "event_id": "x1", "job_id": "x", "job_type": "small",
         "tenant": "ml"},
        {"kind": "departure", "event_id": "x2", "job_id": "x"},
        {"kind": "gang", "event_id": "x3", "gang_id": "y", "tenant": "web",
         "members": [{"job_id": "y-0", "job_type": "small"}]}]}).json()["results"]
    strip = lambda x: {k: v for k, v in x.items() if k not in ("dry_run", "event_seq")}  # noqa: E731
    assert [strip(x) for x in real] == [strip(x) for x in results]


def test_quotas_change_by_generation_and_are_logged(client, app):
    cid = _cluster(client, "change", tenants=TENANTS)
    new = [{"name": "ml", "nominal": {"cpu": 8, "memory": 32}}]
    r = client.put(f"/v1/clusters/{cid}/tenants", json={"event_id": "q1", "generation": 1,
                                                       "tenants": new})
    assert r.status_code == 200, r.text
    assert r.json()["generation"] == 2 and r.json()["decision"] == "quotas_set"
    assert_problem(client.put(f"/v1/clusters/{cid}/tenants", json={
        "event_id": "q2", "generation": 1, "tenants": new}), 412, "precondition_failed",
        field="generation")
    assert_problem(client.put(f"/v1/clusters/{cid}/tenants", json={
        "event_id": "q3", "generation": 2, "tenants": [{"name": "ml", "nominal": {"gpu": 1}}]}),
        422, "validation_error", field="tenants[0].nominal")
    assert _state(client, cid)["tenancy"]["generation"] == 2
    assert_problem(_arrive(client, cid, "w", "web"), 404, "unknown_tenant", field="tenant")
    assert _arrive(client, cid, "m", "ml", job_type="big").json()["decision"] == "placed"
    [logged] = client.get(f"/v1/clusters/{cid}/events",
                          params={"decision": "quotas_set"}).json()["items"]
    assert logged["request"]["generation"] == 1
    key = create_key(app.state.ctx, "default", ["write"])["key"]
    assert_problem(client.put(f"/v1/clusters/{cid}/tenants", json={
        "event_id": "q4", "generation": 2, "tenants": new},
        headers={"Authorization": f"Bearer {key}"}), 403, "forbidden")


@pytest.mark.parametrize("tenants, field", [
    ([{"name": "a", "nominal": {"cpu": 1}}], "tenants[0].nominal"),
    ([{"name": "a", "nominal": {"cpu": 1, "memory": 1}, "borrowing_limit":
       {"cpu": 1, "memory": 1}}], "tenants[0].cohort"),
    ([{"name": "a", "cohort": "c", "nominal": {"cpu": 1, "memory": 1},
       "lending_limit": {"cpu": 2, "memory": 1}}], "tenants[0].lending_limit"),
    ([{"name": "a", "nominal": {"cpu": 1, "memory": 1}}] * 2, "tenants"),
])
def test_bad_tenants_are_refused_at_declaration(client, tenants, field):
    r = client.post("/v1/clusters", json={**SPEC, "name": "bad", "tenants": tenants})
    assert_problem(r, 422, "validation_error", field=field)
    assert client.get("/v1/clusters").json()["items"] == []


def test_tenants_and_preemptions_are_in_the_metrics(db_url):
    from app.main import create_app
    from tests.conftest import admin_client, make_settings
    from tests.helpers import METRICS_TOKEN, scrape

    app = create_app(make_settings(db_url, metrics_token=METRICS_TOKEN), configure_logs=False)
    with admin_client(app) as client:
        cid = _cluster(client, "metered", tenants=TENANTS[:2])
        for i in range(6):
            _arrive(client, cid, f"w{i}", "web")
        for i in range(3):
            _arrive(client, cid, f"m{i}", "ml")
        text = scrape(client)
    assert f'headroom_tenant_dominant_share{{cluster="{cid}",tenant="web"}} 0.125' in text
    assert f'headroom_tenant_dominant_share{{cluster="{cid}",tenant="ml"}} 0.0' in text
    assert f'headroom_tenant_preempted_jobs{{cluster="{cid}",tenant="web"}} 1.0' in text
    assert 'headroom_preemptions_total{reason="reclaim"} 1.0' in text


def test_a_jobs_history_holds_the_gang_it_came_in_and_the_event_that_preempted_it(client):
    cid = _cluster(client, "history", tenants=TENANTS[:2])
    assert client.post(f"/v1/clusters/{cid}/gangs", json={
        "event_id": "g", "gang_id": "g", "tenant": "web", "members": [
            {"job_id": f"w{i}", "job_type": "small"} for i in range(6)]}).json()["decision"] \
        == "placed"
    for i in range(3):
        _arrive(client, cid, f"m{i}", "ml")
    history = client.get(f"/v1/clusters/{cid}/events", params={"job_id": "w5"}).json()["items"]
    assert [(e["kind"], e["event_id"]) for e in history] == [("gang", "g"), ("arrival", "e-m2")]
    assert history[1]["response"]["preempted"][0]["job_id"] == "w5"
    assert [e["event_id"] for e in client.get(f"/v1/clusters/{cid}/events", params={
        "job_id": "m1"}).json()["items"]] == ["e-m1"]
    assert client.get(f"/v1/clusters/{cid}/events", params={"job_id": "w"}).json()["items"] == []


@pytest.mark.parametrize("clock", ["wall", "client"])
def test_gangs_and_quota_changes_on_dra_with_a_migration_budget(client, clock):
    """DRA's budget keeps time: a gang takes it as an arrival does, a quota change none."""
    cid = _cluster(client, f"budget-{clock}", policy={
        "kind": "dra", "migration_budget": {"rate": 1, "clock": clock}},
        tenants=[{"name": "t", "nominal": {"cpu": 8, "memory": 32}}])
    at = {"at": 5.0} if clock == "client" else {}
    r = client.post(f"/v1/clusters/{cid}/gangs", json={
        "event_id": "g", "gang_id": "g", "tenant": "t", **at,
        "members": [{"job_id": "a", "job_type": "small"}, {"job_id": "b", "job_type": "small"}]})
    assert r.status_code == 200, r.text
    assert r.json()["decision"] == "placed"
    if clock == "client":
        assert_problem(client.post(f"/v1/clusters/{cid}/gangs", json={
            "event_id": "g2", "gang_id": "g2", "tenant": "t",
            "members": [{"job_id": "c", "job_type": "small"}]}), 422, "validation_error",
            field="at")
        assert_problem(client.post(f"/v1/clusters/{cid}/gangs", json={
            "event_id": "g3", "gang_id": "g3", "tenant": "t", "at": 1.0,
            "members": [{"job_id": "c", "job_type": "small"}]}), 422, "validation_error",
            field="at")
    else:
        assert_problem(client.post(f"/v1/clusters/{cid}/gangs", json={
            "event_id": "g2", "gang_id": "g2", "tenant": "t", "at": 1.0,
            "members": [{"job_id": "c", "job_type": "small"}]}), 422, "validation_error",
            field="at")
    r = client.put(f"/v1/clusters/{cid}/tenants", json={
        "event_id": "q", "generation": 1, "tenants": [{"name": "t", "nominal": {"cpu": 2,
                                                                              "memory": 4}}]})
    assert r.status_code == 200, r.text
    assert _state(client, cid)["tenancy"]["generation"] == 2


@pytest.mark.parametrize("kind", ["first_fit", "power_of_d"])
def test_a_cluster_without_tenants_places_gangs_whole_or_not_at_all(client, kind):
    cid = _cluster(client, "plain-gangs", policy={"kind": kind})
    two = [{"job_id": "a", "job_type": "big"}, {"job_id": "b", "job_type": "big"}]
    r = client.post(f"/v1/clusters/{cid}/gangs", json={"event_id": "g", "gang_id": "g",
                                                       "members": two}).json()
    assert r["decision"] == "placed" and r["preempted"] == []
    r = client.post(f"/v1/clusters/{cid}/gangs", json={
        "event_id": "h", "gang_id": "h", "members": [
            {"job_id": "c", "job_type": "small"}, {"job_id": "d", "job_type": "big"}]}).json()
    assert r["decision"] == "rejected" and r["failed"]["job_id"] in ("c", "d")
    state = _state(client, cid)
    assert state["jobs"] == 2 and state.get("tenancy") is None
    assert_problem(client.post(f"/v1/clusters/{cid}/gangs", json={
        "event_id": "i", "gang_id": "i", "tenant": "t", "members": two[:1]}), 422,
        "validation_error", field="tenant")
    assert_problem(client.put(f"/v1/clusters/{cid}/tenants", json={
        "event_id": "q", "generation": 1, "tenants": [
            {"name": "t", "nominal": {"cpu": 1, "memory": 1}}]}), 422, "validation_error",
        field="tenant")
