"""Input that must be refused at the edge: NUL and other control characters (Postgres text and
JSONB cannot hold NUL: psycopg raised and the request ended in a 500), ids that cannot be a
path segment, and Idempotency-Key headers that the body's event_id would refuse."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from fastapi.routing import iter_route_contexts
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text

from tests.helpers import assert_problem, cluster_spec, create_cluster

QUEUE = {"kind": "best_fit_queue", "clock": "client"}
STREAM = {"name": "web", "policy": {"kind": "thor"},
          "resources": [{"name": "cpu", "cost": 1, "epsilon": 0.05}]}


@pytest.fixture
def world(client):
    """One thing of every kind, each with something in it for the routes to find."""
    placement = create_cluster(client, name="p")["id"]
    queue = create_cluster(client, name="q", policy=QUEUE)["id"]
    moment = client.post("/v1/clusters", json={"name": "m", "capacity_cores": 100,
                                               "policy": {"kind": "threshold"}}).json()["id"]
    stream = client.post("/v1/reservations", json=STREAM).json()["id"]
    assert client.post(f"/v1/clusters/{placement}/arrivals",
                       json={"event_id": "e1", "job_id": "j1", "job_type": "small"}).is_success
    assert client.post(f"/v1/clusters/{queue}/arrivals", json={
        "event_id": "e1", "job_id": "j1", "job_type": "small", "at": 1}).is_success
    assert client.post(f"/v1/clusters/{moment}/deployments", json={
        "event_id": "e1", "deployment_id": "d1", "cores": 2, "at": 0}).is_success
    # The Kubernetes routes that carry the key in their path (the scheduler sends no headers).
    key = client.headers["Authorization"].removeprefix("Bearer ")
    return {"placement": placement, "queue": queue, "moment": moment, "stream": stream,
            "key": key}


def _fingerprint(db_url: str) -> list:
    """Everything a refused request could have changed."""
    engine = create_engine(db_url)
    try:
        with engine.connect() as conn:
            return [conn.execute(text(q)).all() for q in (
                "SELECT id, name, version, generation FROM clusters ORDER BY id",
                "SELECT cluster_id, seq FROM events ORDER BY cluster_id, seq",
                "SELECT id, revoked_at FROM api_keys ORDER BY id",
                "SELECT scope, key FROM idempotency_keys ORDER BY scope, key")]
    finally:
        engine.dispose()


def _concrete(route_path: str, world: dict, param: str, bad: str) -> str:
    """The route's path with ``param`` set to ``bad`` and every other parameter to something
    that exists, so the bad value is what the handler looks up."""
    if "/deployments" in route_path or route_path.endswith("/admission"):
        cid, sub = world["moment"], "d1"
    elif "/jobs/" in route_path or route_path.endswith("/tick"):
        cid, sub = world["queue"], "j1"
    elif route_path.startswith("/v1/reservations"):
        cid, sub = world["stream"], None
    else:
        cid, sub = world["placement"], "rack-0"
    values = {"cluster_id": cid, "reservation_id": cid, "deployment_id": sub, "job_id": sub,
              "server_id": sub, "run_id": "00000000-0000-0000-0000-000000000000", "key_id": "0123456789ab", "api_key": world["key"]}
    return re.sub(r"\{([a-z_]+)\}", lambda m: bad if m[1] == param else values[m[1]],
                  route_path)


def _routes(app):
    for route in iter_route_contexts(app.routes):
        if route.path.startswith("/v1/"):
            for method in sorted(route.methods):
                yield method, route.path


@pytest.mark.parametrize("bad", ["x%00y", "%00", "x%1By%7F"])
def test_control_characters_in_path_parameters_are_refused(app, client, world, db_url, bad):
    c = TestClient(app, headers=client.headers, raise_server_exceptions=False)
    before = _fingerprint(db_url)
    checked = 0
    for method, path in _routes(app):
        for param in re.findall(r"\{([a-z_]+)\}", path):
            r = c.request(method, _concrete(path, world, param, bad), json={},
                          params={"at": 1} if method == "DELETE" else None)
            assert r.status_code < 500, (method, path, param, r.text)
            assert_problem(r, 404, "not_found")
            checked += 1
    assert checked >= 15
    assert _fingerprint(db_url) == before


@pytest.mark.parametrize("query", ["cursor=a%00b", "limit=5&cursor=x%0Ay", "event_id=e%00"])
def test_control_characters_in_query_strings_are_refused(app, client, world, db_url, query):
    c = TestClient(app, headers=client.headers, raise_server_exceptions=False)
    before = _fingerprint(db_url)
    for method, path in _routes(app):
        r = c.request(method, _concrete(path, world, "", "") + "?" + query, json={})
        assert r.status_code < 500, (method, path, r.text)
        body = assert_problem(r, 422, "validation_error")
        assert body["errors"][0]["field"] == query.split("&")[-1].split("=")[0]
    assert _fingerprint(db_url) == before


def _nul_bodies(world: dict) -> list[tuple[str, str, dict]]:
    """A body for each write route with a NUL in one string field (values or keys): the free
    text fields and the free-form dicts go to the database as they are."""
    p, q, m, s = world["placement"], world["queue"], world["moment"], world["stream"]
    nul = "a\u0000b"
    arrival = {"event_id": "e9", "job_id": "j9", "job_type": "small"}
    return [
        ("POST", "/v1/keys", {"scopes": ["read"], "description": nul}),
        ("POST", "/v1/clusters", cluster_spec(name=nul)),
        ("POST", "/v1/clusters", {**cluster_spec(), "dimensions": ["cpu", nul]}),
        ("PATCH", f"/v1/clusters/{p}", {"name": nul}),
        ("POST", f"/v1/clusters/{p}/arrivals", {**arrival, "event_id": nul}),
        ("POST", f"/v1/clusters/{p}/arrivals", {**arrival, "job_id": nul}),
        ("POST", f"/v1/clusters/{p}/arrivals", {**arrival, "job_type": nul}),
        ("POST", f"/v1/clusters/{p}/departures", {"event_id": "e9", "job_id": nul}),
        ("POST", f"/v1/clusters/{p}/events:batch", {"events": [
            {**arrival, "kind": "arrival", "job_id": nul}]}),
        ("POST", f"/v1/clusters/{p}/arrivals", {**arrival, "tenant": nul}),
        ("POST", f"/v1/clusters/{p}/gangs", {"event_id": "g9", "gang_id": nul, "members": [
            {"job_id": "j9", "job_type": "small"}]}),
        ("POST", f"/v1/clusters/{p}/gangs", {"event_id": "g9", "gang_id": "g", "members": [
            {"job_id": nul, "job_type": "small"}]}),
        ("PUT", f"/v1/clusters/{p}/tenants", {"event_id": "q9", "generation": 1, "tenants": [
            {"name": nul, "nominal": {"cpu": 1}}]}),
        ("PUT", f"/v1/clusters/{p}/tenants", {"event_id": "q9", "generation": 1, "tenants": [
            {"name": "t", "nominal": {nul: 1}}]}),
        ("POST", "/v1/clusters", {**cluster_spec(), "tenants": [
            {"name": "t", "nominal": {"cpu": 1}, "cohort": nul}]}),
        ("POST", f"/v1/clusters/{q}/arrivals", {**arrival, "at": 2, "job_id": nul}),
        ("POST", f"/v1/clusters/{m}/deployments", {
            "event_id": "e9", "deployment_id": "d9", "cores": 1, "at": 1,
            "prior": {"observations": {nul: 1}}}),
        ("POST", f"/v1/clusters/{m}/deployments", {
            "event_id": "e9", "deployment_id": "d9", "cores": 1, "at": 1, "prior": {nul: 1}}),
        ("POST", f"/v1/clusters/{m}/deployments", {
            "event_id": "e9", "deployment_id": "d9", "cores": 1, "at": 1,
            "prior": {"gamma": {"lambda": [nul, 1]}}}),
        ("POST", "/v1/reservations", {**STREAM, "name": "w2",
                                      "policy": {"kind": "thor", "params": {nul: 1}}}),
        ("POST", "/v1/reservations", {**STREAM, "name": "w2",
                                      "policy": {"kind": "ftl", "params": {"x": [nul]}}}),
        ("POST", f"/v1/reservations/{s}/observations", {
            "event_id": nul, "period": 0, "demand": {"cpu": 1}}),
    ]


def test_nul_in_any_body_string_is_refused(app, client, world, db_url):
    c = TestClient(app, headers=client.headers, raise_server_exceptions=False)
    before = _fingerprint(db_url)
    for method, path, body in _nul_bodies(world):
        r = c.request(method, path, json=body)
        assert r.status_code < 500, (method, path, body, r.text)
        assert_problem(r, 422, "validation_error")
    assert _fingerprint(db_url) == before


def test_an_escaped_backslash_before_u0000_is_not_a_nul(client):
    """``"\\\\u0000"`` in JSON is a backslash then the text u0000: legitimate, accepted."""
    r = client.post("/v1/keys", content=b'{"scopes": ["read"], "description": "\\\\u0000"}',
                    headers={"content-type": "application/json"})
    assert r.status_code == 201, r.text
    assert r.json()["description"] == "\\u0000"


@pytest.mark.parametrize("bad", ["team/web", "/", ".", "..", ".hidden", "a b", "x" * 201])
def test_ids_that_cannot_be_a_path_segment_are_refused(client, world, db_url, bad):
    before = _fingerprint(db_url)
    m, q, p = world["moment"], world["queue"], world["placement"]
    for path, body in (
            (f"/v1/clusters/{m}/deployments",
             {"event_id": "e9", "deployment_id": bad, "cores": 1, "at": 1}),
            (f"/v1/clusters/{q}/arrivals",
             {"event_id": "e9", "job_id": bad, "job_type": "small", "at": 2}),
            (f"/v1/clusters/{p}/arrivals",
             {"event_id": "e9", "job_id": bad, "job_type": "small"}),
            (f"/v1/clusters/{p}/events:batch",
             {"events": [{"kind": "arrival", "event_id": "e9", "job_id": bad,
                          "job_type": "small"}]})):
        body = assert_problem(client.post(path, json=body), 422, "validation_error")
        assert body["errors"][0]["field"].endswith(
            "deployment_id" if "deployment" in path else "job_id"), body
    assert _fingerprint(db_url) == before


@pytest.mark.parametrize("good", ["vm-17", "a.b:c@d~e", "job#1?x", "50%", "A" * 200])
def test_ids_that_are_path_segments_can_be_reached_again(client, world, good):
    """Reserved characters other than "/" survive percent-encoding (httpx itself mangles
    "%25" followed by two hex digits, so none of these has one)."""
    q = world["queue"]
    r = client.post(f"/v1/clusters/{q}/arrivals",
                    json={"event_id": "e9", "job_id": good, "job_type": "small", "at": 2})
    assert r.status_code in (200, 202), r.text
    assert client.get(f"/v1/clusters/{q}/jobs/{quote(good, safe='')}").json()["job_id"] == good


@pytest.mark.parametrize("bad", ["has space", "tab\tkey", "é", "x" * 201])
def test_idempotency_key_follows_the_event_id_pattern(client, world, db_url, bad):
    before = _fingerprint(db_url)
    p = world["placement"]
    for path, body in ((f"/v1/clusters/{p}/arrivals", {"job_id": "j9", "job_type": "small"}),
                       ("/v1/clusters", cluster_spec(name="fresh"))):
        r = client.post(path, json=body, headers={"Idempotency-Key": bad.encode()})
        body = assert_problem(r, 422, "validation_error")
        assert body["errors"][0]["field"] == "Idempotency-Key", body
    assert _fingerprint(db_url) == before
