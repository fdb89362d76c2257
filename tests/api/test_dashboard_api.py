"""The read-only endpoints the dashboard needs, on SQLite and Postgres: the decision log
filtered and newest first, the recent-window decision summary, the server list behind the
server map, a stream against its hindsight oracle; and /dashboard itself (served locally,
under a Content-Security-Policy, scoped by the key like the API it calls)."""

from __future__ import annotations

import re
import uuid
from urllib.parse import urlsplit

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.policies.thor import feasible_quantile
from app.service.auth import create_key
from tests.helpers import assert_problem, create_cluster


def _post(client, cid: str, events: list[dict]) -> list[dict]:
    r = client.post(f"/v1/clusters/{cid}/events:batch", json={"events": events})
    assert r.status_code == 200, r.text
    return r.json()["results"]


def _pages(client, cid: str, **params) -> list[dict]:
    """Every event the filter matches, following next_cursor."""
    out, cursor = [], None
    while True:
        r = client.get(f"/v1/clusters/{cid}/events",
                       params={**params, **({"cursor": cursor} if cursor else {})})
        assert r.status_code == 200, r.text
        out += r.json()["items"]
        cursor = r.json()["next_cursor"]
        if cursor is None:
            return out


def _filled(client, servers: int = 2) -> tuple[str, list[dict]]:
    """A first-fit cluster with placements, rejections and departures; its whole log."""
    cid = create_cluster(client, servers=servers)["id"]
    events = [{"kind": "arrival", "event_id": f"a{i}", "job_id": f"j{i}",
               "job_type": "large" if i % 2 else "small"} for i in range(8)]
    events += [{"kind": "departure", "event_id": "d0", "job_id": "j0"}]
    _post(client, cid, events)
    return cid, _pages(client, cid, limit=1000)


def test_events_filtered_by_decision_reason_and_job(client):
    cid, log = _filled(client)
    rejected = [e for e in log if e["decision"] == "rejected"]
    assert rejected and len(rejected) < len(log)
    assert _pages(client, cid, decision="rejected", limit=2) == rejected
    reason = rejected[0]["response"]["reason"]
    assert _pages(client, cid, reason=reason) == \
        [e for e in log if e["response"].get("reason") == reason]
    # A job's whole story: its arrival and its departure.
    assert [e["event_id"] for e in _pages(client, cid, job_id="j0")] == ["a0", "d0"]
    assert _pages(client, cid, job_id="nobody") == []
    both = _pages(client, cid, decision="placed", reason=reason)
    assert all(e["decision"] == "placed" and e["response"]["reason"] == reason for e in both)


def test_events_newest_first_pages_back_through_the_log(client):
    cid, log = _filled(client)
    assert _pages(client, cid, order="desc", limit=3) == log[::-1]
    first = client.get(f"/v1/clusters/{cid}/events", params={"order": "desc", "limit": 1})
    assert first.json()["items"][0]["seq"] == len(log)
    cursor = first.json()["next_cursor"]
    older = client.get(f"/v1/clusters/{cid}/events",
                       params={"order": "desc", "limit": 1, "cursor": cursor})
    assert older.json()["items"][0]["seq"] == len(log) - 1


@pytest.mark.parametrize("params", [{"order": "sideways"}, {"decision": "Rejected!"},
                                    {"reason": "x" * 65}, {"job_id": "has space"},
                                    {"cursor": "-1"}])
def test_bad_log_filters_are_a_clear_422(client, params):
    cid = create_cluster(client)["id"]
    assert_problem(client.get(f"/v1/clusters/{cid}/events", params=params), 422,
                   "validation_error")


def test_decision_summary_counts_the_last_window(client):
    cid, log = _filled(client)
    body = client.get(f"/v1/clusters/{cid}/decisions").json()
    assert body["events"] == len(log) and body["latest_seq"] == len(log)
    assert body["first_seq"] == 1
    for decision in {e["decision"] for e in log}:
        assert body["decisions"][decision] == sum(e["decision"] == decision for e in log)
    reasons = [e["response"]["reason"] for e in log if "reason" in e["response"]]
    assert body["reasons"] == {r: reasons.count(r) for r in set(reasons)}
    window = client.get(f"/v1/clusters/{cid}/decisions", params={"window": 3}).json()
    last = log[-3:]
    assert window["events"] == 3 and window["first_seq"] == last[0]["seq"]
    assert sum(window["decisions"].values()) == 3
    assert window["decisions"] == {d: sum(e["decision"] == d for e in last)
                                   for d in {e["decision"] for e in last}}
    assert_problem(client.get(f"/v1/clusters/{cid}/decisions", params={"window": 0}), 422)
    # One transaction (the batch) took this cluster's lock in this process.
    waits = body["lock_waits"]
    assert waits["transactions"] == 1 and waits["max_ms"] >= waits["mean_ms"] >= 0
    empty = create_cluster(client)["id"]
    assert client.get(f"/v1/clusters/{empty}/decisions").json() == {
        "cluster_id": empty, "events": 0, "latest_seq": 0, "first_seq": None,
        "decisions": {}, "reasons": {}, "last_at": None, "lock_waits": {
            "process": waits["process"], "transactions": 0, "mean_ms": None,
            "max_ms": None, "last_ms": None}}


def test_server_list_pages_through_servers_with_their_fill(client):
    cid = create_cluster(client, servers=5, policy={"kind": "dra"})["id"]
    _post(client, cid, [{"kind": "arrival", "event_id": f"a{i}", "job_id": f"j{i}",
                         "job_type": "small"} for i in range(3)])
    first = client.get(f"/v1/clusters/{cid}/servers", params={"limit": 2}).json()
    assert first["total"] == 5 and len(first["items"]) == 2
    rest = client.get(f"/v1/clusters/{cid}/servers",
                      params={"cursor": first["next_cursor"]}).json()
    assert rest["next_cursor"] is None
    items = first["items"] + rest["items"]
    assert len({s["server_id"] for s in items}) == 5
    for s in items:
        one = client.get(f"/v1/clusters/{cid}/servers/{s['server_id']}").json()
        assert s["jobs"] == len(one["jobs"])
        assert s["fill"] == max(one["used"][d] / c for d, c in one["capacity"].items())
        assert (s["configuration"], s["rank"], s["group"]) == \
            (one["configuration"], one["rank"], one["group"])
    assert sum(s["jobs"] for s in items) == 3


def test_server_list_is_for_placement_clusters_only(client):
    moment = client.post("/v1/clusters", json={"name": "m", "capacity_cores": 100,
                                               "policy": {"kind": "first_moment"}}).json()
    assert_problem(client.get(f"/v1/clusters/{moment['id']}/servers"), 409,
                   "wrong_cluster_kind")
    assert_problem(client.get("/v1/clusters/nope/servers"), 404)


DEMAND = st.lists(st.floats(min_value=0, max_value=1000, allow_nan=False), min_size=1,
                  max_size=12)


@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(demand=DEMAND, eps=st.sampled_from([0.05, 0.2, 0.5]))
def test_hindsight_is_the_feasible_static_reservation(client, demand, eps):
    """x* over the periods so far: at most ⌊ε n⌋ of them above it, the smallest such value
    of the sample; the policy's cost is its reservations' sum (the stream's cost_so_far)."""
    rid = client.post("/v1/reservations", json={
        "name": f"s{abs(hash((tuple(demand), eps)))}",
        "resources": [{"name": "cpu", "cost": 2, "epsilon": eps}]}).json()["id"]
    for p, d in enumerate(demand):
        r = client.post(f"/v1/reservations/{rid}/observations",
                        json={"event_id": f"p{p}", "period": p, "demand": {"cpu": d}})
        assert r.status_code == 200, r.text
    (res,) = client.get(f"/v1/reservations/{rid}/hindsight").json()["resources"]
    n, x = len(demand), res["oracle_reservation"]
    assert res["periods"] == n
    assert x in demand and sum(d > x for d in demand) <= int(eps * n + 1e-9)
    assert all(sum(d > y for d in demand) > int(eps * n + 1e-9) for y in demand if y < x)
    assert x == feasible_quantile(sorted(demand), eps)
    assert res["oracle_cost"] == pytest.approx(2 * x * n)
    stream = client.get(f"/v1/reservations/{rid}").json()["state"]
    assert res["policy_cost"] == pytest.approx(stream["cost_so_far"])
    assert res["policy_violation_rate"] == pytest.approx(stream["resources"][0]["violation_rate"])
    client.delete(f"/v1/reservations/{rid}")


def test_hindsight_of_an_empty_stream_and_of_a_cluster(client):
    rid = client.post("/v1/reservations", json={
        "name": "empty", "resources": [{"name": "cpu", "cost": 1, "epsilon": 0.1}]}).json()["id"]
    (res,) = client.get(f"/v1/reservations/{rid}/hindsight").json()["resources"]
    assert res["periods"] == 0 and res["oracle_reservation"] is None
    cid = create_cluster(client)["id"]
    assert_problem(client.get(f"/v1/reservations/{cid}/hindsight"), 409, "wrong_cluster_kind")


def test_new_endpoints_never_show_another_owners_cluster(app, client):
    cid, _ = _filled(client)
    rid = client.post("/v1/reservations", json={
        "name": "r", "resources": [{"name": "cpu", "cost": 1, "epsilon": 0.1}]}).json()["id"]
    other = TestClient(app, headers={
        "Authorization": f"Bearer {create_key(app.state.ctx, 'acme', ['read'])['key']}"})
    absent = str(uuid.uuid4())
    for path in (f"/v1/clusters/{cid}/events?decision=rejected", f"/v1/clusters/{cid}/decisions",
                 f"/v1/clusters/{cid}/servers", f"/v1/reservations/{rid}/hindsight"):
        # Another owner's cluster is answered as an absent one.
        theirs = assert_problem(other.get(path), 404)
        none = assert_problem(other.get(path.replace(cid, absent).replace(rid, absent)), 404)
        assert theirs["code"] == none["code"]
        assert theirs["detail"].replace(cid, absent).replace(rid, absent) == none["detail"]
    assert other.get("/v1/clusters").json()["items"] == []
    assert other.get("/v1/reservations").json()["items"] == []


def test_dashboard_is_served_locally_under_a_strict_policy(client):
    page = client.get("/dashboard")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    csp = page.headers["content-security-policy"]
    assert "default-src 'self'" in csp and "connect-src 'self'" in csp
    urls = re.findall(r"""(?:src|href)\s*=\s*['"]([^'"]+)['"]""", page.text)
    assets = [u for u in urls if not u.startswith(("#", "data:"))]
    assert any(u.endswith("app.js") for u in assets)
    for url in assets:
        assert not urlsplit(url).netloc, url
        assert client.get(url).status_code == 200, url
    # The modules import each other by relative paths, all served from the package.
    js = client.get("/dashboard/assets/app.js").text
    for module in re.findall(r'from "\./([^"]+)"', js):
        assert client.get(f"/dashboard/assets/{module}").status_code == 200, module
    assert client.get("/dashboard/assets/nothing.js").status_code == 404
    # No key needed for the page itself: it holds no data, it asks for a key.
    assert TestClient(client.app).get("/dashboard").status_code == 200
