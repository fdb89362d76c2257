"""Contract tests for /v1/reservations (THOR and baselines), on SQLite and on Postgres."""

from __future__ import annotations

import math

import pytest

from app.main import create_app
from tests.conftest import admin_client
from tests.helpers import assert_problem, cluster_spec


def spec(kind="thor", name="web", **extra):
    return {"name": name, "resources": [{"name": "cpu", "cost": 1, "epsilon": 0.1},
                                        {"name": "memory", "cost": 0.5, "epsilon": 0.05}],
            "policy": {"kind": kind}, **extra}


def observe(client, rid, period, cpu, memory, event_id=None):
    return client.post(f"/v1/reservations/{rid}/observations",
                       json={"event_id": event_id or f"p{period}", "period": period,
                             "demand": {"cpu": cpu, "memory": memory}})


@pytest.mark.parametrize("kind", ["quantile_tracking", "thor", "ftl", "percentile"])
def test_a_stream_observes_and_reserves(client, kind):
    r = client.post("/v1/reservations", json=spec(kind, initial={"cpu": 10, "memory": 5}))
    assert r.status_code == 201, r.text
    rid = r.json()["id"]
    assert r.headers["location"] == f"/v1/reservations/{rid}"
    first = observe(client, rid, 0, 12.0, 4.0).json()
    assert first["reserved"] == {"cpu": 10.0, "memory": 5.0}
    assert first["violated"] == {"cpu": True, "memory": False}
    assert first["event_seq"] == 1 and first["replayed"] is False
    for t in range(1, 30):
        a = observe(client, rid, t, 10 + math.sin(t), 5 + math.cos(t)).json()
        assert set(a["next_reservation"]) == {"cpu", "memory"}
        assert all(v >= 0 for v in a["next_reservation"].values())
        assert (kind == "thor") == bool(a["queue"])
    view = client.get(f"/v1/reservations/{rid}").json()
    state = view["state"]
    assert state["periods"] == 30 and state["last_period"] == 29
    cpu = next(x for x in state["resources"] if x["name"] == "cpu")
    assert cpu["epsilon"] == 0.1 and cpu["cost_so_far"] > 0
    assert cpu["reservation"] == a["next_reservation"]["cpu"]
    hist = client.get(f"/v1/reservations/{rid}/history", params={"limit": 10}).json()
    assert [h["period"] for h in hist["items"]] == list(range(10))
    assert hist["next_cursor"] == "10"
    assert hist["items"][0]["violated"] == {"cpu": True, "memory": False}


def test_periods_are_consecutive_and_retries_replay(client):
    rid = client.post("/v1/reservations", json=spec()).json()["id"]
    first = observe(client, rid, 5, 1, 1).json()
    again = observe(client, rid, 5, 1, 1).json()
    assert again["replayed"] and again["next_reservation"] == first["next_reservation"]
    assert_problem(observe(client, rid, 5, 2, 1), 409, "idempotency_key_reused")
    assert_problem(observe(client, rid, 5, 1, 1, event_id="other"), 409, "period_conflict")
    assert_problem(observe(client, rid, 7, 1, 1), 409, "period_conflict")  # a gap
    assert observe(client, rid, 6, 1, 1).status_code == 200
    assert client.get(f"/v1/reservations/{rid}").json()["version"] == 2


@pytest.mark.parametrize("demand,field", [
    ({"cpu": 1}, "demand.memory"),
    ({"cpu": 1, "memory": 1, "gpu": 1}, "demand.gpu"),
    ({"cpu": -1, "memory": 1}, "demand.cpu"),
])
def test_bad_observations_are_422_and_change_nothing(client, demand, field):
    rid = client.post("/v1/reservations", json=spec()).json()["id"]
    r = client.post(f"/v1/reservations/{rid}/observations",
                    json={"event_id": "e", "period": 0, "demand": demand})
    body = assert_problem(r, 422)
    assert any(e["field"].startswith(field) for e in body["errors"]), body
    assert client.get(f"/v1/reservations/{rid}").json()["version"] == 0


def test_nan_demand_is_refused(client):
    rid = client.post("/v1/reservations", json=spec()).json()["id"]
    r = client.post(f"/v1/reservations/{rid}/observations",
                    content=b'{"event_id": "e", "period": 0, "demand": {"cpu": NaN, '
                            b'"memory": 1}}', headers={"content-type": "application/json"})
    assert_problem(r, 422)


@pytest.mark.parametrize("bad", [
    {"resources": []},
    {"resources": [{"name": "cpu", "epsilon": 0}]},
    {"resources": [{"name": "cpu", "epsilon": 1.5}]},
    {"resources": [{"name": "cpu", "epsilon": 0.1}, {"name": "cpu", "epsilon": 0.1}]},
    {"policy": {"kind": "magic"}},
    {"policy": {"kind": "thor", "params": {"nonsense": 1}}},
    {"initial": {"gpu": 1}},
])
def test_bad_streams_are_422(client, bad):
    assert_problem(client.post("/v1/reservations", json={**spec(), **bad}), 422)
    assert client.get("/v1/reservations").json()["items"] == []


def test_streams_and_clusters_do_not_mix(client):
    rid = client.post("/v1/reservations", json=spec()).json()["id"]
    wrong = client.get(f"/v1/clusters/{rid}/state")
    assert_problem(wrong, 409, "wrong_cluster_kind")
    assert "/v1/reservations/{reservation_id}/observations" in wrong.json()["detail"]
    assert client.get("/v1/clusters").json()["items"] == []
    assert [x["id"] for x in client.get("/v1/reservations").json()["items"]] == [rid]
    assert_problem(client.get("/v1/reservations/nope"), 404)
    cid = client.post("/v1/clusters", json=cluster_spec()).json()["id"]
    assert_problem(client.get(f"/v1/reservations/{cid}"), 409, "wrong_cluster_kind")


def test_state_survives_a_restart_and_delete(client, app):
    rid = client.post("/v1/reservations", json=spec()).json()["id"]
    for t in range(12):
        observe(client, rid, t, 3 + t % 4, 2)
    before = client.get(f"/v1/reservations/{rid}").json()["state"]
    with admin_client(create_app(app.state.ctx.settings, configure_logs=False)) as fresh:
        assert fresh.get(f"/v1/reservations/{rid}").json()["state"] == before
        nxt = observe(fresh, rid, 12, 4, 2).json()
        assert nxt["reserved"]["cpu"] == before["resources"][0]["reservation"]
    assert client.delete(f"/v1/reservations/{rid}").status_code == 204
    assert_problem(client.get(f"/v1/reservations/{rid}"), 404)


@pytest.mark.parametrize("cost", [5e-324, 1e-6, 1e9])
def test_extreme_accepted_costs_log_finite_answers(client, cost):
    # A cost of 5e-324 once made THOR report V / c = inf: Postgres' json refused the log row and
    # every observation answered 500. Every accepted cost answers (and logs) finite numbers.
    r = client.post("/v1/reservations", json={
        "name": "idle", "resources": [{"name": "a", "cost": cost, "epsilon": 0.05}],
        "policy": {"kind": "thor"}})
    assert r.status_code == 201, r.text
    rid = r.json()["id"]
    for t in range(3):
        a = client.post(f"/v1/reservations/{rid}/observations",
                        json={"event_id": f"p{t}", "period": t, "demand": {"a": 0.0}})
        assert a.status_code == 200, a.text
        assert all(v is None or math.isfinite(v) for v in a.json()["details"]["a"].values())


def test_list_filters_by_name_and_name_taken_names_the_existing_stream(client):
    rid = client.post("/v1/reservations", json=spec(name="web")).json()["id"]
    client.post("/v1/reservations", json=spec(name="web-2"))
    items = client.get("/v1/reservations", params={"name": "web"}).json()["items"]
    assert [x["id"] for x in items] == [rid]
    body = assert_problem(client.post("/v1/reservations", json=spec(name="web")), 409,
                          "name_taken")
    assert body["existing_id"] == rid and "reservation stream" in body["detail"]
