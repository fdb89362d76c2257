"""Every placement policy kind behind the same API, on both databases."""

from __future__ import annotations

import pytest

from tests.helpers import assert_problem, cluster_spec, create_cluster

POLICIES = [
    {"kind": "first_fit"},
    {"kind": "best_fit"},
    {"kind": "power_of_d", "d": 2},
    {"kind": "dra"},
    {"kind": "dra", "reservation": {"slots": 2}, "migrations": False},
    {"kind": "dra", "preemption": True},
    {"kind": "dra", "migrations": "off_drain", "preemption": "admit",
     "gpa_refresh": {"band": 0.5}},
    {"kind": "dra", "gpa_refresh": {"every_events": 3},
     "migration_budget": {"rate": 1, "per": "server", "burst": 2}},
]


@pytest.mark.parametrize("policy", POLICIES, ids=lambda p: "-".join(map(str, p.values())))
def test_each_policy_places_releases_and_survives_a_restart(client, app, policy):
    c = create_cluster(client, policy=policy, servers=6)
    cid = c["id"]
    assert c["policy"]["kind"] == policy["kind"]
    placed = []
    for i in range(12):
        r = client.post(f"/v1/clusters/{cid}/arrivals",
                        json={"event_id": f"a{i}", "job_id": f"j{i}",
                              "job_type": "small" if i % 3 else "large"})
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["decision"] in ("placed", "rejected") and body["reason"]
        if body["decision"] == "placed":
            placed.append(f"j{i}")
            server = client.get(f"/v1/clusters/{cid}/servers/{body['server_id']}").json()
            assert f"j{i}" in server["jobs"]
    assert placed, "every policy admits something into an empty cluster"
    r = client.post(f"/v1/clusters/{cid}/departures", json={"event_id": "d0", "job_id": placed[0]})
    assert r.status_code == 200 and r.json()["decision"] == "released"
    state = client.get(f"/v1/clusters/{cid}/state").json()
    assert state["policy"] == policy["kind"]
    assert state["jobs"] == len(placed) - 1

    # A fresh app (a restarted process) rebuilds the same engine from the database.
    from app.main import create_app
    from tests.conftest import admin_client

    with admin_client(create_app(app.state.ctx.settings, configure_logs=False)) as fresh:
        assert fresh.get(f"/v1/clusters/{cid}/state").json() == state


def test_dra_explains_its_decisions(client):
    cid = create_cluster(client, policy={"kind": "dra", "reservation": {"slots": 1}},
                         servers=4)["id"]
    r = client.post(f"/v1/clusters/{cid}/arrivals",
                    json={"event_id": "a0", "job_id": "j0", "job_type": "large"}).json()
    assert r["decision"] == "placed"
    assert r["details"], "DRA says which numbers it decided on"
    state = client.get(f"/v1/clusters/{cid}/state").json()
    assert state["policy"] == "dra"


@pytest.mark.parametrize("policy,field", [
    ({"kind": "power_of_d", "d": 0}, "policy.d"),
    ({"kind": "dra", "reservation": {"b": -1}}, "policy.reservation"),
    ({"kind": "dra", "reservation": {"slots": 0}}, "policy.reservation"),
    ({"kind": "dra", "migrations": "yes"}, "policy.migrations"),
    ({"kind": "dra", "colour": 1}, "policy.colour"),
])
def test_bad_policy_parameters_are_422(client, policy, field):
    body = assert_problem(client.post("/v1/clusters", json=cluster_spec(policy=policy)), 422)
    assert any(e["field"].startswith(field) for e in body["errors"]), body["errors"]


def test_dra_refuses_heterogeneous_pools_clearly(client):
    spec = cluster_spec(policy={"kind": "dra"})
    spec["server_pools"].append({"name": "big", "count": 2, "capacity": {"cpu": 16,
                                                                         "memory": 64}})
    body = assert_problem(client.post("/v1/clusters", json=spec), 422)
    assert "one server pool" in body["detail"]
    spec["policy"] = {"kind": "best_fit"}
    assert client.post("/v1/clusters", json=spec).status_code == 201


def test_dra_migrates_after_a_departure_and_reports_it(client):
    """A seeded workload in which DRA migrates a job from the Reject Group into a slot freed
    in the Accept Group; the answer names the move and the servers agree with it."""
    import random

    cid = create_cluster(client, policy={"kind": "dra", "reservation": {"slots": 1}},
                         servers=6)["id"]
    rnd, alive, migration = random.Random(2), [], None
    for i in range(40):
        if alive and rnd.random() < 0.45:
            job = alive.pop(rnd.randrange(len(alive)))
            r = client.post(f"/v1/clusters/{cid}/departures",
                            json={"event_id": f"d{i}", "job_id": job}).json()
            if r["migration"] is not None:
                migration = r["migration"]
                break
        else:
            job_type = rnd.choice(["small", "small", "large"])
            r = client.post(f"/v1/clusters/{cid}/arrivals",
                            json={"event_id": f"a{i}", "job_id": f"j{i}",
                                  "job_type": job_type}).json()
            assert r["reason"] in ("placed_in_reserved_slot", "no_free_slot_in_accept_group")
            if r["decision"] == "placed":
                alive.append(f"j{i}")
    assert migration is not None, "the seeded workload makes DRA migrate once"
    assert "\nheadroom_migrations_total 1.0\n" in client.get("/metrics").text  # what operators graph
    target = client.get(f"/v1/clusters/{cid}/servers/{migration['to_server_id']}").json()
    source = client.get(f"/v1/clusters/{cid}/servers/{migration['from_server_id']}").json()
    assert migration["job_id"] in target["jobs"] and migration["job_id"] not in source["jobs"]
    assert target["group"] == "accept"
    state = client.get(f"/v1/clusters/{cid}/state").json()
    assert all(c["reject_group"] <= 1 for c in state["configurations"])  # Remark 2
    for c in state["configurations"]:
        assert {"configuration", "rank", "gpa_target_servers", "servers"} <= set(c)
