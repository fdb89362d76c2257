"""Contract tests for /v1/clusters, on SQLite and on Postgres."""

from __future__ import annotations

import json
import math

import pytest

from tests.helpers import assert_problem, cluster_spec, create_cluster


def test_create_read_list_delete(client):
    created = create_cluster(client, name="alpha")
    assert created["name"] == "alpha" and created["version"] == 0
    assert created["generation"] == 1
    r = client.get(f"/v1/clusters/{created['id']}")
    assert r.status_code == 200 and r.json() == created
    assert r.headers["etag"] == '"1"'

    names = [create_cluster(client, name=f"n{i}")["name"] for i in range(4)]
    page1 = client.get("/v1/clusters", params={"limit": 3}).json()
    assert [c["name"] for c in page1["items"]] == ["alpha", "n0", "n1"]
    page2 = client.get("/v1/clusters", params={"limit": 3, "cursor": page1["next_cursor"]}).json()
    assert [c["name"] for c in page2["items"]] == names[2:]
    assert page2["next_cursor"] is None

    r = client.delete(f"/v1/clusters/{created['id']}")
    assert r.status_code == 204
    assert_problem(client.get(f"/v1/clusters/{created['id']}"), 404, "cluster_not_found")
    assert_problem(client.delete(f"/v1/clusters/{created['id']}"), 404, "cluster_not_found")


def test_delete_with_if_match(client):
    c = create_cluster(client)
    assert_problem(client.delete(f"/v1/clusters/{c['id']}", headers={"If-Match": '"7"'}),
                   412, "precondition_failed")
    assert client.get(f"/v1/clusters/{c['id']}").status_code == 200
    assert client.delete(f"/v1/clusters/{c['id']}", headers={"If-Match": '"1"'}).status_code == 204


def test_duplicate_name_is_conflict(client):
    create_cluster(client, name="same")
    assert_problem(client.post("/v1/clusters", json=cluster_spec(name="same")), 409, "name_taken")
    assert len(client.get("/v1/clusters").json()["items"]) == 1


def test_create_with_idempotency_key_replays(client):
    spec = cluster_spec(name="idem")
    r1 = client.post("/v1/clusters", json=spec, headers={"Idempotency-Key": "k1"})
    r2 = client.post("/v1/clusters", json=spec, headers={"Idempotency-Key": "k1"})
    assert r1.status_code == r2.status_code == 201
    assert r1.json() == r2.json()
    assert r2.headers.get("idempotent-replayed") == "true"
    other = cluster_spec(name="idem2")
    assert_problem(client.post("/v1/clusters", json=other, headers={"Idempotency-Key": "k1"}),
                   409, "idempotency_key_reused")
    assert len(client.get("/v1/clusters").json()["items"]) == 1


def test_a_creation_key_hashes_the_body_as_sent(app, client):
    """The key's hash covers what the client wrote, not the server's defaults: a release that
    adds a default (moment clusters' learn_prior did) must not turn the retry of an unchanged
    request into a 409. A body that differs in a field the client wrote still conflicts."""
    from app.service.clusters import _hash
    from app.store.models import IdempotencyKey

    spec = {"name": "sent", "capacity_cores": 2000, "sla": 1e-4, "policy": {"kind": "second_moment"}}
    first = client.post("/v1/clusters", json=spec, headers={"Idempotency-Key": "k-sent"})
    assert first.status_code == 201, first.text
    assert "learn_prior" in first.json()["policy"]  # the default was filled in and stored
    with app.state.ctx.sessions() as session:
        (row,) = session.query(IdempotencyKey).filter_by(key="k-sent").all()
    assert row.request_hash == _hash(spec)
    again = client.post("/v1/clusters", json=spec, headers={"Idempotency-Key": "k-sent"})
    assert again.headers.get("idempotent-replayed") == "true"
    assert again.json()["id"] == first.json()["id"]
    assert_problem(client.post("/v1/clusters", json={**spec, "sla": 1e-3},
                               headers={"Idempotency-Key": "k-sent"}), 409, "idempotency_key_reused")


def _bad(spec_change):
    spec = cluster_spec(name="bad")
    spec_change(spec)
    return spec


BAD_SPECS = {
    "negative capacity": (lambda s: s["server_pools"][0]["capacity"].update(cpu=-1),
                          "server_pools[0].capacity.cpu"),
    "zero capacity": (lambda s: s["server_pools"][0]["capacity"].update(cpu=0),
                      "server_pools[0].capacity.cpu"),
    "zero servers": (lambda s: s["server_pools"][0].update(count=0), "server_pools[0].count"),
    "huge count": (lambda s: s["server_pools"][0].update(count=10**12), "server_pools[0].count"),
    "too many servers": (lambda s: s["server_pools"][0].update(count=900_000), "server_pools"),
    "huge amount": (lambda s: s["job_types"][0]["demand"].update(cpu=1e300),
                    "job_types[0].demand.cpu"),
    "demand beyond any server": (lambda s: s["job_types"][1]["demand"].update(cpu=9),
                                 "job_types[1].demand"),
    "zero demand": (lambda s: s["job_types"][0].update(demand={"cpu": 0, "memory": 0}),
                    "job_types[0].demand"),
    "missing dimension": (lambda s: s["job_types"][0]["demand"].pop("memory"),
                          "job_types[0].demand"),
    "unknown dimension": (lambda s: s["server_pools"][0]["capacity"].update(gpu=1),
                          "server_pools[0].capacity"),
    "duplicate job types": (lambda s: s["job_types"].append(dict(s["job_types"][0])), "body"),
    "duplicate dimensions": (lambda s: s.update(dimensions=["cpu", "cpu"]), "body"),
    "unknown field": (lambda s: s.update(colour="blue"), "colour"),
    "unknown policy": (lambda s: s.update(policy={"kind": "magic"}), "policy"),
    "bad name": (lambda s: s.update(name="has space"), "name"),
    "negative reward": (lambda s: s["job_types"][0].update(reward=-1), "job_types[0].reward"),
    "no job types": (lambda s: s.update(job_types=[]), "job_types"),
}


@pytest.mark.parametrize("case", sorted(BAD_SPECS))
def test_bad_cluster_specs_are_422_naming_the_field(client, case):
    change, field = BAD_SPECS[case]
    body = assert_problem(client.post("/v1/clusters", json=_bad(change)), 422)
    fields = [e["field"] for e in body["errors"]]
    assert any(f.startswith(field) for f in fields), (field, fields)
    assert client.get("/v1/clusters").json()["items"] == []


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_refused(client, literal):
    text = json.dumps(cluster_spec(name="nan")).replace('"cpu": 8', f'"cpu": {literal}', 1)
    assert literal in text
    r = client.post("/v1/clusters", content=text, headers={"content-type": "application/json"})
    assert_problem(r, 422)
    assert client.get("/v1/clusters").json()["items"] == []


def test_malformed_json_is_400(client):
    r = client.post("/v1/clusters", content=b'{"name": "x",',
                    headers={"content-type": "application/json"})
    assert_problem(r, 400, "malformed_json")


def test_ten_megabyte_body_is_413(client):
    big = b'{"name": "' + b"x" * (10 * 1024 * 1024) + b'"}'
    r = client.post("/v1/clusters", content=big, headers={"content-type": "application/json"})
    assert_problem(r, 413, "payload_too_large")
    assert client.get("/v1/clusters").json()["items"] == []


def test_unknown_route_and_method_are_problems(client):
    assert_problem(client.get("/v1/nothing"), 404, "not_found")
    assert_problem(client.put("/v1/clusters"), 405, "method_not_allowed")


def test_health_and_metrics(client):
    assert client.get("/livez").json() == {"status": "ok"}
    assert client.app.state.warmup._done.wait(300)  # tests/server/test_cold_start.py
    ready = client.get("/readyz")
    assert ready.status_code == 200 and ready.json()["migration"] == ready.json()["head"]
    create_cluster(client)
    text = client.get("/metrics").text
    assert 'headroom_http_requests_total{method="POST",route="/v1/clusters",status="201"' in text
    assert "headroom_http_request_duration_seconds_bucket" in text
    samples = [line for line in text.splitlines() if line and not line.startswith("#")]
    assert samples and all(math.isfinite(float(line.rsplit(" ", 1)[1])) for line in samples)


def test_request_id_is_echoed(client):
    r = client.get("/livez", headers={"X-Request-ID": "abc-123"})
    assert r.headers["x-request-id"] == "abc-123"
    assert len(client.get("/livez").headers["x-request-id"]) == 32


def test_rename_with_if_match_is_optimistic(client):
    c = create_cluster(client, name="old")
    url = f"/v1/clusters/{c['id']}"
    r = client.patch(url, json={"name": "new"}, headers={"If-Match": '"1"'})
    assert r.status_code == 200 and r.json()["name"] == "new"
    assert r.headers["etag"] == '"2"' and r.json()["generation"] == 2
    # A second writer still holding ETag 1 loses instead of overwriting.
    assert_problem(client.patch(url, json={"name": "other"}, headers={"If-Match": '"1"'}),
                   412, "precondition_failed")
    assert client.get(url).json()["name"] == "new"
    create_cluster(client, name="taken")
    assert_problem(client.patch(url, json={"name": "taken"}), 409, "name_taken")
    assert_problem(client.patch(url, json={"name": "bad name"}), 422)
    assert_problem(client.patch(url, json={"name": "x"}, headers={"If-Match": "nope"}), 422)
    # Events are not admin writes: they leave the generation alone.
    client.post(f"{url}/arrivals", json={"event_id": "e", "job_id": "j", "job_type": "small"})
    assert client.get(url).json()["generation"] == 2


def test_list_filters_by_name(client):
    a = create_cluster(client, name="alpha")
    for name in ("alpha-2", "beta"):
        create_cluster(client, name=name)
    r = client.get("/v1/clusters", params={"name": "alpha"})
    assert r.status_code == 200
    assert [c["id"] for c in r.json()["items"]] == [a["id"]] and r.json()["next_cursor"] is None
    assert client.get("/v1/clusters", params={"name": "gamma"}).json()["items"] == []
    assert_problem(client.get("/v1/clusters", params={"name": "bad name"}), 422)


def test_name_taken_names_the_existing_cluster(client):
    first = create_cluster(client, name="same")
    body = assert_problem(client.post("/v1/clusters", json=cluster_spec(name="same")), 409,
                          "name_taken")
    assert body["existing_id"] == first["id"] and first["id"] in body["detail"]
    other = create_cluster(client, name="other")
    body = assert_problem(client.patch(f"/v1/clusters/{other['id']}", json={"name": "same"}),
                          409, "name_taken")
    assert body["existing_id"] == first["id"]
    assert client.get(f"/v1/clusters/{other['id']}").json()["name"] == "other"


@pytest.mark.parametrize("route", ["/v1/clusters", "/v1/reservations"])
@pytest.mark.parametrize("raw, content_type", [
    (b'{"name": ', "application/json"), (b"\xff\xfe", "application/json"),
    (b"", "application/json"), (b"[1, 2]", "application/json"), (b"NaN", "application/json"),
    (b'"a"', "application/json"), (b'{"name": "x"}', "text/plain"), (b"", None),
])
def test_a_creation_body_that_is_not_a_declaration_is_a_4xx_with_a_key(client, route, raw,
                                                                         content_type):
    """The key's hash reads the body a second time (json_body.sent_body): whatever the body,
    the answer is the problem the validation gives, never a 500, and nothing is created."""
    headers = {"Idempotency-Key": "k-raw"} | ({"content-type": content_type} if content_type else {})
    r = client.post(route, content=raw, headers=headers)
    assert 400 <= r.status_code < 500, (r.status_code, r.text)
    assert r.headers["content-type"].startswith("application/problem+json")
    assert client.get(route).json()["items"] == []
