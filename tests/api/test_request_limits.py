"""Request limits (app/api/throttle.py): requests per second of a key and of an owner, an
owner's expensive requests in flight; 429 with Retry-After and a problem document.

Time is a fake clock handed to the app, so every count is exact: nothing here is timed."""

from __future__ import annotations

import re
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from fastapi.routing import iter_route_contexts
from fastapi.testclient import TestClient
from sqlalchemy import event

from app.api import throttle
from app.config import POSTGRES_LIMITS, Settings
from app.main import create_app
from app.service import decider
from app.service.auth import create_key
from tests.conftest import make_settings
from tests.helpers import assert_problem, cluster_spec

ROOT = Path(__file__).resolve().parents[2]
# The operations a busy owner may run only a few of at once, and those that are when the body
# asks for a dry run: the list the docs give (docs/operations.md, "Request limits").
EXPENSIVE = {"createCluster", "createReservation", "postEventBatch", "kubeFilter",
             "kubeFilterKeyed", "kubePrioritize", "kubePrioritizeKeyed", "startWhatIf",
             "startReservationWhatIf"}
DRY_RUNNABLE = {"postArrival": {"dry_run": True}, "postDeployment": {"dry_run": True},
                "kubeAdmission": {"request": {"dryRun": True}},
                "kubeAdmissionKeyed": {"request": {"dryRun": True}}}


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def limited_app(db_url: str, clock: Clock | None = None, **limits: int):
    return create_app(make_settings(db_url, **limits), configure_logs=False,
                      limits_clock=clock or Clock())


def bearer(app, owner: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {create_key(app.state.ctx, owner, ['admin'])['key']}"}


def assert_refused(r, code: str) -> dict:
    body = assert_problem(r, 429, code)
    assert r.headers["retry-after"] == "1", r.headers
    return body


def test_a_key_over_its_rate_is_refused_then_admitted_again(db_url):
    clock = Clock()
    app = limited_app(db_url, clock, key_requests_per_second=4)
    with TestClient(app) as c:
        a, a2 = bearer(app, "a"), bearer(app, "a")
        for _ in range(4):
            assert c.get("/v1/clusters", headers=a).status_code == 200
        body = assert_refused(c.get("/v1/clusters", headers=a), "rate_limited")
        assert "4 requests per second" in body["detail"]
        assert body["instance"] == "/v1/clusters"
        # The owner's other key has its own budget.
        assert c.get("/v1/clusters", headers=a2).status_code == 200
        clock.now += 0.249  # one request's worth of a 4/s budget is 250 ms
        assert_refused(c.get("/v1/clusters", headers=a), "rate_limited")
        clock.now += 0.001
        assert c.get("/v1/clusters", headers=a).status_code == 200
        assert_refused(c.get("/v1/clusters", headers=a), "rate_limited")
        clock.now += 1  # a quiet second: the whole burst again
        for _ in range(4):
            assert c.get("/v1/clusters", headers=a).status_code == 200
        assert_refused(c.get("/v1/clusters", headers=a), "rate_limited")


def test_an_owner_over_its_rate_is_refused_whichever_key_sends(db_url):
    clock = Clock()
    app = limited_app(db_url, clock, owner_requests_per_second=4)
    with TestClient(app) as c:
        a1, a2, b = bearer(app, "a"), bearer(app, "a"), bearer(app, "b")
        for headers in (a1, a2, a1, a2):
            assert c.get("/v1/clusters", headers=headers).status_code == 200
        for headers in (a1, a2):
            body = assert_refused(c.get("/v1/clusters", headers=headers), "rate_limited")
            assert "owner 'a'" in body["detail"]
        assert c.get("/v1/clusters", headers=b).status_code == 200
        clock.now += 0.25
        assert c.get("/v1/clusters", headers=a2).status_code == 200


def test_bad_keys_and_refused_requests_spend_no_other_owners_budget(db_url):
    app = limited_app(db_url, owner_requests_per_second=3)
    with TestClient(app) as c:
        a, b = bearer(app, "a"), bearer(app, "b")
        r = c.post("/v1/clusters", json=cluster_spec(), headers=b)
        assert r.status_code == 201
        b_cluster = r.json()["id"]
        for _ in range(20):
            assert_problem(c.get("/v1/clusters", headers={"Authorization": "Bearer hr_x"}), 401)
            assert_problem(c.get("/v1/clusters"), 401)
            assert_problem(c.post(f"/v1/kubernetes/hr_x/clusters/{b_cluster}/extender/filter",
                                  json={}), 401)
        # Owner a's key on b's cluster (absent to a): a's own budget pays for the 404s, and
        # then runs out.
        for _ in range(3):
            assert_problem(c.get(f"/v1/clusters/{b_cluster}", headers=a), 404)
        assert_refused(c.get(f"/v1/clusters/{b_cluster}", headers=a), "rate_limited")
        # b made one request (the declaration): two more fit, the fourth does not.
        for _ in range(2):
            assert c.get(f"/v1/clusters/{b_cluster}", headers=b).status_code == 200
        assert_refused(c.get(f"/v1/clusters/{b_cluster}", headers=b), "rate_limited")


def test_a_key_is_looked_up_once_per_request(db_url):
    """The limits authenticate before routing; the route's dependency reuses the outcome,
    failures included, and a 401 is the same answer as without limits."""
    app = limited_app(db_url, key_requests_per_second=100)
    lookups = []

    def count(_conn, _cursor, statement, *_args) -> None:
        if "FROM api_keys" in statement:
            lookups.append(statement)

    event.listen(app.state.ctx.db, "before_cursor_execute", count)
    with TestClient(app) as c:
        headers = bearer(app, "a")
        r = c.get("/v1/clusters", headers={"Authorization": "Bearer hr_nobody"})
        assert_problem(r, 401, "unauthorized")
        assert r.headers["www-authenticate"].startswith("Bearer")
        r = c.post("/v1/kubernetes/hr_nobody/clusters/x/extender/filter", json={})
        assert_problem(r, 401, "unauthorized")
        assert len(lookups) == 2
        assert c.get("/v1/clusters", headers=headers).status_code == 200
        assert c.get("/v1/clusters", headers=headers).status_code == 200  # from the cache
        assert len(lookups) == 3


def _held_batches(monkeypatch, cluster_id: str) -> tuple[threading.Semaphore, threading.Event]:
    """Batches to ``cluster_id`` wait, once decoded, until the event is set; the semaphore is
    released as each starts waiting."""
    started, release = threading.Semaphore(0), threading.Event()
    real = decider.apply_batch

    def held(ctx, cid, events):
        if cid == cluster_id:
            started.release()
            assert release.wait(60)
        return real(ctx, cid, events)

    monkeypatch.setattr(decider, "apply_batch", held)
    return started, release


def _batch(n: int) -> dict:
    return {"events": [{"kind": "arrival", "event_id": f"e{n}", "job_id": f"j{n}",
                        "job_type": "small"}]}


def test_an_owners_expensive_requests_in_flight_are_bounded(db_url, monkeypatch):
    app = limited_app(db_url, owner_expensive_in_flight=2)
    with TestClient(app) as c:
        a, b = bearer(app, "a"), bearer(app, "b")
        a_cluster = c.post("/v1/clusters", json=cluster_spec(), headers=a).json()["id"]
        b_cluster = c.post("/v1/clusters", json=cluster_spec(), headers=b).json()["id"]
        started, release = _held_batches(monkeypatch, a_cluster)
        with ThreadPoolExecutor(2) as pool:
            held = [pool.submit(c.post, f"/v1/clusters/{a_cluster}/events:batch",
                                json=_batch(n), headers=a) for n in range(2)]
            try:
                for _ in held:
                    assert started.acquire(timeout=60)
                body = assert_refused(c.post(f"/v1/clusters/{a_cluster}/events:batch",
                                             json=_batch(2), headers=a), "concurrency_limited")
                assert "2 expensive requests" in body["detail"]
                # Another owner's expensive request, and this owner's cheap ones, go through.
                r = c.post(f"/v1/clusters/{b_cluster}/events:batch", json=_batch(0), headers=b)
                assert r.status_code == 200, r.text
                r = c.post(f"/v1/clusters/{a_cluster}/arrivals", headers=a,
                           json={"event_id": "single", "job_id": "single", "job_type": "small"})
                assert r.status_code == 200, r.text
            finally:
                release.set()
            assert [f.result().status_code for f in held] == [200, 200]
        # Answered requests leave, refused or failed ones too.
        r = c.post(f"/v1/clusters/{a_cluster}/events:batch", json={"events": []}, headers=a)
        assert_problem(r, 422)
        for n in range(3, 6):
            r = c.post(f"/v1/clusters/{a_cluster}/events:batch", json=_batch(n), headers=a)
            assert r.status_code == 200, r.text
        assert app.state.limits.in_flight("a") == 0


def test_which_requests_are_expensive(db_url, monkeypatch):
    """With the owner's one expensive slot taken, every expensive operation of the OpenAPI
    document is refused at once and every other one is not (walking the app's routes: a new
    expensive route must be named here and in the docs)."""
    app = limited_app(db_url, owner_expensive_in_flight=1)
    with TestClient(app) as c:
        headers = bearer(app, "a")
        key = headers["Authorization"].removeprefix("Bearer ")
        cid = c.post("/v1/clusters", json=cluster_spec(), headers=headers).json()["id"]
        started, release = _held_batches(monkeypatch, cid)
        with ThreadPoolExecutor(1) as pool:
            held = pool.submit(c.post, f"/v1/clusters/{cid}/events:batch", json=_batch(0),
                               headers=headers)
            try:
                assert started.acquire(timeout=60)
                refused, dry_refused = set(), set()
                for route in iter_route_contexts(app.routes):
                    if not route.path.startswith("/v1/"):
                        continue
                    path = route.path.replace("{api_key}", key)
                    path = re.sub(r"\{[a-z_]+\}", "x", path)
                    for method in route.methods:
                        r = c.request(method, path, json={"dry_run": False}, headers=headers)
                        if r.status_code == 429:
                            refused.add(route.operation_id)
                        if route.operation_id in DRY_RUNNABLE:
                            assert r.status_code != 429, route.operation_id
                            r = c.request(method, path, headers=headers,
                                          json=DRY_RUNNABLE[route.operation_id])
                            if r.status_code == 429:
                                dry_refused.add(route.operation_id)
            finally:
                release.set()
            assert held.result().status_code == 200
        assert refused == EXPENSIVE
        assert dry_refused == set(DRY_RUNNABLE)


def test_probes_metrics_and_docs_are_never_limited(db_url):
    app = limited_app(db_url, key_requests_per_second=1, owner_requests_per_second=1)
    with TestClient(app) as c:
        a = bearer(app, "a")
        for path in ("/livez", "/readyz", "/metrics", "/openapi.json", "/dashboard/") * 3:
            assert c.get(path, headers=a).status_code == 200, path
        assert c.get("/v1/clusters", headers=a).status_code == 200
        assert_refused(c.get("/v1/clusters", headers=a), "rate_limited")


def test_refusals_are_counted_by_limit_and_route(db_url):
    app = limited_app(db_url, key_requests_per_second=1)
    with TestClient(app) as c:
        a = bearer(app, "a")
        for _ in range(3):
            c.get("/v1/clusters", headers=a)
        text = c.get("/metrics").text
    assert 'headroom_requests_refused_total{reason="key_rate"} 2.0' in text
    assert 'headroom_http_requests_total{method="GET",route="/v1/clusters",status="429"} 2.0' \
        in text


def test_limits_default_on_postgres_and_off_on_sqlite(monkeypatch):
    for name in POSTGRES_LIMITS:
        monkeypatch.delenv(f"HEADROOM_{name.upper()}", raising=False)
    postgres = Settings(database_url="postgresql+psycopg://u@db/h")
    sqlite = Settings(database_url="sqlite:///./x.db")
    assert {n: getattr(postgres, n) for n in POSTGRES_LIMITS} == \
        {"key_requests_per_second": 300, "owner_requests_per_second": 600,
         "owner_expensive_in_flight": 4}
    assert {getattr(sqlite, n) for n in POSTGRES_LIMITS} == {0}
    monkeypatch.setenv("HEADROOM_OWNER_EXPENSIVE_IN_FLIGHT", "0")
    assert Settings(database_url="postgresql+psycopg://u@db/h").owner_expensive_in_flight == 0
    monkeypatch.setenv("HEADROOM_KEY_REQUESTS_PER_SECOND", "7")
    assert Settings(database_url="sqlite://").key_requests_per_second == 7


def test_every_limit_is_documented_with_its_number():
    readme = (ROOT / "README.md").read_text()
    operations = (ROOT / "docs" / "operations.md").read_text()
    for name, number in POSTGRES_LIMITS.items():
        env = f"HEADROOM_{name.upper()}"
        row = next((line for line in readme.splitlines() if line.startswith(f"| `{env}`")),
                   None)
        assert row is not None and f"`{number}`" in row, env
        assert env in operations and f"| `{env}` | {number} |" in operations, env
    for code in ("rate_limited", "concurrency_limited"):
        assert f"`{code}`" in operations


def test_every_v1_operation_documents_429(app):
    for url, path in app.openapi()["paths"].items():
        for method, op in path.items():
            if url.startswith("/v1/"):
                assert "application/problem+json" in op["responses"]["429"]["content"], \
                    (method, url)
            else:
                assert "429" not in op["responses"], (method, url)


@pytest.mark.parametrize(("header", "secret"), [
    ("Bearer hr_x", "hr_x"), ("bearer  hr_x ", "hr_x"), ("Bearer", None), ("Bearer  ", None),
    ("Basic hr_x", None), ("", None)])
def test_the_limits_read_the_key_as_the_routes_do(header, secret):
    scope = {"path": "/v1/clusters", "headers": [(b"authorization", header.encode())]}
    assert throttle.request_secret(scope) == secret
    assert throttle.request_secret({"path": "/v1/kubernetes/hr_y/clusters/c/admission",
                                    "headers": scope["headers"]}) == "hr_y"
