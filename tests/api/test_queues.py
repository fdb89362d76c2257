"""Queued clusters (RMS and the greedy queue baselines) over HTTP, on SQLite and Postgres."""

from __future__ import annotations

import random
import time
from datetime import timedelta

import numpy as np
import pytest

from sqlalchemy import update

from app.api.schemas.clusters import ClusterCreate
from app.policies.rms import make_scheduler
from app.policies.model import cluster_model
from app.policies.rms.family import QueueAdapter
from app.service.ticker import wall_clock_clusters
from app.store.models import Cluster
from tests.conftest import admin_client, make_settings
from app.main import create_app
from tests.helpers import assert_problem, cluster_spec

# §III's example in miniature: servers of capacity 10, jobs of size 2 and 5.
POOLS = [{"name": "s", "count": 3, "capacity": {"cpu": 10, "memory": 10}}]
TYPES = [{"name": "two", "demand": {"cpu": 2, "memory": 1}},
         {"name": "five", "demand": {"cpu": 5, "memory": 1}}]


def queue_spec(policy: dict, **kw):
    return cluster_spec(policy=policy, server_pools=POOLS, job_types=TYPES, seed=11, **kw)


def create(client, policy: dict, **kw) -> dict:
    r = client.post("/v1/clusters", json=queue_spec(policy, **kw))
    assert r.status_code == 201, r.text
    return r.json()


def arrive(client, cid, eid, jid, jt="five", **extra):
    return client.post(f"/v1/clusters/{cid}/arrivals",
                       json={"event_id": eid, "job_id": jid, "job_type": jt, **extra})


def depart(client, cid, eid, jid, **extra):
    return client.post(f"/v1/clusters/{cid}/departures",
                       json={"event_id": eid, "job_id": jid, **extra})


def tick(client, cid, **body):
    return client.post(f"/v1/clusters/{cid}/tick", json=body)


def job(client, cid, jid):
    return client.get(f"/v1/clusters/{cid}/jobs/{jid}")


RMS_CLIENT = {"kind": "rms", "clock": "client"}


def test_rms_queues_then_a_tick_starts_jobs(client):
    cid = create(client, RMS_CLIENT)["id"]
    first = arrive(client, cid, "e0", "j0", at=0.0)
    assert first.status_code == 202
    body = first.json()
    assert body["decision"] == "queued" and body["position"] == 0 and body["server_id"] is None
    assert body["event_seq"] == 1 and body["at"] == 0.0 and body["started"] == []
    second = arrive(client, cid, "e1", "j1", at=0.0).json()
    assert second["position"] == 1
    view = job(client, cid, "j1").json()
    assert view == {"job_id": "j1", "job_type": "five", "status": "queued", "position": 1,
                    "queued_at": 0.0, "forecast": {
                        "level": 0.8, "samples": 0, "started": 0, "finished_jobs": 0,
                        "reason": "no finished job yet to draw lifetimes from"}}

    # Rate 3 clocks per type (3 servers): by t=20 both jobs started, each reported once.
    started = tick(client, cid, until=20.0).json()
    assert started["decision"] == "advanced" and started["now"] == 20.0
    assert sorted(s["job_id"] for s in started["started"]) == ["j0", "j1"]
    for s in started["started"]:
        assert 0.0 < s["at"] < 20.0 and s["queued_at"] == 0.0
        view = job(client, cid, s["job_id"]).json()
        assert view["status"] == "running" and view["server_id"] == s["server_id"]
        assert view["started_at"] == s["at"]

    state = client.get(f"/v1/clusters/{cid}/state").json()
    assert state["queues"] == {"two": 0, "five": 0} and state["running"]["five"] == 2
    assert set(state["weights"]) == {"two", "five"} and set(state["dummies"]) == {"two", "five"}
    assert state["clock"]["mode"] == "client" and state["clock"]["next_event_at"] > 20.0

    gone = depart(client, cid, "d0", "j0", at=21.0)
    assert gone.status_code == 200
    assert gone.json()["decision"] == "released" and gone.json()["at"] == 21.0
    finished = job(client, cid, "j0").json()
    assert finished["status"] == "finished" and finished["finished_at"] == 21.0


def test_the_api_decides_exactly_what_the_engine_decides(db_url):
    """A random run through two app instances sharing one database (stale caches, snapshots
    every 3 events, replays verified) against the pure engine fed the same calls."""
    apps = [create_app(make_settings(db_url, snapshot_every=3, tick_interval_seconds=0),
                       configure_logs=False) for _ in range(2)]
    clients = [admin_client(a) for a in apps]
    with clients[0] as c0, clients[1] as c1:
        policy = {"kind": "rms", "clock": "client", "replace_dummies": True,
                  "sampling": "bf", "clock_rate": {"two": 2.0, "five": 4.0}}
        cluster = create(c0, policy)
        cid = cluster["id"]
        twin = QueueAdapter.build(cluster).engine  # the view holds the declaration with its defaults
        rng = random.Random(5)
        running: list[str] = []
        withdrawals = 0
        t = 0.0
        for i in range(60):
            c = (c0, c1)[rng.random() < 0.5]
            t += rng.expovariate(3.0)
            roll = rng.random()
            if roll < 0.5:
                jt = rng.choice(["two", "five"])
                got = arrive(c, cid, f"e{i}", f"j{i}", jt, at=t).json()
                want = twin.arrive(f"j{i}", jt, t)
                if want["decision"] == "started":
                    running.append(f"j{i}")
            elif roll < 0.75 and running:
                jid = running.pop(rng.randrange(len(running)))
                got = depart(c, cid, f"e{i}", jid, at=t).json()
                want = twin.depart(jid, t)
            elif roll < 0.85 and twin.queued:  # cancelled while waiting: withdrawn (or, if a
                jid = rng.choice(sorted(twin.queued))  # clock starts it first, released)
                got = depart(c, cid, f"e{i}", jid, at=t).json()
                want = twin.depart(jid, t)
                withdrawals += want["decision"] == "withdrawn"
            else:
                got = tick(c, cid, until=t).json()
                if twin.next_event_time() >= t:
                    want = {"decision": "idle", "now": twin.now, "started": []}
                else:
                    want = {"decision": "advanced", "started": twin.advance(t), "now": t}
            running += [s["job_id"] for s in want["started"] if s["job_id"] in twin.running]
            if got["decision"] in ("queued", "started", "released", "withdrawn"):
                want["at"] = t
            assert {k: got[k] for k in want} == want, (i, got, want)
        final = c1.get(f"/v1/clusters/{cid}/state").json()
        assert final["queues"] == dict(zip(["two", "five"], twin.queue_lengths()))
        assert final["arrived"] == twin.arrived and final["finished"] == twin.finished_total
        assert final["withdrawn"] == twin.withdrawn_total == withdrawals > 0


def test_a_waiting_job_that_departs_is_withdrawn(client):
    """A job cancelled before it started (Slurm's scancel of a held job, a deleted pod): its
    departure takes it out of the queue, so it never starts and never holds a slot."""
    cid = create(client, {"kind": "best_fit_queue", "clock": "client"})["id"]
    for i in range(8):  # six start, j6 and j7 wait
        arrive(client, cid, f"e{i}", f"j{i}", at=1.0)
    r = depart(client, cid, "d6", "j6", at=2.0)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["decision"] == "withdrawn" and body["job_id"] == "j6" and body["at"] == 2.0
    assert body["server_id"] is None and body["started"] == []
    assert job(client, cid, "j6").json() == {"job_id": "j6", "job_type": "five",
                                             "status": "withdrawn", "queued_at": 1.0,
                                             "withdrawn_at": 2.0}
    assert job(client, cid, "j7").json()["position"] == 0
    state = client.get(f"/v1/clusters/{cid}/state").json()
    assert state["withdrawn"] == 1 and state["queues"]["five"] == 1
    again = depart(client, cid, "d6", "j6", at=2.0)  # a retry replays the answer
    assert again.json()["replayed"] is True and again.json()["decision"] == "withdrawn"
    assert_problem(depart(client, cid, "d6b", "j6", at=3.0), 409, "job_not_running")
    assert_problem(arrive(client, cid, "e6b", "j6", at=3.0), 409, "job_already_known")
    # The freed slot of a running job goes to j7 now, not to the withdrawn j6.
    freed = depart(client, cid, "d0", "j0", at=3.0).json()
    assert [s["job_id"] for s in freed["started"]] == ["j7"]


def test_idle_tick_changes_nothing_and_logs_nothing(client):
    cid = create(client, {"kind": "best_fit_queue", "clock": "client"})["id"]
    arrive(client, cid, "e0", "j0", at=1.0)
    r = tick(client, cid, until=50.0)
    assert r.status_code == 200
    assert r.json() == {"decision": "idle", "now": 1.0, "started": [], "event_seq": None,
                        "replayed": False, "dry_run": False, "gangs_timed_out": None}
    assert client.get(f"/v1/clusters/{cid}").json()["version"] == 1
    assert len(client.get(f"/v1/clusters/{cid}/events").json()["items"]) == 1


def test_greedy_queue_starts_at_once_then_queues_then_fills(client):
    cid = create(client, {"kind": "best_fit_queue", "clock": "client"})["id"]
    answers = [arrive(client, cid, f"e{i}", f"j{i}", at=float(i)) for i in range(7)]
    assert [a.status_code for a in answers] == [200] * 6 + [202]
    assert [a.json()["decision"] for a in answers] == ["started"] * 6 + ["queued"]
    freed = depart(client, cid, "d", "j2", at=10.0).json()
    assert [(s["job_id"], s["server_id"]) for s in freed["started"]] == \
        [("j6", freed["server_id"])]
    assert job(client, cid, "j6").json()["started_at"] == 10.0


def test_retries_replay_and_reused_ids_conflict(client):
    cid = create(client, RMS_CLIENT)["id"]
    first = arrive(client, cid, "e0", "j0", at=1.0)
    again = arrive(client, cid, "e0", "j0", at=1.0)
    assert again.status_code == 202 and again.json()["replayed"] is True
    assert {k: v for k, v in again.json().items() if k != "replayed"} == \
        {k: v for k, v in first.json().items() if k != "replayed"}
    assert_problem(arrive(client, cid, "e0", "j9", at=1.0), 409, "idempotency_key_reused")


def test_wall_clock_stamps_events(client):
    cid = create(client, {"kind": "first_fit_queue", "time_unit_seconds": 0.001})["id"]
    a = arrive(client, cid, "e0", "j0").json()
    b = arrive(client, cid, "e1", "j1").json()
    assert 0 < a["at"] <= b["at"]
    logged = client.get(f"/v1/clusters/{cid}/events").json()["items"]
    assert [e["request"]["at"] for e in logged] == [a["at"], b["at"]]
    r = arrive(client, cid, "e2", "j2", at=5.0)
    assert_problem(r, 422, "validation_error")
    assert r.json()["errors"][0]["field"] == "at"
    assert_problem(tick(client, cid, until=10.0), 422, "validation_error")


@pytest.mark.parametrize("make_request, status, code, field", [
    (lambda c, cid: arrive(c, cid, "x", "j0", at=3.0), 409, "job_already_known", "job_id"),
    (lambda c, cid: arrive(c, cid, "x", "n", "ghost", at=3.0), 404, "unknown_job_type",
     "job_type"),
    (lambda c, cid: arrive(c, cid, "x", "n", at=1.0), 409, "time_went_backwards", "at"),
    (lambda c, cid: arrive(c, cid, "x", "n"), 422, "validation_error", "at"),
    (lambda c, cid: depart(c, cid, "x", "j1", at=3.0), 409, "job_not_running", "job_id"),
    (lambda c, cid: depart(c, cid, "x", "ghost", at=3.0), 404, "unknown_job", "job_id"),
    (lambda c, cid: tick(c, cid), 422, "validation_error", "until"),
    (lambda c, cid: tick(c, cid, until=-1), 422, "validation_error", "until"),
    (lambda c, cid: tick(c, cid, until="soon"), 422, "validation_error", "until"),
    (lambda c, cid: arrive(c, cid, "x", "n", dry_run=True, at=3.0), 422,
     "dry_run_unsupported", None),
    (lambda c, cid: c.get(f"/v1/clusters/{cid}/jobs/nobody"), 404, "unknown_job", "job_id"),
])
def test_bad_requests_are_problems_and_change_nothing(client, make_request, status, code,
                                                      field):
    cid = create(client, {"kind": "best_fit_queue", "clock": "client"})["id"]
    for i in range(7):  # six start, j6 waits
        arrive(client, cid, f"e{i}", f"j{i}", at=2.0)
    assert job(client, cid, "j6").json()["status"] == "queued"
    depart(client, cid, "d", "j1", at=2.0)  # j6 takes its place; j1 is finished
    before = client.get(f"/v1/clusters/{cid}/state").json()
    body = assert_problem(make_request(client, cid), status, code)
    if field is not None:
        assert body["errors"][0]["field"] == field
    assert client.get(f"/v1/clusters/{cid}/state").json() == before


def test_placement_clusters_refuse_time_and_queue_routes(client):
    cid = client.post("/v1/clusters", json=cluster_spec()).json()["id"]
    assert_problem(arrive(client, cid, "e0", "j0", "small", at=1.0), 422, "validation_error")
    assert client.get(f"/v1/clusters/{cid}").json()["version"] == 0
    # A route of another family: 409 naming the cluster's kind and routes (issue #16 item 4).
    wrong = tick(client, cid, until=1.0)
    assert_problem(wrong, 409, "wrong_cluster_kind")
    assert "first_fit" in wrong.json()["detail"] and "/arrivals" in wrong.json()["detail"]
    assert_problem(job(client, cid, "j0"), 409, "wrong_cluster_kind")


@pytest.mark.parametrize("policy, field", [
    ({"kind": "rms", "clock_rate": {"two": 1.0}}, "policy"),
    ({"kind": "rms", "clock_rate": 0}, "policy.clock_rate"),
    ({"kind": "rms", "epsilon": 1.0}, "policy.epsilon"),
    ({"kind": "rms", "clock": "sundial"}, "policy.clock"),
    ({"kind": "best_fit_queue", "sampling": "bf"}, "policy.sampling"),
    ({"kind": "random_fit_queue", "time_unit_seconds": 0}, "policy.time_unit_seconds"),
])
def test_bad_queue_policies_are_refused(client, policy, field):
    r = client.post("/v1/clusters", json=queue_spec(policy))
    body = assert_problem(r, 422, "validation_error")
    assert any(e["field"].startswith(field) for e in body["errors"]), body["errors"]
    assert client.get("/v1/clusters").json()["items"] == []


def test_batch_of_queue_events(client):
    cid = create(client, {"kind": "first_fit_queue", "clock": "client"})["id"]
    events = [{"kind": "arrival", "event_id": f"e{i}", "job_id": f"j{i}", "job_type": "five",
               "at": float(i)} for i in range(7)]
    events.append({"kind": "departure", "event_id": "d", "job_id": "j0", "at": 9.0})
    r = client.post(f"/v1/clusters/{cid}/events:batch", json={"events": events})
    assert r.status_code == 200, r.text
    results = r.json()["results"]
    assert [x["decision"] for x in results] == ["started"] * 6 + ["queued", "released"]
    assert [s["job_id"] for s in results[-1]["started"]] == ["j6"]
    # All or nothing: one bad event (time going backwards) refuses the whole batch.
    bad = [{"kind": "arrival", "event_id": "f1", "job_id": "k1", "job_type": "two", "at": 10.0},
           {"kind": "arrival", "event_id": "f2", "job_id": "k2", "job_type": "two", "at": 1.0}]
    assert_problem(client.post(f"/v1/clusters/{cid}/events:batch", json={"events": bad}), 409,
                   "time_went_backwards")
    assert client.get(f"/v1/clusters/{cid}").json()["version"] == 8


def test_background_loop_starts_queued_jobs(db_url):
    """Wall clock: nobody ticks; the process's loop fires RMS's clocks and jobs start."""
    app = create_app(make_settings(db_url, tick_interval_seconds=0.05), configure_logs=False)
    with admin_client(app) as c:
        time.sleep(0.2)  # the loop has made passes before the cluster exists
        # 1 time unit = 10 ms: three clocks per unit per type fire ~300 times a second.
        cid = create(c, {"kind": "rms", "time_unit_seconds": 0.01})["id"]
        create(c, {"kind": "rms", "clock": "client"})  # not the loop's business
        for i in range(4):
            assert arrive(c, cid, f"e{i}", f"j{i}").status_code in (200, 202)
        # Seconds, not the ~0.1 s it takes here: slack for a loaded CI machine, yet well
        # under a slow re-listing of clusters.
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            views = [job(c, cid, f"j{i}").json() for i in range(4)]
            if all(v["status"] == "running" for v in views):
                break
            time.sleep(0.05)
        assert all(v["status"] == "running" for v in views), views
        ticks = [e for e in c.get(f"/v1/clusters/{cid}/events?limit=1000").json()["items"]
                 if e["kind"] == "tick"]
        assert ticks and all(t["decision"] == "advanced" for t in ticks)
        assert all(t["event_id"].startswith("tick-") for t in ticks)
        assert [w[0] for w in wall_clock_clusters(app.state.ctx)] == [cid]


def test_service_builds_the_engine_the_simulator_builds():
    # The twin used above is built the way the service builds engines.
    spec = ClusterCreate.model_validate(queue_spec({"kind": "rms", "clock": "client"})
                                        ).model_dump(mode="json")
    eng = QueueAdapter.build(spec).engine
    ref = make_scheduler("rms", cluster_model(spec), {}, np.random.default_rng(11))
    assert eng.to_state() == ref.to_state()


def test_distributed_queues_route_each_arrival_to_a_server(client):
    """Algorithm 2 over HTTP: a queued job is bound to the server whose queue it joined."""
    cid = create(client, {"kind": "rms", "clock": "client", "routing": "jsq"})["id"]
    views = []
    for i in range(6):
        assert arrive(client, cid, f"e{i}", f"j{i}", at=0.0).status_code == 202
        views.append(job(client, cid, f"j{i}").json())
    # JSQ over three servers: two rounds, every server's queue gets one job per round.
    servers = [v["server_id"] for v in views]
    assert sorted(servers[:3]) == sorted(servers[3:]) == ["s-0", "s-1", "s-2"]
    assert [v["position"] for v in views] == [0, 0, 0, 1, 1, 1]
    state = client.get(f"/v1/clusters/{cid}/state").json()
    assert state["variant"]["routing"] == "jsq" and state["local_queues_nonempty"] == 3
    started = tick(client, cid, until=50.0).json()["started"]
    assert {s["job_id"]: s["server_id"] for s in started} == \
        {v["job_id"]: v["server_id"] for v in views}


def test_distributed_queues_refuse_centralized_only_variants(client):
    r = client.post("/v1/clusters", json=queue_spec(
        {"kind": "rms", "routing": "po2", "adaptive": True}))
    body = assert_problem(r, 422, "validation_error")
    assert "adaptive" in body["detail"]


def test_one_event_moves_the_clock_a_bounded_span(client):
    """A jump far ahead would fire clocks by the million under the cluster's lock: ticks stop
    at 100,000 expected clock ticks (here 2 types x rate 1,000 -> 50 time units) and say so;
    an arrival that far ahead is refused until the clock has been ticked there."""
    cid = create(client, {"kind": "rms", "clock": "client", "clock_rate": 1000.0})["id"]
    first = tick(client, cid, until=1e9).json()
    assert first["decision"] == "advanced" and first["now"] == pytest.approx(50.0)
    before = client.get(f"/v1/clusters/{cid}/state").json()
    r = arrive(client, cid, "e0", "j0", at=1e6)  # within the ten-year jump bound
    assert assert_problem(r, 422, "validation_error")["errors"][0]["field"] == "at"
    assert client.get(f"/v1/clusters/{cid}/state").json() == before
    assert arrive(client, cid, "e0", "j0", at=99.0).status_code in (200, 202)


def test_wall_clock_catches_up_in_bounded_steps(db_url):
    app = create_app(make_settings(db_url, tick_interval_seconds=0), configure_logs=False)
    with admin_client(app) as c:
        # 2 x 0.5 ticks per 1 ms unit (the fastest accepted wall clock): one event's span is
        # 100,000 units, 100 s of wall time; the cluster is made 300 s old.
        cid = create(c, {"kind": "rms", "time_unit_seconds": 1e-3, "clock_rate": 0.5})["id"]
        with app.state.ctx.sessions() as s, s.begin():
            born = s.get(Cluster, cid).created_at
            s.execute(update(Cluster).where(Cluster.id == cid)
                      .values(created_at=born - timedelta(seconds=300)))
        a = arrive(c, cid, "e0", "j0").json()
        assert a["at"] == pytest.approx(100_000)
        b = tick(c, cid).json()
        assert b["now"] == pytest.approx(2 * 100_000)


def test_the_loop_leaves_an_idle_cluster_alone_until_a_job_waits(db_url):
    """No job waiting: RMS's clocks only make and end dummy jobs, which the next event fires
    itself; the loop writes nothing until half a span (here ~83 s of wall time) has passed."""
    app = create_app(make_settings(db_url, tick_interval_seconds=0.05), configure_logs=False)
    with admin_client(app) as c:
        cid = create(c, {"kind": "rms", "time_unit_seconds": 0.01})["id"]
        a = arrive(c, cid, "e0", "j0", "two").json()
        deadline = time.monotonic() + 5
        while job(c, cid, "j0").json()["status"] != "running" and time.monotonic() < deadline:
            time.sleep(0.05)
        assert job(c, cid, "j0").json()["status"] == "running"
        version = c.get(f"/v1/clusters/{cid}").json()["version"]
        time.sleep(0.5)  # ~10 passes with nothing waiting
        assert c.get(f"/v1/clusters/{cid}").json()["version"] == version
        # The next event is stamped at the wall clock, having fired the skipped clocks itself.
        b = arrive(c, cid, "e1", "j1", "two").json()
        assert b["at"] - a["at"] >= 50  # >= 0.5 s of 10 ms units since the first arrival
