"""Gangs on queued clusters over HTTP: a gang starts whole when room (and quota) for all its
members is free at once, waits whole until then, is refused when its timeout passes, and is
withdrawn whole when a member departs first."""

from __future__ import annotations

from typing import Any

from app.policies.rms.family import QueueAdapter
from tests.api.test_tenants import assert_problem

SPEC: dict[str, Any] = {
    "dimensions": ["cpu"],
    "server_pools": [{"name": "p", "count": 2, "capacity": {"cpu": 4}}],
    "job_types": [{"name": "one", "demand": {"cpu": 1}}],
    "policy": {"kind": "first_fit_queue", "clock": "client"},
}


def _cluster(client, name: str, **extra: Any) -> str:
    r = client.post("/v1/clusters", json={**SPEC, "name": name, **extra})
    assert r.status_code == 201, r.text
    return r.json()["id"]


def _arrive(client, cid: str, job: str, at: float, **extra: Any) -> dict[str, Any]:
    r = client.post(f"/v1/clusters/{cid}/arrivals", json={
        "event_id": f"e-{job}", "job_id": job, "job_type": "one", "at": at, **extra})
    assert r.status_code in (200, 202), r.text
    return r.json()


def _gang(client, cid: str, gang: str, size: int, at: float, **extra: Any):
    return client.post(f"/v1/clusters/{cid}/gangs", json={
        "event_id": f"g-{gang}", "gang_id": gang, "at": at, **extra,
        "members": [{"job_id": f"{gang}-{i}", "job_type": "one"} for i in range(size)]})


def _depart(client, cid: str, job: str, at: float):
    return client.post(f"/v1/clusters/{cid}/departures",
                       json={"event_id": f"d-{job}", "job_id": job, "at": at})


def _job(client, cid: str, job: str) -> dict[str, Any]:
    return client.get(f"/v1/clusters/{cid}/jobs/{job}").json()


def test_a_gang_waits_whole_until_room_for_all_of_it_frees_then_starts_at_once(client):
    cid = _cluster(client, "gangs")
    for i in range(6):
        _arrive(client, cid, f"j{i}", float(i))
    r = _gang(client, cid, "train", 3, 10.0)
    assert r.status_code == 202, r.text
    body = r.json()
    assert body["decision"] == "queued" and body["reason"] == "waiting_for_room"
    assert body["position"] == 0
    assert [m["server_id"] for m in body["members"]] == [None, None, None]
    member = _job(client, cid, "train-0")
    assert member["status"] == "queued" and member["reason"] == "waiting_for_gang"
    assert member["gang_id"] == "train" and "gang" in member["forecast"]["reason"]
    assert client.get(f"/v1/clusters/{cid}/state").json()["running"] == {"one": 6}
    # two cpu free: not enough for three members, so none starts
    r = client.post(f"/v1/clusters/{cid}/tick", json={"until": 11.0})
    assert r.json()["decision"] == "idle"
    released = _depart(client, cid, "j0", 12.0).json()
    starts = {s["job_id"]: s for s in released["started"]}
    assert sorted(starts) == ["train-0", "train-1", "train-2"]
    assert {s["at"] for s in starts.values()} == {12.0}
    assert {s["queued_at"] for s in starts.values()} == {10.0}
    for i in range(3):
        view = _job(client, cid, f"train-{i}")
        assert view["status"] == "running" and view["server_id"] == starts[f"train-{i}"][
            "server_id"]
    # each member departs on its own
    assert _depart(client, cid, "train-1", 13.0).json()["decision"] == "released"
    assert _job(client, cid, "train-0")["status"] == "running"


def test_a_gang_that_fits_starts_at_once_and_one_past_its_timeout_is_refused(client):
    cid = _cluster(client, "timeouts")
    r = _gang(client, cid, "now", 3, 1.0)
    assert r.status_code == 200 and r.json()["decision"] == "started", r.text
    assert r.json()["reason"] == "all_started"
    assert [m["server_id"] for m in r.json()["members"]] == ["p-0"] * 3
    r = _gang(client, cid, "late", 6, 2.0, timeout=5.0)
    assert r.status_code == 202 and r.json()["reason"] == "waiting_for_room"
    tick = client.post(f"/v1/clusters/{cid}/tick", json={"until": 6.0}).json()
    assert tick["decision"] == "idle"  # not yet due
    tick = client.post(f"/v1/clusters/{cid}/tick", json={"until": 8.0}).json()
    assert tick["decision"] == "advanced" and tick["gangs_timed_out"] == ["late"]
    assert _job(client, cid, "late-0")["status"] == "withdrawn"
    assert_problem(_depart(client, cid, "late-0", 9.0), 409, None)
    # the room it waited for was never taken
    assert client.get(f"/v1/clusters/{cid}/state").json()["running"] == {"one": 3}


def test_a_departing_member_withdraws_its_waiting_gang_and_ids_stay_unique(client):
    cid = _cluster(client, "withdrawals")
    for i in range(8):
        _arrive(client, cid, f"j{i}", float(i))
    assert _gang(client, cid, "g", 2, 10.0).status_code == 202
    assert_problem(client.post(f"/v1/clusters/{cid}/arrivals", json={
        "event_id": "dup", "job_id": "g-1", "job_type": "one", "at": 11.0}),
        409, "job_already_known")
    assert_problem(client.post(f"/v1/clusters/{cid}/gangs", json={
        "event_id": "dup1", "gang_id": "g", "at": 11.0,
        "members": [{"job_id": "other", "job_type": "one"}]}), 409, "job_already_known")
    assert_problem(client.post(f"/v1/clusters/{cid}/gangs", json={
        "event_id": "dup2", "gang_id": "h", "at": 11.0,
        "members": [{"job_id": "j3", "job_type": "one"}]}), 409, "job_already_known")
    withdrawn = _depart(client, cid, "g-0", 12.0).json()
    assert withdrawn["decision"] == "withdrawn" and withdrawn["gang_id"] == "g"
    assert _job(client, cid, "g-1")["status"] == "withdrawn"
    released = _depart(client, cid, "j0", 13.0).json()
    assert released["started"] == []  # nothing of the gang is left to start


def test_a_gang_waits_for_its_tenants_quota_as_a_whole(client):
    cid = _cluster(client, "tenant-gangs", tenants=[
        {"name": "ml", "nominal": {"cpu": 3}}, {"name": "web", "nominal": {"cpu": 5}}])
    _arrive(client, cid, "m0", 1.0, tenant="ml")
    r = _gang(client, cid, "t", 3, 2.0, tenant="ml")
    assert r.status_code == 202
    body = r.json()
    assert body["reason"] == "waiting_for_quota"
    assert body["details"]["quota"]["short"] == {"cpu": 1.0}
    assert _job(client, cid, "t-0")["tenant"] == "ml"
    assert_problem(_gang(client, cid, "u", 1, 3.0), 422, "validation_error")  # no tenant
    released = _depart(client, cid, "m0", 4.0).json()
    assert sorted(s["job_id"] for s in released["started"]) == ["t-0", "t-1", "t-2"]
    tenancy = client.get(f"/v1/clusters/{cid}/state").json()["tenancy"]["tenants"]
    assert {t["name"]: t["usage"]["cpu"] for t in tenancy} == {"ml": 3.0, "web": 0.0}


def test_a_batch_takes_a_gang_and_dry_runs_it_on_a_copy(client):
    cid = _cluster(client, "batches")
    r = client.post(f"/v1/clusters/{cid}/events:batch", json={"events": [
        {"kind": "arrival", "event_id": "b1", "job_id": "x", "job_type": "one", "at": 1.0},
        {"kind": "gang", "event_id": "b2", "gang_id": "g", "at": 2.0, "timeout": 3.0,
         "members": [{"job_id": f"g-{i}", "job_type": "one"} for i in range(7)]}]})
    assert r.status_code == 200, r.text
    first, gang = r.json()["results"]
    assert first["decision"] == "started" and gang["decision"] == "started"
    assert len({m["server_id"] for m in gang["members"]}) == 2
    state = client.get(f"/v1/clusters/{cid}/state").json()
    plan = {"kind": "gang", "event_id": "b3", "gang_id": "h", "at": 3.0,
            "members": [{"job_id": "h-0", "job_type": "one"}]}
    r = client.post(f"/v1/clusters/{cid}/events:batch", json={"dry_run": True,
                                                              "events": [plan]})
    [answer] = r.json()["results"]
    assert answer["dry_run"] and answer["reason"] == "waiting_for_room", answer
    assert client.get(f"/v1/clusters/{cid}/state").json() == state
    assert_problem(client.post(f"/v1/clusters/{cid}/gangs", json={
        **{k: v for k, v in plan.items() if k != "kind"}, "dry_run": True}),
        422, "dry_run_unsupported")


def test_a_placement_cluster_refuses_a_gangs_timeout(client):
    cid = _cluster(client, "placement", policy={"kind": "first_fit"})
    r = client.post(f"/v1/clusters/{cid}/gangs", json={
        "event_id": "g", "gang_id": "g", "timeout": 5,
        "members": [{"job_id": "a", "job_type": "one"}]})
    assert_problem(r, 422, "validation_error", field="timeout")


def test_a_waiting_gangs_timeout_is_the_clusters_next_event():
    adapter = QueueAdapter.build({**SPEC, "seed": 0, "job_types": [
        {"name": "one", "demand": {"cpu": 1}, "reward": 1}]})
    for i in range(8):
        adapter.apply({"kind": "arrival", "job_id": f"j{i}", "job_type": "one", "at": 0.0})
    adapter.apply({"kind": "gang", "gang_id": "g", "at": 1.0, "timeout": 4.0,
                   "members": [{"job_id": "g-0", "job_type": "one"}]})
    assert adapter.next_event_time() == 5.0 and adapter.waiting
    assert adapter.idle(5.0) is not None and adapter.idle(6.0) is None
