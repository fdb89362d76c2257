"""API keys: 401 without a valid key, 403 for the wrong scope, 404 for another owner's cluster
(as for one that does not exist: tests/api/test_tenancy.py walks every id route)."""

from __future__ import annotations

import re

import pytest
from fastapi.routing import iter_route_contexts
from fastapi.testclient import TestClient

from app.main import create_app
from app.service.auth import create_key
from tests.conftest import admin_client, make_settings
from tests.helpers import assert_problem, cluster_spec, create_cluster

PUBLIC = {"/livez", "/readyz", "/metrics", "/docs", "/docs/oauth2-redirect", "/redoc",
          "/openapi.json", "/docs-assets",
          # The dashboard's page and assets carry no data: the page asks for a key and reads
          # everything through /v1 with it (tests/dashboard/test_dashboard_browser.py).
          "/dashboard", "/dashboard/", "/dashboard/assets"}


def _key(app, owner="default", scopes=("admin",), clusters=None) -> dict:
    return create_key(app.state.ctx, owner, list(scopes), clusters)


def _as(app, key: dict) -> TestClient:
    return TestClient(app, headers={"Authorization": f"Bearer {key['key']}"})


def test_every_v1_route_requires_a_key(app, client):
    """Walks the app's routes: a new route without the key check fails this test."""
    cid = create_cluster(client)["id"]
    anonymous = TestClient(app)
    bogus = TestClient(app, headers={"Authorization": "Bearer hr_not-a-real-key"})
    checked = 0
    # iter_route_contexts flattens included routers (app.routes holds wrappers since FastAPI
    # 0.137), so every served route is seen, including ones added later.
    for route in iter_route_contexts(app.routes):
        if route.path in PUBLIC:
            continue
        assert route.path.startswith("/v1/"), f"unexpected public route {route.path}"
        path = re.sub(r"\{cluster_id\}", cid, route.path)
        path = re.sub(r"\{[a-z_]+\}", "x", path)
        for method in route.methods:
            for c in (anonymous, bogus):
                r = c.request(method, path, json={})
                body = assert_problem(r, 401, "unauthorized")
                assert r.headers["www-authenticate"].startswith("Bearer"), body
            checked += 1
    assert checked >= 10
    # ...and the public ones are public.
    assert anonymous.get("/livez").status_code == 200
    assert anonymous.get("/docs").status_code == 200


def test_scopes(app, client):
    a = create_cluster(client, name="a")["id"]
    b = create_cluster(client, name="b")["id"]
    reader = _as(app, _key(app, scopes=["read"]))
    writer_a = _as(app, _key(app, scopes=["write"], clusters=["a"]))
    event = {"event_id": "e1", "job_id": "j1", "job_type": "small"}

    assert reader.get(f"/v1/clusters/{a}/state").status_code == 200
    assert_problem(reader.post(f"/v1/clusters/{a}/arrivals", json=event), 403, "forbidden")
    assert_problem(reader.post("/v1/clusters", json=cluster_spec()), 403, "forbidden")

    assert writer_a.post(f"/v1/clusters/{a}/arrivals", json=event).status_code == 200
    assert_problem(writer_a.post(f"/v1/clusters/{b}/arrivals", json=event), 403)
    assert writer_a.get(f"/v1/clusters/{b}/state").status_code == 200  # write implies read
    assert_problem(writer_a.delete(f"/v1/clusters/{a}"), 403)
    assert_problem(writer_a.post("/v1/keys", json={"scopes": ["admin"]}), 403)
    assert client.get(f"/v1/clusters/{b}").json()["version"] == 0


def test_owners_are_isolated(app, client):
    mine = create_cluster(client, name="shared-name")["id"]
    other = _as(app, _key(app, owner="acme"))
    assert other.get("/v1/clusters").json()["items"] == []
    assert_problem(other.get(f"/v1/clusters/{mine}"), 404, "cluster_not_found")
    assert_problem(other.post(f"/v1/clusters/{mine}/arrivals",
                              json={"event_id": "e", "job_id": "j", "job_type": "small"}), 404,
                   "cluster_not_found")
    assert_problem(other.delete(f"/v1/clusters/{mine}"), 404, "cluster_not_found")
    # Names are unique per owner, not globally.
    theirs = other.post("/v1/clusters", json=cluster_spec(name="shared-name"))
    assert theirs.status_code == 201 and theirs.json()["owner"] == "acme"
    assert [c["id"] for c in client.get("/v1/clusters").json()["items"]] == [mine]


def test_keys_endpoints_create_list_revoke(app, client):
    create_cluster(client, name="a")  # a limit names existing clusters
    r = client.post("/v1/keys", json={"scopes": ["write"], "clusters": ["a"],
                                      "description": "ci robot"})
    assert r.status_code == 201
    created = r.json()
    assert created["key"].startswith("hr_") and created["scopes"] == ["write"]
    listed = client.get("/v1/keys").json()["items"]
    assert created["id"] in [k["id"] for k in listed]
    assert all("key" not in k for k in listed), "secrets are never listed"
    robot = TestClient(app, headers={"Authorization": f"Bearer {created['key']}"})
    assert robot.get("/v1/clusters").status_code == 200
    assert client.delete(f"/v1/keys/{created['id']}").status_code == 204
    assert_problem(robot.get("/v1/clusters"), 401, "unauthorized")
    assert_problem(client.delete(f"/v1/keys/{created['id']}"), 404)
    assert_problem(client.post("/v1/keys", json={"scopes": ["root"]}), 422)
    assert_problem(client.post("/v1/keys", json={"scopes": []}), 422)


def test_other_owners_keys_are_invisible(app, client):
    other = _key(app, owner="acme")
    assert other["id"] not in [k["id"] for k in client.get("/v1/keys").json()["items"]]
    assert_problem(client.delete(f"/v1/keys/{other['id']}"), 404)


@pytest.mark.parametrize("header", ["Basic dXNlcjpwYXNz", "Bearer", "hr_raw-without-scheme"])
def test_malformed_authorization_headers_are_401(app, header):
    r = TestClient(app, headers={"Authorization": header}).get("/v1/clusters")
    assert_problem(r, 401, "unauthorized")


def test_auth_can_be_switched_off_explicitly(db_url):
    app = create_app(make_settings(db_url, auth_disabled=True), configure_logs=False)
    with TestClient(app) as anonymous:
        assert anonymous.post("/v1/clusters", json=cluster_spec()).status_code == 201
    with admin_client(create_app(make_settings(db_url), configure_logs=False)) as c:
        assert c.get("/v1/clusters").status_code == 200
        assert_problem(TestClient(c.app).get("/v1/clusters"), 401)
