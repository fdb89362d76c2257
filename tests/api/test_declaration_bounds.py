"""Every declaration's work is bounded (issue #54): DRA's configuration search (see
tests/policies/dra/test_dra_search_bounds.py for the numbers) and the fit baselines' index."""

from __future__ import annotations

import pytest

from tests.helpers import assert_problem, check_state_view, cluster_spec


def example_types(J: int) -> list[dict]:
    return [{"name": f"t{i}", "demand": {"cpu": 1 + i % 7, "memory": 1 + i % 5},
             "reward": 1 + i} for i in range(J)]


def big_servers(count: int) -> list[dict]:
    return [{"name": "p", "count": count, "capacity": {"cpu": 64, "memory": 64}}]


def test_a_dra_declaration_that_never_answered_is_accepted_and_takes_events(client):
    # 64 job types on 64/64 servers: the plain branch and bound ran past 90 s here.
    r = client.post("/v1/clusters", json=cluster_spec(
        policy={"kind": "dra"}, server_pools=big_servers(10), job_types=example_types(64)))
    assert r.status_code == 201, r.text
    cid = r.json()["id"]
    for i in range(20):
        r = client.post(f"/v1/clusters/{cid}/arrivals",
                        json={"event_id": f"a{i}", "job_id": f"j{i}", "job_type": f"t{i * 7 % 64}"})
        assert r.status_code == 200, r.text
    view = client.get(f"/v1/clusters/{cid}/state").json()
    check_state_view(view)
    assert view["configuration_search"] == {"node_limit": 300_000 // 64,
                                            "unproved_gpa_positions": []}


@pytest.mark.parametrize("kind", ["first_fit", "best_fit"])
def test_fit_index_over_its_limit_is_refused_naming_it(client, kind, monkeypatch):
    monkeypatch.setattr("app.api.schemas.clusters.MAX_INDEX_ENTRIES", 8)
    ok = cluster_spec(policy={"kind": kind}, servers=4)  # 4 servers x 2 types = 8 entries
    assert client.post("/v1/clusters", json=ok).status_code == 201
    body = assert_problem(client.post("/v1/clusters", json=cluster_spec(
        policy={"kind": kind}, servers=5)), 422, "validation_error")
    assert body["errors"][0]["field"] == "server_pools"
    assert "10 entries, at most 8" in body["errors"][0]["message"]


def test_fit_index_limit_refuses_the_largest_declaration_fast(client):
    # 200,000 servers x 64 types built 12.8 million heap entries: minutes and ~2.5 GB.
    r = client.post("/v1/clusters", json=cluster_spec(
        policy={"kind": "first_fit"}, server_pools=big_servers(200_000),
        job_types=example_types(64)))
    body = assert_problem(r, 422, "validation_error")
    assert "12800000 entries, at most 500000" in body["errors"][0]["message"]
    assert client.get("/v1/clusters").json()["items"] == []
