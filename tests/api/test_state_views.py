"""The read views answer what the OpenAPI document says: /state of every policy kind, one
server, one deployment, in states that carry their optional parts (DRA's refresh and
migration budget, RMS's wall clock, a moment cluster that lists a deployment as outgrowing
at a declared overflow line, a cautious start). The models refuse unknown fields, so a field
an engine starts to show without the document naming it fails here (app/api/schemas/state.py)."""

from __future__ import annotations

import random

import pytest
from pydantic import ValidationError

from app.api.schemas.moments import MigrateAnswer
from app.api.schemas.state import DeploymentView, ServerView
from tests.helpers import cluster_spec, create_cluster, state_model

STATE = state_model()

PLACEMENT = [
    {"kind": "first_fit"},
    {"kind": "best_fit"},
    {"kind": "power_of_d", "d": 2},
    {"kind": "dra", "reservation": {"slots": 1}},
    {"kind": "dra", "reservation": {"b": 0.5}, "gpa_refresh": {"band": 0.2},
     "migration_budget": {"rate": 2.0, "clock": "client"}},
    {"kind": "dra", "reservation": {"slots": 1}, "gpa_refresh": {"every_events": 3},
     "preemption": "admit", "migrations": "off_drain"},
]


def _churn(client, cid, timed, n=60, seed=3):
    rnd, alive = random.Random(seed), []
    for i in range(n):
        at = {"at": float(i)} if timed else {}
        if alive and rnd.random() < 0.4:
            r = client.post(f"/v1/clusters/{cid}/departures",
                            json={"event_id": f"d{i}", "job_id": alive.pop(rnd.randrange(len(alive))), **at})
        else:
            r = client.post(f"/v1/clusters/{cid}/arrivals",
                            json={"event_id": f"a{i}", "job_id": f"j{i}", **at,
                                  "job_type": rnd.choice(["small", "small", "large"])})
            if r.json().get("decision") == "placed":
                alive.append(f"j{i}")
        assert r.status_code in (200, 202), r.text


@pytest.mark.parametrize("policy", PLACEMENT, ids=lambda p: "-".join(str(v) for v in p.values())[:40])
def test_placement_state_and_servers_match_the_document(client, policy):
    cid = create_cluster(client, policy=policy)["id"]
    _churn(client, cid, timed="migration_budget" in policy)
    state = client.get(f"/v1/clusters/{cid}/state").json()
    assert STATE.validate_python(state).policy == policy["kind"]
    servers = client.get(f"/v1/clusters/{cid}/servers").json()["items"]
    for s in servers:
        view = client.get(f"/v1/clusters/{cid}/servers/{s['server_id']}").json()
        ServerView.model_validate(view)
        assert ("configuration" in view) == (policy["kind"] == "dra")
    if policy["kind"] == "dra":
        optional = set(state["gpa_refresh"]) | set(state["migration_tally"])
        if "band" in policy.get("gpa_refresh", {}):
            assert {"band", "migration_budget_tokens"} <= optional
        if "every_events" in policy.get("gpa_refresh", {}):
            assert {"every_events", "events_since_refresh"} <= optional


QUEUE_POOLS = [{"name": "s", "count": 3, "capacity": {"cpu": 10, "memory": 10}}]
QUEUE_TYPES = [{"name": "two", "demand": {"cpu": 2, "memory": 1}},
               {"name": "five", "demand": {"cpu": 5, "memory": 1}}]


@pytest.mark.parametrize("policy", [{"kind": "rms"}, {"kind": "rms", "clock": "client"},
                                    {"kind": "best_fit_queue"}, {"kind": "first_fit_queue"},
                                    {"kind": "random_fit_queue"}], ids=lambda p: "-".join(p.values()))
def test_queue_state_matches_the_document(client, policy):
    r = client.post("/v1/clusters", json=cluster_spec(policy=policy, server_pools=QUEUE_POOLS,
                                                       job_types=QUEUE_TYPES, seed=11))
    assert r.status_code == 201, r.text
    cid = r.json()["id"]
    client_clock = policy.get("clock") == "client"
    for i in range(12):
        body = {"event_id": f"a{i}", "job_id": f"j{i}", "job_type": "five"}
        r = client.post(f"/v1/clusters/{cid}/arrivals", json={**body, **({"at": i / 4} if client_clock else {})})
        assert r.status_code in (200, 202), r.text
    state = client.get(f"/v1/clusters/{cid}/state").json()
    parsed = STATE.validate_python(state)
    assert parsed.policy == policy["kind"] and sum(state["queues"].values()) > 0
    assert parsed.clock.mode == ("client" if client_clock else "wall")


def _moment_cluster(client, capacity, kind, **policy):
    r = client.post("/v1/clusters", json={"name": f"m-{kind}-{capacity}-{len(policy)}",
                                          "capacity_cores": capacity, "sla": 1e-4,
                                          "policy": {"kind": kind, **policy}})
    assert r.status_code == 201, r.text
    return r.json()["id"]


@pytest.mark.parametrize("kind,capacity,policy", [
    ("threshold", 2000, {}),
    ("first_moment", 2000, {}),
    ("second_moment", 2000, {}),
    ("second_moment", 5000, {}),  # the default cautious start: the learner's held phase
    ("second_moment", 400, {"threshold": 0.5, "overflow_sd": 1}),
    ("second_moment", 400, {"threshold": 0.5, "closed_loop": False, "learn_prior": False}),
])
def test_moment_state_and_deployments_match_the_document(client, kind, capacity, policy):
    cid = _moment_cluster(client, capacity, kind, **policy)
    base = f"/v1/clusters/{cid}/deployments"
    admitted = []
    for i in range(4):
        r = client.post(base, json={"event_id": f"a{i}", "deployment_id": f"d{i}", "cores": 2,
                                    "at": float(i), "category": "web"})  # kept once it dies
        assert r.status_code == 200, r.text
        admitted += [f"d{i}"] if r.json()["decision"] == "admitted" else []
    assert admitted[0] == "d0" and len(admitted) >= 2, admitted
    # d0 grows fast: at 400 cores its moments expect it to need half the cluster (outgrowing).
    for k in range(30):
        r = client.post(f"{base}/d0/scale-outs", json={"event_id": f"s{k}", "cores": 3, "at": 4.0 + k})
        assert r.status_code == 200, r.text
    client.post(base, json={"event_id": "late", "deployment_id": "late", "cores": 1, "at": 40.0})
    r = client.delete(f"{base}/{admitted[-1]}", params={"at": 41.0, "event_id": "x"})
    assert r.status_code == 200, r.text
    state = client.get(f"/v1/clusters/{cid}/state").json()
    parsed = STATE.validate_python(state)
    assert parsed.policy == kind
    if capacity == 400:
        assert parsed.outgrowing is not None and parsed.outgrowing.count >= 1
        assert (parsed.outgrowing.overflow_sd is not None) == ("overflow_sd" in policy)
    if capacity == 5000:
        assert parsed.population_prior is not None and parsed.population_prior.cautious_phase == "held"
    for dep in admitted:
        view = client.get(f"{base}/{dep}").json()
        DeploymentView.model_validate(view)
        if view["migrate"] is not None:  # the answer's model ignores extras: hold it to its fields
            assert set(view["migrate"]) <= set(MigrateAnswer.model_fields)
        assert ("expected_cores" in view) == (view["alive"] and kind != "threshold")
        assert view["alive"] == (dep != admitted[-1])
    if capacity == 400:
        assert client.get(f"{base}/d0").json()["migrate"] is not None


def test_the_views_refuse_a_field_the_document_does_not_name(client):
    cid = _moment_cluster(client, 2000, "second_moment")
    state = client.get(f"/v1/clusters/{cid}/state").json()
    STATE.validate_python(state)
    with pytest.raises(ValidationError):
        STATE.validate_python({**state, "unnamed": 1})
    with pytest.raises(ValidationError):
        STATE.validate_python({**state, "closed_loop": {**state["closed_loop"], "unnamed": 1}})
    with pytest.raises(ValidationError):  # a kind's model is chosen by policy
        STATE.validate_python({**state, "policy": "dra"})
