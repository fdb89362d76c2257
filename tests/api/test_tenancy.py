"""Owners and the keys that act for them: idempotency records never cross owners, a key's
cluster limit means what it says (bound to cluster ids, refused where it would be ignored),
and every key minted through the API records the key that minted it."""

from __future__ import annotations

import json
import re
import uuid

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


def _id_routes() -> list[tuple[str, str, str, dict]]:
    """(method, path template, operationId, required query) of every route of the OpenAPI
    document that names a cluster, a reservation stream or a key by id. A required query
    parameter gets its minimum (the only one is a number)."""
    from app.cli import openapi_document

    doc = openapi_document()
    return [(method.upper(), path, op["operationId"],
             {p["name"]: p["schema"]["minimum"] for p in op.get("parameters", [])
              if p["in"] == "query" and p.get("required")})
            for path, ops in doc["paths"].items() for method, op in ops.items()
            if re.search(r"\{(cluster_id|reservation_id|key_id)\}", path)]


def _comparable(r, ident: str) -> tuple:
    """An answer with what may differ between two ids left out: the request id, the instance
    (the path asked for) and the id itself where the detail quotes it."""
    headers = {k: v for k, v in r.headers.items() if k != "x-request-id"}
    body = r.json()
    body.pop("instance", None)
    return r.status_code, headers, json.dumps(body, sort_keys=True).replace(ident, "ID")


def test_another_owners_ids_answer_exactly_as_ids_that_do_not_exist(app):
    """An owner's cluster, stream or key id, asked for by another owner, must not be told apart
    from an id that names nothing (a 403 "belongs to another owner" was an existence oracle):
    for every id route of the OpenAPI document, with a valid body (its example), owner B's
    keys get byte-identical answers for owner A's ids of every kind and for random ids."""
    from tests.api.test_openapi_examples import EXAMPLES

    owner_a = _as(app, "alpha")
    placement, moment = EXAMPLES["createCluster"]
    mine = {
        "placement": ok(owner_a.post("/v1/clusters", json=placement))["id"],
        "queue": ok(owner_a.post("/v1/clusters", json={
            **placement, "name": "queued", "policy": {"kind": "rms"}}))["id"],
        "moment": ok(owner_a.post("/v1/clusters", json=moment))["id"],
        "reservation": ok(owner_a.post("/v1/reservations",
                                       json=EXAMPLES["createReservation"][0]))["id"],
    }
    a_key = ok(owner_a.post("/v1/keys", json={"scopes": ["read"]}))["id"]
    a_limited = ok(owner_a.post("/v1/keys", json={"scopes": ["write"],
                                                   "clusters": [placement["name"]]}))["key"]
    b_keys = {scope: create_key(app.state.ctx, "beta", [scope])["key"]
              for scope in ("admin", "write", "read")}
    routes = _id_routes()
    assert len(routes) >= 30, routes
    compared = 0
    for method, template, op, query in routes:
        body = EXAMPLES[op][0] if op in EXAMPLES else None
        theirs = [a_key] if "{key_id}" in template else list(mine.values())
        for scope, key in b_keys.items():
            b = TestClient(app, headers={"Authorization": f"Bearer {key}"})
            for ident in theirs:
                nowhere = str(uuid.uuid4()) if "{key_id}" not in template else \
                    uuid.uuid4().hex[:12]
                assert len(nowhere) == len(ident)

                def url(i: str) -> str:
                    path = re.sub(r"\{(cluster_id|reservation_id|key_id)\}", i, template)
                    path = path.replace("{api_key}", key)  # noqa: B023 - used at once
                    return re.sub(r"\{[a-z_]+\}", "x", path)

                answers = [b.request(method, url(i), json=body, params=query)
                           for i in (ident, nowhere)]
                # (A key without the admin scope gets the keys routes' 403 before any lookup.)
                if scope == "admin" or "{key_id}" not in template:
                    assert answers[0].status_code == 404, (op, scope, answers[0].text)
                assert _comparable(answers[0], ident) == _comparable(answers[1], nowhere), \
                    (op, scope, answers[0].text, answers[1].text)
                compared += 1
    assert compared >= 300, compared
    # The owner's own: a route of another kind is a 409 naming the kind, a limited write key a
    # 403, and what B tried changed nothing of A's.
    assert_problem(owner_a.get(f"/v1/clusters/{mine['moment']}/servers"), 409,
                   "wrong_cluster_kind")
    limited = TestClient(app, headers={"Authorization": f"Bearer {a_limited}"})
    assert_problem(limited.post(f"/v1/clusters/{mine['queue']}/arrivals",
                                json=EXAMPLES["postArrival"][0]), 403, "forbidden")
    for kind, cid in mine.items():
        route = "/v1/reservations/" if kind == "reservation" else "/v1/clusters/"
        assert ok(owner_a.get(route + cid))["version"] == 0, kind
    assert a_key in [k["id"] for k in ok(owner_a.get("/v1/keys"))["items"]]


def ok(r) -> dict:
    assert r.status_code in (200, 201), r.text
    return r.json()
