"""DRA's operator controls behind the API: declaration checks, the migration budget's clock,
migrations per departure in answers, /state and /metrics, and logs written before the
controls existed still replaying."""

from __future__ import annotations

import random

import pytest
from sqlalchemy import select, update

from app.main import create_app
from app.store.models import Cluster, Event
from tests.conftest import admin_client, make_settings
from tests.helpers import (
    METRICS_TOKEN,
    assert_problem,
    cluster_spec,
    create_cluster,
    scrape,
)


@pytest.fixture
def app(db_url):
    """This module reads per-cluster series, which exist behind the scrape token only."""
    return create_app(make_settings(db_url, metrics_token=METRICS_TOKEN), configure_logs=False)


def run_churn(client, cid, n=60, seed=2, at=None):
    """A seeded arrival/departure mix that makes DRA migrate on a small cluster."""
    rnd, alive, answers = random.Random(seed), [], []
    for i in range(n):
        extra = {} if at is None else {"at": at(i)}
        if alive and rnd.random() < 0.45:
            job = alive.pop(rnd.randrange(len(alive)))
            r = client.post(f"/v1/clusters/{cid}/departures",
                            json={"event_id": f"d{i}", "job_id": job, **extra})
        else:
            r = client.post(f"/v1/clusters/{cid}/arrivals",
                            json={"event_id": f"a{i}", "job_id": f"j{i}", **extra,
                                  "job_type": rnd.choice(["small", "small", "large"])})
            if r.json().get("decision") == "placed":
                alive.append(f"j{i}")
        assert r.status_code == 200, r.text
        answers.append(r.json())
    return answers


def test_reservation_b_must_be_positive(client):
    before = client.get("/v1/clusters").json()
    r = client.post("/v1/clusters", json=cluster_spec(
        policy={"kind": "dra", "reservation": {"b": 0}}))
    body = assert_problem(r, 422, "validation_error")
    assert "reservation" in str(body) and "greater than 0" in str(body)
    assert client.get("/v1/clusters").json() == before  # nothing created


def test_bad_controls_are_clear_422s(client):
    for policy in [{"kind": "dra", "migrations": "sometimes"},
                   {"kind": "dra", "gpa_refresh": {"band": 1.5}},
                   {"kind": "dra", "migration_budget": {"rate": -1}},
                   {"kind": "dra", "migrations": "off_drain", "migration_budget": {"rate": 1}}]:
        assert_problem(client.post("/v1/clusters", json=cluster_spec(policy=policy)), 422)


def test_departures_report_migrations_per_departure_everywhere(client):
    cid = create_cluster(client, policy={"kind": "dra", "reservation": {"slots": 1}},
                         servers=6)["id"]
    answers = run_churn(client, cid)
    departures = [a for a in answers if a["decision"] == "released"]
    migrations = sum(a["migration"] is not None for a in departures)
    assert migrations >= 1, "the seeded workload makes DRA migrate"
    last = departures[-1]["details"]
    assert (last["migrations"], last["departures"]) == (migrations, len(departures))
    assert last["migrations_per_departure"] == migrations / len(departures)
    state = client.get(f"/v1/clusters/{cid}/state").json()
    assert state["migration_tally"]["migrations_per_departure"] == \
        last["migrations_per_departure"]
    text = scrape(client)
    assert f'headroom_migrations_per_departure{{cluster="{cid}"}} ' \
        f'{last["migrations_per_departure"]}' in text


def test_client_clock_budget_limits_migrations_and_replays(client, app):
    policy = {"kind": "dra", "reservation": {"slots": 1},
              "migration_budget": {"rate": 0.01, "per": "cluster", "burst": 1,
                                   "clock": "client"}}
    cid = create_cluster(client, policy=policy, servers=6)["id"]
    r = client.post(f"/v1/clusters/{cid}/arrivals",
                    json={"event_id": "x", "job_id": "x", "job_type": "small"})
    assert_problem(r, 422)  # the client keeps this clock: at is required
    answers = run_churn(client, cid, n=80, at=lambda i: float(i))
    migrations = sum(a.get("migration") is not None for a in answers)
    skipped = sum((a.get("details") or {}).get("migration_skipped") == "migration_budget"
                  for a in answers)
    assert migrations <= 1 + 0.01 * 80 and skipped >= 1
    r = client.post(f"/v1/clusters/{cid}/arrivals",
                    json={"event_id": "late", "job_id": "late", "job_type": "small", "at": 3})
    assert_problem(r, 422)  # time never goes back
    state = client.get(f"/v1/clusters/{cid}/state").json()
    with admin_client(create_app(app.state.ctx.settings, configure_logs=False)) as fresh:
        assert fresh.get(f"/v1/clusters/{cid}/state").json() == state


def test_wall_clock_budget_stamps_the_log(client):
    policy = {"kind": "dra", "migration_budget": {"rate": 5, "per": "server"}}
    cid = create_cluster(client, policy=policy, servers=4)["id"]
    r = client.post(f"/v1/clusters/{cid}/arrivals",
                    json={"event_id": "a", "job_id": "a", "job_type": "small", "at": 1})
    assert_problem(r, 422)  # the service keeps this clock
    assert client.post(f"/v1/clusters/{cid}/arrivals",
                       json={"event_id": "b", "job_id": "b", "job_type": "small"}
                       ).status_code == 200
    logged = client.get(f"/v1/clusters/{cid}/events").json()["items"]
    assert logged[-1]["request"]["at"] >= 0


def test_logs_and_specs_from_before_the_controls_still_load(client, app):
    """A declaration with the old ``migrations: false`` and b = 0 (accepted then), and rows
    logged before departures carried details, must load and replay without divergence."""
    policy = {"kind": "dra", "reservation": {"b": 0.5}, "migrations": False}
    cid = create_cluster(client, policy=policy, servers=6)["id"]
    ctx = app.state.ctx
    with ctx.sessions() as s, s.begin():  # as if declared with b = 0 before the rule
        spec = dict(s.get(Cluster, cid).spec)
        spec["policy"] = {**spec["policy"], "reservation": {"b": 0}}
        s.execute(update(Cluster).where(Cluster.id == cid).values(spec=spec))
    with admin_client(create_app(ctx.settings, configure_logs=False)) as old:
        run_churn(old, cid, n=40)
        want = old.get(f"/v1/clusters/{cid}/state").json()
    assert want["g"] == 1.791759469228055  # ln 6: b = 0 is what decided
    with ctx.sessions() as s, s.begin():
        for row in s.execute(select(Event).where(Event.cluster_id == cid)).scalars().all():
            if row.kind == "departure":
                older = {k: v for k, v in row.response.items() if k != "details"}
                s.execute(update(Event).where(Event.cluster_id == cid, Event.seq == row.seq)
                          .values(response=older))
    with admin_client(create_app(ctx.settings, configure_logs=False)) as fresh:
        r = fresh.get(f"/v1/clusters/{cid}/state")
        assert r.status_code == 200, r.text
        assert r.json() == want and want["migrations"] == "off_no_drain"
        assert fresh.post(f"/v1/clusters/{cid}/arrivals", json={
            "event_id": "after", "job_id": "after", "job_type": "small"}).status_code == 200
