"""One bad client timestamp cannot end a cluster's time (issue #54): an event more than ten
years past the cluster's clock is refused with 422 clock_jump_too_large and changes nothing,
and the cluster goes on at a sane time. The first event that moves a clock from 0 sets its
origin. Queues (client clock), DRA's migration budget (client clock) and moment clusters."""

from __future__ import annotations

import pytest

from app.main import create_app
from app.policies.errors import MAX_CLOCK_JUMP_SECONDS
from tests.api.test_queues import arrive, create, tick
from tests.conftest import admin_client, make_settings
from tests.helpers import assert_problem, cluster_spec

TEN_YEARS = MAX_CLOCK_JUMP_SECONDS  # in seconds, the default time unit of these clusters


def refused(r, field: str = "at") -> None:
    body = assert_problem(r, 422, "clock_jump_too_large")
    assert body["errors"][0]["field"] == field
    assert "at most 315,360,000 time units (ten years)" in body["detail"] or \
        "at most 87,600 hours (ten years)" in body["detail"], body["detail"]


def state(client, cid):
    return client.get(f"/v1/clusters/{cid}/state").json()


@pytest.mark.parametrize("kind", ["first_fit_queue", "rms"])
def test_a_queue_refuses_an_arrival_or_tick_ten_years_ahead(client, kind):
    cid = create(client, {"kind": kind, "clock": "client", "clock_rate": 1e-6}
                 if kind == "rms" else {"kind": kind, "clock": "client"})["id"]
    assert arrive(client, cid, "e0", "j0", at=5.0).status_code in (200, 202)
    before = state(client, cid)
    refused(arrive(client, cid, "e1", "j1", at=1e12))
    refused(tick(client, cid, until=1e12), "until")
    assert state(client, cid) == before
    assert arrive(client, cid, "e1", "j1", at=6.0).status_code in (200, 202)
    # just inside the bound is accepted (the greedy queue's clock goes there at once)
    r = tick(client, cid, until=6.0 + TEN_YEARS)
    assert r.status_code == 200, r.text


def test_a_queue_s_first_timed_event_sets_the_origin(client):
    cid = create(client, {"kind": "first_fit_queue", "clock": "client"})["id"]
    assert arrive(client, cid, "e0", "j0", at=1.7e9).status_code in (200, 202)  # Unix time
    assert arrive(client, cid, "e1", "j1", at=1.7e9 + 60).status_code in (200, 202)
    refused(arrive(client, cid, "e2", "j2", at=1.7e9 + 1e9))  # ~31 years on


def test_dra_migration_budget_on_the_client_clock(client):
    policy = {"kind": "dra", "migration_budget": {"rate": 1, "clock": "client"}}
    cid = client.post("/v1/clusters", json=cluster_spec(policy=policy)).json()["id"]
    r = client.post(f"/v1/clusters/{cid}/arrivals",
                    json={"event_id": "a0", "job_id": "j0", "job_type": "small", "at": 10.0})
    assert r.status_code == 200, r.text
    before = state(client, cid)
    refused(client.post(f"/v1/clusters/{cid}/arrivals", json={
        "event_id": "a1", "job_id": "j1", "job_type": "small", "at": 1e12}))
    assert state(client, cid) == before
    r = client.post(f"/v1/clusters/{cid}/departures",
                    json={"event_id": "d0", "job_id": "j0", "at": 11.0})
    assert r.status_code == 200, r.text


def moment_cluster(client) -> str:
    r = client.post("/v1/clusters", json={"name": "m", "capacity_cores": 2000, "sla": 0.001,
                                          "policy": {"kind": "threshold"}})
    assert r.status_code == 201, r.text
    return r.json()["id"]


def test_a_moment_cluster_starts_at_hours_since_1970_and_refuses_a_jump(client):
    cid = moment_cluster(client)
    hours = 494_000.0  # the Kubernetes webhook's clock: hours since the Unix epoch
    r = client.post(f"/v1/clusters/{cid}/deployments",
                    json={"event_id": "a1", "deployment_id": "d1", "cores": 4, "at": hours})
    assert r.json()["decision"] == "admitted", r.text
    before = state(client, cid)
    refused(client.post(f"/v1/clusters/{cid}/deployments/d1/scale-outs",
                        json={"event_id": "s1", "cores": 2, "at": 1e9}))
    refused(client.post(f"/v1/clusters/{cid}/deployments",
                        json={"event_id": "a2", "deployment_id": "d2", "cores": 4,
                              "at": hours + 87_601}))
    refused(client.delete(f"/v1/clusters/{cid}/deployments/d1",
                          params={"at": 1e9, "event_id": "x1"}))
    assert state(client, cid) == before
    r = client.post(f"/v1/clusters/{cid}/deployments/d1/scale-outs",
                    json={"event_id": "s1", "cores": 2, "at": hours + 1})
    assert r.json()["decision"] == "granted", r.text


def test_the_bound_applies_to_new_events_only_a_logged_jump_replays(db_url, monkeypatch):
    """A log written before the bound may hold a jump past it: a fresh process replays it
    (and every later event) as it was decided."""
    app = create_app(make_settings(db_url), configure_logs=False)
    with admin_client(app) as c:
        cid = create(c, {"kind": "first_fit_queue", "clock": "client"})["id"]
        assert arrive(c, cid, "e0", "j0", at=1.0).status_code in (200, 202)
        monkeypatch.setattr("app.policies.errors.MAX_CLOCK_JUMP_SECONDS", 1e300)
        assert arrive(c, cid, "e1", "j1", at=9e11).status_code in (200, 202)
        monkeypatch.undo()
        live = state(c, cid)
    fresh = create_app(make_settings(db_url), configure_logs=False)  # empty engine cache
    with admin_client(fresh) as c:
        assert state(c, cid) == live
        assert arrive(c, cid, "e2", "j2", at=9e11 + 1).status_code in (200, 202)
        refused(arrive(c, cid, "e3", "j3", at=9e11 + 1e9))
