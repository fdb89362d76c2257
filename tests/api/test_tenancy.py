"""Owners and the keys that act for them: idempotency records never cross owners, a key's
cluster limit means what it says (bound to cluster ids, refused where it would be ignored),
and every key minted through the API records the key that minted it."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from app.cli import main
from app.config import get_settings
from app.service.auth import create_key
from tests.helpers import assert_problem, cluster_spec, create_cluster

PREFIX = "tenant-" + "x" * 41  # 48 characters that two owners share


def _as(app, owner: str = "default", scopes=("admin",), clusters=None) -> TestClient:
    key = create_key(app.state.ctx, owner, list(scopes), clusters)
    return TestClient(app, headers={"Authorization": f"Bearer {key['key']}"})


@pytest.mark.parametrize("route, body", [
    ("/v1/clusters", cluster_spec(name="web")),
    ("/v1/reservations", {"name": "web", "policy": {"kind": "thor"},
                          "resources": [{"name": "cpu", "cost": 1, "epsilon": 0.05}]}),
])
def test_owners_with_a_long_common_prefix_never_replay_each_other(app, route, body):
    """The scope was "clusters.create:<owner>" cut to 64 characters: one tenant got a 201 with
    the other tenant's cluster."""
    alpha = _as(app, PREFIX + "-alpha")
    beta = _as(app, PREFIX + "-beta")
    retry = {"Idempotency-Key": "create-web-1"}
    first = alpha.post(route, json=body, headers=retry)
    second = beta.post(route, json=body, headers=retry)
    assert first.status_code == second.status_code == 201, (first.text, second.text)
    assert "idempotent-replayed" not in second.headers
    assert first.json()["owner"] == PREFIX + "-alpha"
    assert second.json()["owner"] == PREFIX + "-beta"
    assert first.json()["id"] != second.json()["id"]
    assert [c["id"] for c in beta.get(route).json()["items"]] == [second.json()["id"]]
    # ...and each owner's own retry still replays its own answer.
    again = beta.post(route, json=body, headers=retry)
    assert again.headers["idempotent-replayed"] == "true"
    assert again.json()["id"] == second.json()["id"]


@pytest.mark.parametrize("scopes", [["admin"], ["admin", "write"], ["read"]])
def test_a_cluster_limit_on_a_key_it_cannot_limit_is_refused(client, scopes):
    """An admin can rename clusters and mint an unlimited key, and a read key writes nothing:
    the limit would be ignored, so it is refused rather than accepted silently."""
    create_cluster(client, name="a")
    before = client.get("/v1/keys").json()
    body = assert_problem(client.post("/v1/keys", json={"scopes": scopes, "clusters": ["a"]}),
                          422, "validation_error")
    assert body["errors"][0]["field"] == "clusters"
    assert client.get("/v1/keys").json() == before


def test_the_cli_refuses_an_admin_key_with_a_cluster_limit(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("HEADROOM_DATABASE_URL", f"sqlite:///{tmp_path / 'k.db'}")
    get_settings.cache_clear()
    try:
        assert main(["keys", "create", "--scope", "admin", "--cluster", "a"]) == 2
        assert "cluster limit" in capsys.readouterr().err
        assert main(["keys", "create", "--scope", "admin", "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["created_by"] is None
    finally:
        get_settings.cache_clear()


def test_a_limited_write_key_is_bound_to_cluster_ids_not_names(app, client):
    a = create_cluster(client, name="a")["id"]
    r = client.post("/v1/keys", json={"scopes": ["write"], "clusters": ["a"]})
    assert r.status_code == 201, r.text
    assert r.json()["cluster_ids"] == [a] and r.json()["clusters"] == ["a"]
    robot = TestClient(app, headers={"Authorization": f"Bearer {r.json()['key']}"})
    event = {"event_id": "e1", "job_id": "j1", "job_type": "small"}

    # Rename "a" away and declare another cluster under the old name: the key follows the id.
    assert client.patch(f"/v1/clusters/{a}", json={"name": "a-old"}).status_code == 200
    impostor = create_cluster(client, name="a")["id"]
    assert_problem(robot.post(f"/v1/clusters/{impostor}/arrivals", json=event), 403,
                   "forbidden")
    assert robot.post(f"/v1/clusters/{a}/arrivals", json=event).status_code == 200
    listed = {k["id"]: k for k in client.get("/v1/keys").json()["items"]}[r.json()["id"]]
    assert listed["cluster_ids"] == [a] and listed["clusters"] == ["a-old"]


def test_a_limit_naming_an_unknown_cluster_is_refused(app, client):
    create_cluster(client, name="a")
    _as(app, "acme").post("/v1/clusters", json=cluster_spec(name="theirs"))
    before = client.get("/v1/keys").json()
    for names in (["a", "nope"], ["theirs"]):  # another owner's cluster is unknown here
        body = assert_problem(client.post("/v1/keys", json={"scopes": ["write"],
                                                            "clusters": names}), 422,
                              "validation_error")
        assert body["errors"][0]["field"].startswith("clusters["), body
    assert client.get("/v1/keys").json() == before


def test_keys_record_who_minted_them_and_outlive_the_minter(app, client):
    """Revoking a key does not revoke the keys it minted (rotating an admin key must not cut
    off every robot); ``created_by`` says where each came from, so they can be found."""
    minter = client.post("/v1/keys", json={"scopes": ["admin"]}).json()
    as_minter = TestClient(app, headers={"Authorization": f"Bearer {minter['key']}"})
    minted = as_minter.post("/v1/keys", json={"scopes": ["read"]}).json()
    me = client.get("/v1/keys").json()["items"]
    by_id = {k["id"]: k for k in me}
    assert by_id[minted["id"]]["created_by"] == minter["id"]
    assert by_id[minter["id"]]["created_by"] not in (None, minter["id"])  # the fixture's key
    assert minted["created_by"] == minter["id"]

    assert client.delete(f"/v1/keys/{minter['id']}").status_code == 204
    assert_problem(as_minter.get("/v1/clusters"), 401, "unauthorized")
    robot = TestClient(app, headers={"Authorization": f"Bearer {minted['key']}"})
    assert robot.get("/v1/clusters").status_code == 200
    after = {k["id"]: k for k in client.get("/v1/keys").json()["items"]}
    assert after[minted["id"]]["created_by"] == minter["id"]
    assert after[minter["id"]]["revoked_at"] is not None
