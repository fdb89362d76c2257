"""What-if runs over HTTP: a cluster's own log replayed under another policy by the service's
background job (a real child process), read back with its result; bad requests are 4xx and
write nothing; a read key reads, a write key starts, another owner sees nothing."""

from __future__ import annotations

import random
import time

from fastapi.testclient import TestClient

from app.main import create_app
from app.service.auth import create_key
from tests.conftest import admin_client, make_settings
from tests.helpers import assert_problem, cluster_spec


def drive_placement(client, cid: str, n: int = 240, seed: int = 1) -> None:
    rng, live = random.Random(seed), []
    for i in range(n):
        if live and rng.random() < 0.45:
            job = live.pop(rng.randrange(len(live)))
            r = client.post(f"/v1/clusters/{cid}/departures", json={"event_id": f"d{i}", "job_id": job})
        else:
            job = f"j{i}"
            r = client.post(f"/v1/clusters/{cid}/arrivals", json={
                "event_id": f"a{i}", "job_id": job, "job_type": rng.choice(["small", "large"])})
            if r.json().get("decision") == "placed":
                live.append(job)
        assert r.status_code == 200, r.text


def wait_done(client, location: str, seconds: float = 120) -> dict:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        run = client.get(location).json()
        if run["status"] in ("done", "failed", "cancelled"):
            return run
        time.sleep(0.3)
    raise AssertionError(f"what-if not done in {seconds} s: {run}")


def test_a_what_if_replays_the_log_under_another_policy_in_the_background(db_url):
    app = create_app(make_settings(db_url, what_if_workers=1), configure_logs=False)
    with admin_client(app) as client:
        cid = client.post("/v1/clusters", json=cluster_spec(policy={"kind": "dra"}, servers=3)).json()["id"]
        drive_placement(client, cid)
        version = client.get(f"/v1/clusters/{cid}").json()["version"]
        r = client.post(f"/v1/clusters/{cid}/what-if", json={"policy": {"kind": "best_fit"},
                                                              "seeds": [0, 1]})
        assert r.status_code == 202, r.text
        assert r.json()["status"] == "queued" and r.json()["progress"]["events_total"] == version
        run = wait_done(client, r.headers["location"])
        assert run["status"] == "done", run
        res = run["result"]
        assert res["events"] == version and res["policy"]["kind"] == "dra"
        assert res["alternative"]["kind"] == "best_fit"
        assert res["policy"]["reproduces_log"] and res["policy"]["whole_log"]
        assert run["progress"] == {"events_done": version, "events_total": version}
        # Each differing decision names its logged event, whose answer is the log's.
        first = res["differences"]["first"]
        assert first and res["differences"]["count"] >= len(first)
        for d in first[:5]:
            logged = client.get(f"/v1/clusters/{cid}/events",
                                params={"cursor": d["seq"] - 1, "limit": 1}).json()["items"][0]
            assert (logged["seq"], logged["event_id"]) == (d["seq"], d["event_id"])
            assert logged["response"] == d["logged"] == d["policy"]
        # The cluster itself did not move: a what-if reads the log, never writes it.
        assert client.get(f"/v1/clusters/{cid}").json()["version"] == version
        listed = client.get(f"/v1/clusters/{cid}/what-if").json()["items"]
        assert [x["id"] for x in listed] == [run["id"]] and listed[0]["result"] is None
        # The same policy over a window: both sides start empty at from_seq.
        r = client.post(f"/v1/clusters/{cid}/what-if", json={
            "policy": {"kind": "dra"}, "window": {"from_seq": 100, "to_seq": 200}})
        same = wait_done(client, r.headers["location"])["result"]
        assert same["events"] == 101 and same["differences"]["count"] == 0
        assert not same["policy"]["whole_log"]
        # The advisor: every other placement kind ranked against the policy that ran.
        r = client.post(f"/v1/clusters/{cid}/what-if", json={
            "advise": {"objective": "acceptance"}, "seeds": [0, 1]})
        assert r.status_code == 202, r.text
        assert {c["policy"]["kind"] for c in r.json()["request"]["candidates"]} == {
            "first_fit", "best_fit", "power_of_d", "dra"}
        advice = wait_done(client, r.headers["location"])["result"]["advice"]
        ranking = advice["ranking"]
        assert advice["objective"] == "acceptance" and advice["better"] == "higher"
        current = [c for c in ranking if c["is_current"]]
        assert len(current) == 1 and current[0]["policy"]["kind"] == "dra"
        assert current[0]["score"] == res["policy"]["summary"]["acceptance"]
        best_fit = next(c for c in ranking if c["policy"] == {"kind": "best_fit"})
        assert best_fit["summary"]["acceptance"] == res["alternative"]["summary"]["acceptance"]
        assert [c["score"] for c in ranking] == sorted((c["score"] for c in ranking), reverse=True)
        assert ranking[0]["label"] in advice["statement"]


def test_bad_what_if_requests_are_refused_and_store_nothing(client: TestClient):
    cid = client.post("/v1/clusters", json=cluster_spec(policy={"kind": "first_fit"})).json()["id"]
    url = f"/v1/clusters/{cid}/what-if"
    for body, field in [({"policy": {"kind": "rms"}}, "policy.kind"),
                        ({"policy": {"kind": "nope"}}, "policy.kind"),
                        ({"policy": {"kind": "power_of_d", "d": 0}}, "policy.d"),
                        ({"policy": {"kind": "best_fit"}, "window": {"from_seq": 5, "to_seq": 2}}, "window"),
                        ({"policy": {"kind": "best_fit"}, "seeds": [1, 1]}, "seeds"),
                        ({"policy": {"kind": "best_fit"}, "seeds": []}, "seeds"),
                        ({"policy": {"kind": "best_fit"}, "bogus": 1}, "bogus"),
                        ({}, "body"),
                        ({"policy": {"kind": "best_fit"}, "advise": {}}, "body"),
                        ({"advise": {"objective": "queue_wait"}}, "advise.objective"),
                        ({"advise": {"objective": "cost"}}, "advise.objective"),
                        ({"advise": {"max_rejection": 1.5}}, "advise.max_rejection")]:
        problem = assert_problem(client.post(url, json=body), 422, "validation_error")
        assert any(e["field"].startswith(field) for e in problem["errors"]), (body, problem)
    assert client.get(url).json()["items"] == []
    # A moment cluster's advisor tries the other kinds it can declare, and says why not the rest.
    mid = client.post("/v1/clusters", json={"name": "m", "capacity_cores": 2000,
                                             "policy": {"kind": "second_moment"}}).json()["id"]
    r = client.post(f"/v1/clusters/{mid}/what-if", json={"advise": {}})
    assert r.status_code == 202, r.text
    asked = r.json()["request"]
    assert asked["advise"] == {"objective": "utilization", "max_rejection": None}
    tried = [c["policy"]["kind"] for c in asked["candidates"]]
    skipped = [c["policy"]["kind"] for c in asked["skipped"]]
    assert sorted(tried + skipped) == ["first_moment", "threshold"]
    assert all(c["reason"] for c in asked["skipped"])
    assert all(c["declaration"]["policy"]["threshold"] is not None for c in asked["candidates"])
    assert_problem(client.post(f"/v1/clusters/{mid}/what-if",
                               json={"advise": {"max_rejection": 0.1}}), 422, "validation_error")
    assert_problem(client.get(f"{url}/00000000-0000-0000-0000-000000000000"), 404, "what_if_not_found")
    assert_problem(client.get(f"{url}/not-a-run"), 404, "what_if_not_found")
    assert_problem(client.post("/v1/clusters/nobody/what-if", json={"policy": {"kind": "best_fit"}}),
                   404, "cluster_not_found")


def test_keys_and_owners(app, client: TestClient):
    cid = client.post("/v1/clusters", json=cluster_spec(policy={"kind": "first_fit"})).json()["id"]
    url = f"/v1/clusters/{cid}/what-if"
    ctx = app.state.ctx
    reader = TestClient(app, headers={"Authorization": f"Bearer {create_key(ctx, 'default', ['read'])['key']}"})
    writer = TestClient(app, headers={"Authorization": f"Bearer {create_key(ctx, 'default', ['write'])['key']}"})
    stranger = TestClient(app, headers={"Authorization": f"Bearer {create_key(ctx, 'other', ['admin'])['key']}"})
    assert_problem(reader.post(url, json={"policy": {"kind": "best_fit"}}), 403, "forbidden")
    r = writer.post(url, json={"policy": {"kind": "best_fit"}})
    assert r.status_code == 202, r.text
    assert reader.get(r.headers["location"]).json()["id"] == r.json()["id"]
    # Another owner's cluster does not exist for this key, nor do its runs.
    assert_problem(stranger.get(url), 404, "cluster_not_found")
    assert_problem(stranger.get(r.headers["location"]), 404, "cluster_not_found")
    assert_problem(stranger.post(url, json={"policy": {"kind": "best_fit"}}), 404, "cluster_not_found")
    # With no worker in this app the run waits; a write key cancels it, a read key may not.
    assert_problem(reader.delete(r.headers["location"]), 403, "forbidden")
    assert writer.delete(r.headers["location"]).json()["status"] == "cancelled"
    # At most four open runs per cluster.
    for _ in range(4):
        assert writer.post(url, json={"policy": {"kind": "best_fit"}}).status_code == 202
    assert_problem(writer.post(url, json={"policy": {"kind": "best_fit"}}), 409, "too_many_what_ifs")


def test_a_reservation_stream_what_if(db_url):
    app = create_app(make_settings(db_url, what_if_workers=1), configure_logs=False)
    with admin_client(app) as client:
        rid = client.post("/v1/reservations", json={
            "name": "web", "resources": [{"name": "cpu", "cost": 1, "epsilon": 0.1}],
            "policy": {"kind": "thor"}}).json()["id"]
        for t in range(60):
            r = client.post(f"/v1/reservations/{rid}/observations",
                            json={"event_id": f"p{t}", "period": t, "demand": {"cpu": 10 + t % 7}})
            assert r.status_code == 200, r.text
        r = client.post(f"/v1/reservations/{rid}/what-if", json={"policy": {"kind": "percentile"}})
        assert r.status_code == 202, r.text
        assert r.headers["location"].startswith(f"/v1/reservations/{rid}/what-if/")
        res = wait_done(client, r.headers["location"])["result"]
        assert res["policy"]["reproduces_log"] and res["alternative"]["assumptions"] == []
        cpu = res["alternative"]["summary"]["reservations"]["cpu"]
        assert cpu["epsilon"] == 0.1 and cpu["violation_rate"] is not None
        # A stream's runs are not a cluster's route.
        assert_problem(client.get(f"/v1/clusters/{rid}/what-if"), 409, "wrong_cluster_kind")
        # The advisor on a stream: the other kinds by cost, among those that keep ε.
        r = client.post(f"/v1/reservations/{rid}/what-if", json={"advise": {}})
        assert r.status_code == 202, r.text
        advice = wait_done(client, r.headers["location"])["result"]["advice"]
        assert advice["objective"] == "cost_per_period" and advice["better"] == "lower"
        assert {c["policy"]["kind"] for c in advice["ranking"]} == {
            "thor", "quantile_tracking", "ftl", "percentile"}
        percentile = next(c for c in advice["ranking"] if c["policy"] == {"kind": "percentile"})
        assert percentile["score"] == res["alternative"]["summary"]["cost_per_period"]
        kept = [c["score"] for c in advice["ranking"] if c["meets_constraint"]]
        assert kept == sorted(kept)
        for c in advice["ranking"]:
            assert c["meets_constraint"] == (
                c["summary"]["reservations"]["cpu"]["violation_rate"] <= 0.1)
