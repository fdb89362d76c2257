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


def _tamper_server(app, cid: str, seq: int, server: str) -> None:
    with app.state.ctx.sessions() as s, s.begin():
        row = s.scalars(select(Event).where(Event.cluster_id == cid, Event.seq == seq)).one()
        s.execute(update(Event).where(Event.cluster_id == cid, Event.seq == seq).values(
            response={**row.response, "server_id": server}))


@pytest.mark.parametrize("verify_every,tampered,server,detected", [
    (1, 3, "rack-4", True),   # every caught-up event decided again: any lie is found
    (4, 4, "rack-4", True),   # sampled: the 4th event is decided again
    (8, 3, "rack-1", True),   # followed, but onto a full server: the state cannot take it
    (8, 3, "rack-4", False),  # followed: the log is the truth, and the follower agrees with it
])
def test_hot_catch_up_verifies_the_sampled_events(db_url, verify_every, tampered, server,
                                                  detected):
    """A process whose cached engine is behind decides again every ``verify_every``-th event
    it catches up on and follows the logged answer of the others; its catch-up is counted."""
    settings = make_settings(db_url, catch_up_verify_every=verify_every)
    a, b = (create_app(settings, configure_logs=False) for _ in range(2))
    with admin_client(a) as ca, admin_client(b) as cb:
        cid = ca.post("/v1/clusters", json=cluster_spec(servers=5)).json()["id"]
        assert cb.get(f"/v1/clusters/{cid}/state").status_code == 200  # b caches the engine
        for i in range(4):  # decided by a: one large job fills a server, rack-0 to rack-3
            assert ca.post(f"/v1/clusters/{cid}/arrivals", json={
                "event_id": f"e{i}", "job_id": f"j{i}", "job_type": "large"}
            ).json()["server_id"] == f"rack-{i}"
        _tamper_server(a, cid, tampered, server)
        replays = b.state.ctx.metrics.catch_up_replays
        before = replays._value.get()
        r = cb.get(f"/v1/clusters/{cid}/state")
        assert replays._value.get() == before + 4
        if detected:
            assert_problem(r, 500, "state_divergence")
        else:
            assert r.status_code == 200
            view = cb.get(f"/v1/clusters/{cid}/servers/{server}").json()
            assert view["jobs"] == [f"j{tampered - 1}"]
    assert b.state.ctx.engines.loads == 1
