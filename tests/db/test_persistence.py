"""State lives in the database: a new process (a new app) continues exactly where the old one
stopped, whether it rebuilds from the log alone or from a snapshot plus the log tail."""

from __future__ import annotations

import pytest
from sqlalchemy import select, update

from app.main import create_app
from app.store.models import Event
from tests.conftest import admin_client, make_settings
from tests.helpers import assert_problem, cluster_spec


def _run_workload(client, cid, n):
    for i in range(n):
        if i % 3 == 2:
            client.post(f"/v1/clusters/{cid}/departures",
                        json={"event_id": f"d{i}", "job_id": f"j{i - 2}"})
        else:
            client.post(f"/v1/clusters/{cid}/arrivals",
                        json={"event_id": f"a{i}", "job_id": f"j{i}",
                              "job_type": "small" if i % 2 else "large"})


@pytest.mark.parametrize("snapshot_every", [1000, 4])
def test_restart_continues_from_the_database(db_url, snapshot_every):
    settings = make_settings(db_url, snapshot_every=snapshot_every)
    first = create_app(settings, configure_logs=False)
    with admin_client(first) as c1:
        cid = c1.post("/v1/clusters",
                      json=cluster_spec(policy={"kind": "first_fit"}, servers=3)).json()["id"]
        _run_workload(c1, cid, 20)
        before = c1.get(f"/v1/clusters/{cid}/state").json()
        servers_before = [c1.get(f"/v1/clusters/{cid}/servers/rack-{i}").json() for i in range(3)]
        next_first = c1.post(f"/v1/clusters/{cid}/arrivals",
                             json={"job_id": "n", "job_type": "small", "dry_run": True}).json()
    first.state.ctx.close()

    second = create_app(settings, configure_logs=False)
    with admin_client(second) as c2:
        assert c2.get(f"/v1/clusters/{cid}/state").json() == before
        assert [c2.get(f"/v1/clusters/{cid}/servers/rack-{i}").json()
                for i in range(3)] == servers_before
        nxt = c2.post(f"/v1/clusters/{cid}/arrivals",
                      json={"event_id": "next", "job_id": "n", "job_type": "small"}).json()
        assert {k: nxt[k] for k in ("decision", "server_id")} == \
            {k: next_first[k] for k in ("decision", "server_id")}
    assert second.state.ctx.engines.loads == 1


def test_another_process_writing_is_caught_up(db_url):
    """Two apps on one database: each sees the other's events before deciding."""
    settings = make_settings(db_url)
    a, b = (create_app(settings, configure_logs=False) for _ in range(2))
    with admin_client(a) as ca, admin_client(b) as cb:
        cid = ca.post("/v1/clusters", json=cluster_spec(servers=1)).json()["id"]
        for i in range(4):  # one server holds four small jobs
            client = ca if i % 2 else cb
            r = client.post(f"/v1/clusters/{cid}/arrivals",
                            json={"event_id": f"e{i}", "job_id": f"j{i}", "job_type": "small"})
            assert r.json()["decision"] == "placed"
        for client in (ca, cb):
            r = client.post(f"/v1/clusters/{cid}/arrivals",
                            json={"event_id": f"x{id(client)}", "job_id": f"x{id(client)}",
                                  "job_type": "small"})
            assert r.json()["decision"] == "rejected"
        assert ca.get(f"/v1/clusters/{cid}/state").json() == \
            cb.get(f"/v1/clusters/{cid}/state").json()
    # Each app loaded the engine once and then only replayed the other's tail.
    assert a.state.ctx.engines.loads == 1 and b.state.ctx.engines.loads == 1


def test_a_tampered_log_is_detected_not_silently_followed(db_url):
    settings = make_settings(db_url)
    with admin_client(create_app(settings, configure_logs=False)) as c:
        cid = c.post("/v1/clusters", json=cluster_spec(servers=2)).json()["id"]
        for i in range(3):
            c.post(f"/v1/clusters/{cid}/arrivals",
                   json={"event_id": f"e{i}", "job_id": f"j{i}", "job_type": "large"})
    app = create_app(settings, configure_logs=False)
    with app.state.ctx.sessions() as s, s.begin():
        row = s.scalars(select(Event).where(Event.cluster_id == cid, Event.seq == 2)).one()
        s.execute(update(Event).where(Event.cluster_id == cid, Event.seq == 2).values(
            response={**row.response, "server_id": "rack-0"}))
    with admin_client(app) as c:
        assert_problem(c.get(f"/v1/clusters/{cid}/state"), 500, "state_divergence")


def test_more_queued_events_than_one_group_all_get_answers(db_url, monkeypatch):
    """With more single events queued than one transaction takes, every caller is still
    answered (a smaller group limit stands in for a very long queue)."""
    from concurrent.futures import ThreadPoolExecutor

    from app.service import events

    monkeypatch.setattr(events, "MAX_GROUP", 2)
    app = create_app(make_settings(db_url), configure_logs=False)
    with admin_client(app) as c:
        cid = c.post("/v1/clusters", json=cluster_spec(servers=10)).json()["id"]
    ctx = app.state.ctx

    def post(i: int) -> dict:
        return events.submit_event(ctx, cid, {"kind": "arrival", "event_id": f"e{i}",
                                              "job_id": f"j{i}", "job_type": "small"})

    with ThreadPoolExecutor(max_workers=12) as pool:
        answers = list(pool.map(post, range(36)))
    assert sorted(a["event_seq"] for a in answers) == list(range(1, 37))
