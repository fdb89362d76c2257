"""No API key (nor the metrics token) reaches a log line, a span, a metric, a response header or
an error document, whichever way a request carrying one is refused (app/redact.py).

Every request shape that carries a key, in the ``Authorization`` header, as the Kubernetes
routes' path segment or pasted by mistake elsewhere, is sent and refused at every stage: 413 and
control characters before routing, 400 and 422 in validation, 404 unmatched (a ``..`` segment
among them), 405, a trailing slash (Starlette used to answer a 307 whose Location echoed the
key), 401, 403, 404 for another owner's cluster, 409 of another kind, and a success. In
process, every log record (all loggers, written as the service writes them), every span (the
SDK's in-memory exporter) and every answer are searched; then the same against
``headroom serve`` at log level debug, whose whole output (uvicorn's included) is searched.
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from app import redact
from app.logs import JsonFormatter
from app.main import create_app
from app.service.auth import create_key
from tests.conftest import make_settings
from tests.helpers import cluster_spec
from tests.integrations.kubernetes.fakes import fixture
from tests.live import LiveServer

MAX_BODY = 1024
TOKEN = "metrics-token-" + "s3cr3t" * 4
FILTER = fixture("ExtenderArgs.etl-small.NodeNames.json")


def _shapes(key: str, bad_key: str, cid: str, other: str, foreign: str, moment: str
            ) -> list[tuple[str, str, str, dict[str, Any], int]]:
    """(what, method, path, request options, expected status): ``key`` is a write key limited
    to ``cid`` and ``moment``; ``other`` is its owner's cluster outside the limit, ``foreign``
    another owner's."""
    keyed = f"/v1/kubernetes/{key}/clusters/{cid}"
    header = {"Authorization": f"Bearer {key}"}
    big = {"content": b"{" + b" " * (MAX_BODY + 10) + b"}",
           "headers": {"content-type": "application/json"}}
    bad_json = {"content": b'{"NodeNames": [', "headers": {"content-type": "application/json"}}
    out: list[tuple[str, str, str, dict[str, Any], int]] = []
    for via, base, auth in (("path", keyed, {}),
                            ("header", f"/v1/clusters/{cid}/kubernetes", header)):
        def add(what: str, method: str, path: str, options: dict[str, Any], status: int,
                via: str = via, auth: dict[str, str] = auth) -> None:
            headers = {**auth, **options.pop("headers", {})}
            out.append((f"{via}: {what}", method, path, {**options, "headers": headers}, status))

        add("413 body too large", "POST", f"{base}/extender/filter", dict(big), 413)
        add("control character in the path", "POST", f"{base}/extender/filter%01",
            {"json": FILTER}, 404)
        add("control character in the query", "POST", f"{base}/admission?timeout=1%00s",
            {"json": {}}, 422)
        add("malformed JSON", "POST", f"{base}/extender/filter", dict(bad_json), 400)
        add("validation error", "POST", f"{base}/extender/filter", {"json": {"Pod": 1}}, 422)
        add("unknown route", "POST", f"{base}/extender/nope", {"json": FILTER}, 404)
        add("dot segments", "POST", f"{base}/%2e%2e/%2e%2e/x", {"json": FILTER}, 404)
        add("wrong method", "GET", f"{base}/extender/filter", {}, 405)
        add("trailing slash", "POST", f"{base}/extender/filter/", {"json": FILTER}, 404)
        add("limit excludes the cluster", "POST",
            f"{base.replace(cid, other)}/extender/filter", {"json": FILTER}, 403)
        add("another owner's cluster", "POST",
            f"{base.replace(cid, foreign)}/extender/filter", {"json": FILTER}, 404)
        add("cluster of another kind", "POST", f"{base.replace(cid, moment)}/extender/filter",
            {"json": FILTER}, 409)
        add("success", "POST", f"{base}/extender/filter", {"json": FILTER}, 200)
    bad_path = f"/v1/kubernetes/{bad_key}/clusters/{cid}/extender/filter"
    out += [
        ("path: unknown key", "POST", bad_path, {"json": FILTER}, 401),
        ("path: unknown key, dot segments", "POST",
         f"/v1/kubernetes/{bad_key}/%2e%2e/{bad_key}", {}, 404),
        ("path: not lower case", "POST", keyed.replace("kubernetes", "Kubernetes"), {}, 404),
        # A key that lost its prefix (a template's mistake) is still a secret, in the path's
        # key position as anywhere under it.
        ("path: key without its prefix", "POST", bad_path.replace(bad_key, key[3:]),
         {"json": FILTER}, 401),
        ("path: key without its prefix, dot segments", "GET",
         f"/v1/kubernetes/{key[3:]}/%2e%2e/%2e%2e/clusters", {"headers": header}, 404),
        ("header: unknown key", "GET", f"/v1/clusters/{cid}",
         {"headers": {"Authorization": f"Bearer {bad_key}"}}, 401),
        ("header: no scheme", "GET", "/v1/clusters", {"headers": {"Authorization": key}}, 401),
        ("header: Basic", "GET", "/v1/clusters",
         {"headers": {"Authorization": f"Basic {key}"}}, 401),
        ("header: as the request id", "GET", f"/v1/clusters/{cid}/state",
         {"headers": {**header, "X-Request-Id": key}}, 200),
        ("mistake: key as a cluster id", "GET", f"/v1/clusters/{key}/state",
         {"headers": header}, 404),
        ("mistake: key as a job id", "GET", f"/v1/clusters/{cid}/jobs/{key}",
         {"headers": header}, 409),
        ("mistake: key as a stream id, no auth", "POST", f"/v1/reservations/{key}/observations",
         {"json": {}}, 401),
        ("mistake: key in the query", "GET", f"/v1/clusters/{cid}/events?cursor={key}",
         {"headers": header}, 422),
        ("mistake: key as a path, 405", "DELETE", f"/v1/clusters/{key}/events",
         {"headers": header}, 405),
        ("metrics without the token", "GET", "/metrics", {}, 401),
        ("metrics with a key", "GET", "/metrics", {"headers": header}, 401),
    ]
    return out


def _secrets(admin_key: str, key: str, bad_key: str) -> list[str]:
    """The keys, and what is left of each without its prefix."""
    keys = (admin_key, key, bad_key)
    return [*keys, *(k.removeprefix("hr_") for k in keys), TOKEN]


def _answer_text(r: httpx.Response) -> str:
    return f"{r.status_code} {list(r.headers.multi_items())} {r.text}"


class _Everything(logging.Handler):
    """Every record of every logger, written as the service writes it (app/logs.py)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.setFormatter(JsonFormatter())
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.startswith("httpx"):
            return  # the test's own client, logging the URLs it was given
        self.lines.append(self.format(record))


@pytest.fixture
def every_log_line() -> Iterator[_Everything]:
    root = logging.getLogger()
    handler, level = _Everything(), root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


def _world(admin: Any, mint: Any) -> dict[str, str]:
    """Clusters and keys: ``admin`` posts as owner A's admin, ``mint(owner, scopes)`` makes a
    key of another owner."""
    def created(path: str, body: dict[str, Any]) -> str:
        r = admin.post(path, json=body)
        assert r.status_code == 201, r.text
        return r.json()["id"]

    world = {
        "cid": created("/v1/clusters", cluster_spec(name="placed", servers=4)),
        "other": created("/v1/clusters", cluster_spec(name="other")),
        "moment": created("/v1/clusters", {"name": "paas", "capacity_cores": 10,
                                           "policy": {"kind": "threshold", "threshold": 8}}),
    }
    r = admin.post("/v1/keys", json={"scopes": ["write"], "clusters": ["placed", "paas"]})
    assert r.status_code == 201, r.text
    world["key"] = r.json()["key"]
    world["foreign"] = mint("acme", cluster_spec(name="theirs"))
    world["bad_key"] = "hr_" + "Z" * 43
    return world


class Leaks(list):
    """Where a secret was found: collected over a whole run, so that a failure shows every
    place at once."""

    def __init__(self, secrets: list[str]) -> None:
        super().__init__()
        self.secrets = secrets

    def check(self, where: str, text: str) -> None:
        self.extend(f"{where}: {text[:300]}" for s in self.secrets if s in text)


def test_no_key_reaches_a_log_a_span_a_metric_or_an_answer(sqlite_url, every_log_line):
    exporter = InMemorySpanExporter()
    app = create_app(make_settings(sqlite_url, max_body_bytes=MAX_BODY, metrics_token=TOKEN),
                     configure_logs=False, span_exporter=exporter)
    admin_key = create_key(app.state.ctx, "default", ["admin"])["key"]

    def mint(owner: str, spec: dict[str, Any]) -> str:
        theirs = create_key(app.state.ctx, owner, ["admin"])["key"]
        # Not entered: leaving a TestClient runs the app's shutdown (tracing's with it).
        c = TestClient(app, headers={"Authorization": f"Bearer {theirs}"})
        return c.post("/v1/clusters", json=spec).json()["id"]

    with TestClient(app, headers={"Authorization": f"Bearer {admin_key}"}) as admin:
        w = _world(admin, mint)
        leaks = Leaks(_secrets(admin_key, w["key"], w["bad_key"]))
        every_log_line.lines.clear()
        exporter.clear()
        shapes = _shapes(w["key"], w["bad_key"], w["cid"], w["other"], w["foreign"],
                         w["moment"])
        plain = TestClient(app)
        statuses = []
        for what, method, path, options, status in shapes:
            r = plain.request(method, path, follow_redirects=False, **options)
            statuses.append((what, r.status_code, status))
            leaks.check(f"the answer to {what}", _answer_text(r))
            if r.status_code >= 400 and not r.headers.get("content-type", "").startswith(
                    "application/problem+json"):
                statuses.append((what, r.headers.get("content-type"), "a problem document"))
        scrape = plain.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
        assert scrape.status_code == 200
    leaks.check("/metrics", scrape.text)
    for line in every_log_line.lines:
        leaks.check("a log line", line)
    spans = exporter.get_finished_spans()
    for s in spans:
        leaks.check(f"span {s.name}", s.to_json())
    assert not leaks, "\n".join(leaks)
    assert not [s for s in statuses if s[1] != s[2]], statuses

    # ...and all of it was recorded: the searches above had something to search.
    assert 'route="unmatched"' in scrape.text  # the refusals before routing were counted
    access = [line for line in every_log_line.lines if '"logger": "headroom.access"' in line]
    assert len(access) >= len(shapes), "every request has its access line"
    assert any(f'"path": "/v1/kubernetes/{redact.REDACTED}/clusters/{w["cid"]}/' in line
               for line in access), access[:3]
    assert sum(s.kind.name == "SERVER" for s in spans) >= len(shapes)


def _raw(url: str, request: bytes) -> bytes:
    """A request no HTTP client would send (uvicorn refuses it before the app sees it)."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as s:
        s.sendall(request)
        return s.recv(65536)


def test_headroom_serve_writes_no_key_at_log_level_debug(sqlite_url):
    """uvicorn's own loggers and the service's, as `headroom serve` configures them."""
    env = {"HEADROOM_LOG_LEVEL": "debug", "HEADROOM_MAX_BODY_BYTES": str(MAX_BODY),
           "HEADROOM_METRICS_TOKEN": TOKEN}
    with LiveServer(sqlite_url, env=env) as server:
        def mint(owner: str, spec: dict[str, Any]) -> str:
            from app.config import Settings
            from app.service.context import ServiceContext

            ctx = ServiceContext.from_settings(Settings(database_url=sqlite_url))
            try:
                theirs = create_key(ctx, owner, ["admin"])["key"]
            finally:
                ctx.close()
            with httpx.Client(base_url=server.url, timeout=30,
                              headers={"Authorization": f"Bearer {theirs}"}) as c:
                return c.post("/v1/clusters", json=spec).json()["id"]

        with server.client() as admin:
            w = _world(admin, mint)
        leaks = Leaks(_secrets(server.key, w["key"], w["bad_key"]))
        statuses = []
        with httpx.Client(base_url=server.url, timeout=30) as plain:
            for what, method, path, options, status in _shapes(
                    w["key"], w["bad_key"], w["cid"], w["other"], w["foreign"], w["moment"]):
                r = plain.request(method, path, follow_redirects=False, **options)
                statuses.append((what, r.status_code, status))
                leaks.check(f"the answer to {what}", _answer_text(r))
        key = w["key"]
        for request in (f"POST /v1/kubernetes/{key}/x\x01 HTTP/1.1\r\nHost: h\r\n\r\n",
                        f"GET /v1/kubernetes/{key} /x HTTP/1.1\r\nHost: h\r\n\r\n",
                        (f"GET /v1/clusters HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer {key}"
                         f"\x00\r\n\r\n")):
            leaks.check("uvicorn's refusal",
                        _raw(server.url, request.encode("latin-1")).decode("latin-1"))
    log = server.log_path.read_text()
    assert '"logger": "headroom.access"' in log, log[-2000:]
    leaks.check("headroom serve's output", log)
    assert not leaks, "\n".join(leaks)
    assert not [s for s in statuses if s[1] != s[2]], statuses
