"""Contract tests for arrivals, departures, batches, the log and state, on both databases."""

from __future__ import annotations

import pytest

from tests.helpers import assert_problem, create_cluster


@pytest.fixture
def cluster(client):
    return create_cluster(client, servers=2)


def arrive(client, cid, event_id, job_id, job_type="small", **extra):
    return client.post(f"/v1/clusters/{cid}/arrivals",
                       json={"event_id": event_id, "job_id": job_id, "job_type": job_type,
                             **extra})


def depart(client, cid, event_id, job_id):
    return client.post(f"/v1/clusters/{cid}/departures",
                       json={"event_id": event_id, "job_id": job_id})


def test_arrivals_fill_servers_then_reject(client, cluster):
    cid = cluster["id"]
    placed = [arrive(client, cid, f"e{i}", f"j{i}").json() for i in range(8)]
    assert [p["decision"] for p in placed] == ["placed"] * 8
    assert [p["server_id"] for p in placed] == ["rack-0"] * 4 + ["rack-1"] * 4
    assert [p["event_seq"] for p in placed] == list(range(1, 9))
    r = arrive(client, cid, "e8", "j8").json()
    assert r["decision"] == "rejected" and r["server_id"] is None
    assert r["reason"] == "no_server_fits" and r["replayed"] is False
    state = client.get(f"/v1/clusters/{cid}/state").json()
    assert state["jobs"] == 8 and state["version"] == 9
    assert client.get(f"/v1/clusters/{cid}").json()["version"] == 9


def test_departure_frees_the_slot(client, cluster):
    cid = cluster["id"]
    for i in range(8):
        arrive(client, cid, f"e{i}", f"j{i}")
    r = depart(client, cid, "d1", "j5")
    assert r.status_code == 200
    body = r.json()
    assert body["decision"] == "released" and body["server_id"] == "rack-1"
    assert body["migration"] is None and body["reconfigured"] == []
    assert arrive(client, cid, "e9", "j9").json()["server_id"] == "rack-1"
    server = client.get(f"/v1/clusters/{cid}/servers/rack-1").json()
    assert sorted(server["jobs"]) == ["j4", "j6", "j7", "j9"]
    assert server["used"] == {"cpu": 8.0, "memory": 32.0}


def test_retry_returns_the_stored_decision(client, cluster):
    cid = cluster["id"]
    first = arrive(client, cid, "e1", "j1").json()
    again = arrive(client, cid, "e1", "j1").json()
    assert again["replayed"] is True
    assert {k: v for k, v in again.items() if k != "replayed"} == \
        {k: v for k, v in first.items() if k != "replayed"}
    assert client.get(f"/v1/clusters/{cid}").json()["version"] == 1
    assert len(client.get(f"/v1/clusters/{cid}/events").json()["items"]) == 1


def test_same_key_other_body_is_409_and_changes_nothing(client, cluster):
    cid = cluster["id"]
    arrive(client, cid, "e1", "j1")
    assert_problem(arrive(client, cid, "e1", "j2"), 409, "idempotency_key_reused")
    assert_problem(depart(client, cid, "e1", "j1"), 409, "idempotency_key_reused")
    assert client.get(f"/v1/clusters/{cid}/state").json()["jobs"] == 1


def test_idempotency_key_header_is_the_event_id(client, cluster):
    cid = cluster["id"]
    url = f"/v1/clusters/{cid}/arrivals"
    body = {"job_id": "j1", "job_type": "small"}
    r1 = client.post(url, json=body, headers={"Idempotency-Key": "h1"})
    r2 = client.post(url, json=body, headers={"Idempotency-Key": "h1"})
    assert r1.json()["event_seq"] == r2.json()["event_seq"] == 1 and r2.json()["replayed"]
    assert client.get(f"/v1/clusters/{cid}/events").json()["items"][0]["event_id"] == "h1"
    assert_problem(client.post(url, json=body), 422, "validation_error")
    assert_problem(client.post(url, json={**body, "event_id": "x"},
                               headers={"Idempotency-Key": "y"}), 422)


def test_dry_run_decides_without_committing(client, cluster):
    cid = cluster["id"]
    r = client.post(f"/v1/clusters/{cid}/arrivals",
                    json={"job_id": "j1", "job_type": "large", "dry_run": True}).json()
    assert r["dry_run"] is True and r["decision"] == "placed" and r["event_seq"] is None
    assert client.get(f"/v1/clusters/{cid}/state").json()["jobs"] == 0
    assert client.get(f"/v1/clusters/{cid}").json()["version"] == 0
    assert client.get(f"/v1/clusters/{cid}/events").json()["items"] == []


def test_unknown_things_are_404_and_duplicates_409(client, cluster):
    cid = cluster["id"]
    assert_problem(arrive(client, cid, "e1", "j1", job_type="huge"), 404, "unknown_job_type")
    assert_problem(depart(client, cid, "e2", "nobody"), 404, "unknown_job")
    assert_problem(arrive(client, "no-such-cluster", "e3", "j1"), 404, "cluster_not_found")
    assert_problem(client.get(f"/v1/clusters/{cid}/servers/rack-99"), 404, "unknown_server")
    arrive(client, cid, "e4", "j1")
    assert_problem(arrive(client, cid, "e5", "j1"), 409, "job_already_known")
    assert client.get(f"/v1/clusters/{cid}").json()["version"] == 1


@pytest.mark.parametrize("body", [
    {"event_id": "e", "job_id": "j", "job_type": "small", "extra": 1},
    {"event_id": "e", "job_id": "", "job_type": "small"},
    {"event_id": "e", "job_id": "has space", "job_type": "small"},
    {"event_id": "e" * 201, "job_id": "j", "job_type": "small"},
    {"event_id": "e", "job_type": "small"},
    {"event_id": "e", "job_id": 5, "job_type": "small"},
])
def test_malformed_events_are_422(client, cluster, body):
    cid = cluster["id"]
    assert_problem(client.post(f"/v1/clusters/{cid}/arrivals", json=body), 422)
    assert client.get(f"/v1/clusters/{cid}").json()["version"] == 0


def test_batch_is_ordered_and_all_or_nothing(client, cluster):
    cid = cluster["id"]
    url = f"/v1/clusters/{cid}/events:batch"
    events = [{"kind": "arrival", "event_id": f"b{i}", "job_id": f"j{i}", "job_type": "small"}
              for i in range(5)] + [{"kind": "departure", "event_id": "b5", "job_id": "j0"}]
    r = client.post(url, json={"events": events})
    assert r.status_code == 200, r.text
    results = r.json()["results"]
    assert [x["decision"] for x in results] == ["placed"] * 5 + ["released"]
    assert [x["event_seq"] for x in results] == list(range(1, 7))

    # A failing event anywhere rolls the whole batch back.
    bad = [{"kind": "arrival", "event_id": "c0", "job_id": "k0", "job_type": "small"},
           {"kind": "departure", "event_id": "c1", "job_id": "ghost"}]
    assert_problem(client.post(url, json={"events": bad}), 404, "unknown_job")
    assert client.get(f"/v1/clusters/{cid}").json()["version"] == 6
    state = client.get(f"/v1/clusters/{cid}/state").json()
    assert state["jobs"] == 4
    # ...and the engine did not keep the rolled-back arrival: k0 can arrive afresh.
    assert arrive(client, cid, "c2", "k0").json()["decision"] == "placed"

    # Replaying the first batch returns the same answers and changes nothing.
    again = client.post(url, json={"events": events}).json()["results"]
    assert all(x["replayed"] for x in again)
    assert [x["event_seq"] for x in again] == list(range(1, 7))
    assert client.get(f"/v1/clusters/{cid}").json()["version"] == 7


def test_batch_validation(client, cluster):
    url = f"/v1/clusters/{cluster['id']}/events:batch"
    assert_problem(client.post(url, json={"events": []}), 422)
    dup = [{"kind": "departure", "event_id": "x", "job_id": "a"},
           {"kind": "departure", "event_id": "x", "job_id": "b"}]
    assert_problem(client.post(url, json={"events": dup}), 422)
    many = [{"kind": "departure", "event_id": f"x{i}", "job_id": "a"} for i in range(1001)]
    assert_problem(client.post(url, json={"events": many}), 422)


def test_batch_refusal_names_the_event_that_failed(client, cluster):
    """A refused event is located as validation errors are: `events[i]`, then its field."""
    cid = cluster["id"]
    url = f"/v1/clusters/{cid}/events:batch"
    ok = {"kind": "arrival", "event_id": "f0", "job_id": "k0", "job_type": "small"}
    typo = {"kind": "arrival", "event_id": "f1", "job_id": "k1", "job_type": "ghost"}
    body = assert_problem(client.post(url, json={"events": [ok, typo]}), 404, "unknown_job_type")
    assert [e["field"] for e in body["errors"]] == ["events[1].job_type"]
    assert body["detail"].startswith("events[1] (event_id 'f1'): ")
    # A refusal without a field of its own names the event.
    ghost = {"kind": "departure", "event_id": "f2", "job_id": "nobody"}
    body = assert_problem(client.post(url, json={"events": [ok, ok | {"event_id": "f3",
                                                                      "job_id": "k3"}, ghost]}),
                          404, "unknown_job")
    assert [e["field"] for e in body["errors"]] == ["events[2].job_id"]
    assert "events[2]" in body["detail"]
    # An event_id reused with another body is located too.
    assert client.post(url, json={"events": [ok]}).status_code == 200
    body = assert_problem(client.post(url, json={"events": [ok | {"job_id": "other"}]}), 409)
    assert [e["field"] for e in body["errors"]] == ["events[0]"]
    assert "event_id 'f0'" in body["detail"]
    assert client.get(f"/v1/clusters/{cid}").json()["version"] == 1


def test_event_log_pages_with_a_cursor(client, cluster):
    cid = cluster["id"]
    for i in range(7):
        arrive(client, cid, f"e{i}", f"j{i}")
    seen, cursor = [], None
    while True:
        params = {"limit": 3, **({"cursor": cursor} if cursor else {})}
        page = client.get(f"/v1/clusters/{cid}/events", params=params).json()
        seen += [e["seq"] for e in page["items"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == list(range(1, 8))
    item = client.get(f"/v1/clusters/{cid}/events", params={"limit": 1}).json()["items"][0]
    assert item["request"] == {"kind": "arrival", "job_id": "j0", "job_type": "small"}
    assert item["response"]["server_id"] == "rack-0"
    assert item["created_at"].endswith(("Z", "+00:00"))
    assert_problem(client.get(f"/v1/clusters/{cid}/events", params={"cursor": "abc"}), 422)
    assert_problem(client.get("/v1/clusters/nope/events"), 404, "cluster_not_found")


def test_deleted_cluster_takes_its_engine_and_log_along(client, cluster):
    cid = cluster["id"]
    arrive(client, cid, "e1", "j1")
    assert client.delete(f"/v1/clusters/{cid}").status_code == 204
    assert_problem(arrive(client, cid, "e2", "j2"), 404, "cluster_not_found")
    assert_problem(client.get(f"/v1/clusters/{cid}/state"), 404, "cluster_not_found")


def test_jobs_lists_what_the_cluster_holds_page_by_page(client, cluster):
    cid = cluster["id"]
    for i in (3, 1, 7, 5, 0):
        assert arrive(client, cid, f"e{i}", f"j{i}").json()["decision"] == "placed"
    assert depart(client, cid, "d7", "j7").status_code == 200
    first = client.get(f"/v1/clusters/{cid}/jobs", params={"limit": 2}).json()
    assert [j["job_id"] for j in first["items"]] == ["j0", "j1"]
    assert first["total"] == 4 and first["next_cursor"] == "j1"
    assert first["items"][0] == {"job_id": "j0", "job_type": "small", "status": "running",
                                 "server_id": "rack-1"}  # the fifth arrival: rack-0 was full
    # A job that leaves between two pages moves no other job across the page boundary.
    assert depart(client, cid, "d0", "j0").status_code == 200
    rest = client.get(f"/v1/clusters/{cid}/jobs",
                      params={"limit": 2, "cursor": first["next_cursor"]}).json()
    assert [j["job_id"] for j in rest["items"]] == ["j3", "j5"]
    assert rest["total"] == 3 and rest["next_cursor"] is None
    state = client.get(f"/v1/clusters/{cid}/state").json()
    assert state["jobs"] == rest["total"]
    for params in ({"limit": 0}, {"limit": 1001}, {"cursor": "has space"}):
        assert_problem(client.get(f"/v1/clusters/{cid}/jobs", params=params), 422)


def test_jobs_of_a_queued_cluster_include_the_waiting_ones(client):
    cid = create_cluster(client, servers=1, policy={"kind": "first_fit_queue"})["id"]
    for jid in ("b-run", "a-wait"):
        arrive(client, cid, jid, jid, job_type="large")
    items = client.get(f"/v1/clusters/{cid}/jobs").json()["items"]
    assert items == [
        {"job_id": "a-wait", "job_type": "large", "status": "queued", "server_id": None},
        {"job_id": "b-run", "job_type": "large", "status": "running", "server_id": "rack-0"}]
    depart(client, cid, "d-run", "b-run")  # the waiting job starts in its place
    items = client.get(f"/v1/clusters/{cid}/jobs").json()["items"]
    assert [(j["job_id"], j["status"]) for j in items] == [("a-wait", "running")]


def test_jobs_is_not_a_route_of_other_kinds(client):
    r = client.post("/v1/clusters", json={"name": "m-jobs", "capacity_cores": 2000,
                                          "policy": {"kind": "second_moment"}})
    assert r.status_code == 201, r.text
    cid = r.json()["id"]
    assert_problem(client.get(f"/v1/clusters/{cid}/jobs"), 409, "wrong_cluster_kind")
    assert_problem(client.get("/v1/clusters/no-such-cluster/jobs"), 404)
