"""A family defined only under tests/plugins/toy is served end to end once its declaration is
passed to ``create_app``: declared, its events decided and logged, its state read, replayed
by a new application on the same database, and listed where the dashboard's overview looks."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.families.registry import REGISTRY
from app.main import create_app
from app.service.auth import create_key
from tests.conftest import make_settings
from tests.plugins.toy.declaration import TOY

FAMILIES = (*REGISTRY.families, TOY)


def _client(db_url: str) -> TestClient:
    # A snapshot every 3 events, so that a restart loads one and replays the log after it.
    app = create_app(make_settings(db_url, snapshot_every=3), configure_logs=False,
                     families=FAMILIES)
    key = create_key(app.state.ctx, "toy-owner", ["admin"])["key"]
    return TestClient(app, headers={"Authorization": f"Bearer {key}"})


def _take(client: TestClient, cid: str, event_id: str, holder: str, tokens: int):
    return client.post(f"/v1/clusters/{cid}/tokens:take",
                       json={"event_id": event_id, "holder": holder, "tokens": tokens})


@pytest.fixture
def toy(db_url):
    client = _client(db_url)
    r = client.post("/v1/clusters", json={"name": "toys", "policy": {"kind": "toy_counter"},
                                          "capacity": 5})
    assert r.status_code == 201, r.text
    return client, r.json()


def test_a_toy_cluster_is_declared_decided_logged_and_read(toy):
    client, cluster = toy
    cid = cluster["id"]
    assert cluster["family"] == "toy" and cluster["policy"] == {"kind": "toy_counter"}
    first = _take(client, cid, "e1", "alice", 3)
    assert first.status_code == 200
    assert first.json() | {"event_seq": 1} == {
        "decision": "granted", "granted": 3, "free": 2, "reason": "fits", "event_seq": 1,
        "replayed": False, "dry_run": False}
    assert _take(client, cid, "e2", "bob", 3).json()["decision"] == "refused"
    assert _take(client, cid, "e1", "alice", 3).json()["replayed"] is True
    given = client.post(f"/v1/clusters/{cid}/tokens:give",
                        json={"event_id": "e3", "holder": "alice", "tokens": 1})
    assert given.json()["decision"] == "returned" and given.json()["free"] == 3
    unknown = client.post(f"/v1/clusters/{cid}/tokens:give",
                          json={"event_id": "e4", "holder": "carol", "tokens": 1})
    assert unknown.status_code == 404 and unknown.json()["code"] == "toy_unknown_holder"

    state = client.get(f"/v1/clusters/{cid}/state").json()
    assert state == {"cluster_id": cid, "version": 3, "policy": "toy_counter", "capacity": 5,
                     "used": 2, "holders": 1}
    log = client.get(f"/v1/clusters/{cid}/events").json()["items"]
    assert [(e["seq"], e["kind"], e["decision"]) for e in log] == [
        (1, "take", "granted"), (2, "take", "refused"), (3, "give", "returned")]
    summary = client.get(f"/v1/clusters/{cid}/decisions").json()
    assert summary["decisions"] == {"granted": 1, "refused": 1, "returned": 1}


def test_a_toy_cluster_replays_in_a_new_application(toy, db_url):
    client, cluster = toy
    cid = cluster["id"]
    for i, (holder, tokens) in enumerate([("a", 2), ("b", 2), ("c", 2), ("d", 1)]):
        _take(client, cid, f"e{i}", holder, tokens)
    before = client.get(f"/v1/clusters/{cid}/state").json()
    # A new process on the same database: its engine comes from the snapshot taken at event 3
    # (to_state, from_state) and the log after it, each logged decision decided again and
    # compared.
    restarted = _client(db_url)
    assert restarted.get(f"/v1/clusters/{cid}/state").json() == before == {
        "cluster_id": cid, "version": 4, "policy": "toy_counter", "capacity": 5, "used": 5,
        "holders": 3}
    assert _take(restarted, cid, "e9", "e", 1).json()["decision"] == "refused"
    assert _take(restarted, cid, "e0", "a", 2).json()["replayed"] is True


def test_the_overview_lists_toy_clusters_and_other_routes_refuse_them(toy):
    client, cluster = toy
    cid = cluster["id"]
    listed = client.get("/v1/clusters").json()["items"]
    assert [(c["name"], c["family"]) for c in listed] == [("toys", "toy")]
    assert client.get(f"/v1/clusters/{cid}").json()["family"] == "toy"
    assert client.get("/dashboard").status_code == 200
    # Routes of a capability the toy lacks, or of another family, answer as for any cluster
    # of a family without it.
    for path in ("servers", "jobs", "jobs/j1", "deployments/d1"):
        r = client.get(f"/v1/clusters/{cid}/{path}")
        assert r.status_code == 409 and r.json()["code"] == "wrong_cluster_kind", path
        assert "POST /v1/clusters/{cluster_id}/tokens:take" in r.json()["detail"]


def test_an_application_without_the_toy_refuses_its_kind(db_url):
    client = _client(db_url)
    r = client.post("/v1/clusters", json={"name": "toys", "policy": {"kind": "toy_counter"},
                                          "capacity": 5})
    assert r.status_code == 201
    plain = create_app(make_settings(db_url), configure_logs=False)
    key = create_key(plain.state.ctx, "other", ["admin"])["key"]
    r = TestClient(plain, headers={"Authorization": f"Bearer {key}"}).post(
        "/v1/clusters", json={"name": "toys", "policy": {"kind": "toy_counter"}, "capacity": 5})
    assert r.status_code == 422
