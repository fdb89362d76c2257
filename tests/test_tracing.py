"""OpenTelemetry tracing (app/tracing.py): the span tree of a decision on both databases, with
the SDK's in-memory exporter installed through the app's own setup; and nothing at all when the
``OTEL_*`` environment does not ask for traces."""

from __future__ import annotations

import http.server
import sys
import threading
from typing import ClassVar

import pytest
from opentelemetry.sdk import trace as sdk_trace
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import INVALID_SPAN, SpanKind

from app import tracing
from app.main import create_app
from app.service.events import Pending, request_hash, submit_event
from app.service.ticker import tick_cluster, wall_clock_clusters
from tests.conftest import admin_client, make_settings
from tests.helpers import cluster_spec, create_cluster

OTEL_VARS = ("OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_ENDPOINT",
             "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")


@pytest.fixture(autouse=True)
def no_otel_env(monkeypatch):
    """The tests decide what the environment says, whatever the shell running them set."""
    for name in OTEL_VARS:
        monkeypatch.delenv(name, raising=False)


def _ancestors(span: ReadableSpan, by_id: dict[int, ReadableSpan]) -> list[ReadableSpan]:
    out = []
    while span.parent is not None and span.parent.span_id in by_id:
        span = by_id[span.parent.span_id]
        out.append(span)
    return out


def _trace_of(spans: list[ReadableSpan], route: str) -> tuple[ReadableSpan, list[ReadableSpan]]:
    """The one server span of ``route`` and every span below it."""
    by_id = {s.context.span_id: s for s in spans}
    [request] = [s for s in spans if s.kind is SpanKind.SERVER
                 and s.attributes.get("http.route") == route]
    below = [s for s in spans if request in _ancestors(s, by_id)]
    return request, below


def _one(spans: list[ReadableSpan], name: str) -> ReadableSpan:
    found = [s for s in spans if s.name == name]
    assert len(found) == 1, [s.name for s in spans]
    return found[0]


def test_a_decision_is_traced_from_request_to_commit(db_url):
    exporter = InMemorySpanExporter()
    app = create_app(make_settings(db_url), configure_logs=False, span_exporter=exporter)
    assert app.state.ctx.tracing.on
    with admin_client(app) as client:
        cid = create_cluster(client, servers=2)["id"]
        exporter.clear()
        r = client.post(f"/v1/clusters/{cid}/arrivals",
                        json={"event_id": "a1", "job_id": "j1", "job_type": "small"})
        assert r.status_code == 200, r.text
        events = [{"kind": "arrival", "event_id": f"b{i}", "job_id": f"k{i}",
                   "job_type": "small"} for i in range(3)]
        # a1 again: the batch holds a replay of the log beside three new decisions
        events.append({"kind": "arrival", "event_id": "a1", "job_id": "j1",
                       "job_type": "small"})
        r = client.post(f"/v1/clusters/{cid}/events:batch", json={"events": events})
        assert r.status_code == 200, r.text
    spans = list(exporter.get_finished_spans())
    dialect = "postgresql" if db_url.startswith("postgresql") else "sqlite"

    for route, group, decided, replayed in (
            ("/v1/clusters/{cluster_id}/arrivals", 1, 1, 0),
            ("/v1/clusters/{cluster_id}/events:batch", 4, 3, 1)):
        request, below = _trace_of(spans, route)
        assert request.attributes["http.request.method"] == "POST"
        assert request.attributes["http.response.status_code"] == 200
        lock_wait, decide, commit = (_one(below, n) for n in
                                     (tracing.LOCK_WAIT, tracing.DECIDE, tracing.COMMIT))
        # siblings, in this order, under one parent inside the request
        assert lock_wait.parent.span_id == decide.parent.span_id == commit.parent.span_id
        assert lock_wait.end_time <= decide.start_time
        assert decide.end_time <= commit.start_time
        assert lock_wait.attributes["headroom.cluster_id"] == cid
        assert dict(decide.attributes) == {
            "headroom.cluster_id": cid, "headroom.policy_kind": "first_fit",
            "headroom.group_size": group, "headroom.events_decided": decided,
            "headroom.events_replayed": replayed, "headroom.events_refused": 0}
        assert commit.attributes["headroom.events_written"] == decided

        by_id = {s.context.span_id: s for s in spans}
        sql = [s for s in below if s.kind is SpanKind.CLIENT]
        assert all(s.attributes.get("db.system") == dialect or
                   s.attributes.get("db.system.name") == dialect for s in sql), sql
        statements = [s.attributes.get("db.statement") or s.attributes.get("db.query.text")
                      for s in sql]
        under = {n: [st for s, st in zip(sql, statements) if by_id[n.context.span_id]
                     in _ancestors(s, by_id)] for n in (lock_wait, decide, commit)}
        # the row lock is the cluster's SELECT (FOR UPDATE on Postgres)
        assert any(st.startswith("SELECT") and "FROM clusters" in st for st in under[lock_wait])
        # ...and what makes it a lock: FOR UPDATE on Postgres, BEGIN IMMEDIATE on SQLite
        if dialect == "postgresql":
            assert any("FOR UPDATE" in st for st in under[lock_wait])
        else:
            assert "BEGIN IMMEDIATE" in under[lock_wait]
        assert any("FROM events" in st for st in under[decide])  # the replay lookup
        assert any(st.startswith("INSERT INTO events") for st in under[commit])
        assert any(st.startswith("UPDATE clusters") for st in under[commit])


def test_a_request_joins_its_callers_trace(sqlite_url):
    exporter = InMemorySpanExporter()
    app = create_app(make_settings(sqlite_url), configure_logs=False, span_exporter=exporter)
    trace_id, parent_id = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
    with admin_client(app) as client:
        cid = create_cluster(client)["id"]
        r = client.post(f"/v1/clusters/{cid}/arrivals",
                        headers={"traceparent": f"00-{trace_id}-{parent_id}-01"},
                        json={"event_id": "a1", "job_id": "j1", "job_type": "small"})
        assert r.status_code == 200, r.text
    request, below = _trace_of(list(exporter.get_finished_spans()),
                               "/v1/clusters/{cluster_id}/arrivals")
    assert request.context.trace_id == int(trace_id, 16)
    assert request.parent.span_id == int(parent_id, 16) and request.parent.is_remote
    assert _one(below, tracing.DECIDE).context.trace_id == int(trace_id, 16)


def test_a_group_committed_event_links_the_decide_span_to_its_request(sqlite_url):
    """Event q queued by one request is decided in the transaction of the next request that
    takes the cluster: that decide span links to q's request span, which has no decide span."""
    exporter = InMemorySpanExporter()
    app = create_app(make_settings(sqlite_url), configure_logs=False, span_exporter=exporter)
    ctx = app.state.ctx
    tracer = ctx.tracing.provider.get_tracer("test")

    def arrival(n: int) -> dict:
        return {"kind": "arrival", "event_id": f"e{n}", "job_id": f"j{n}", "job_type": "small"}

    with admin_client(app) as client:  # the app runs (its lifespan stops the provider)
        cid = create_cluster(client)["id"]
        exporter.clear()
        with tracer.start_as_current_span("queued request") as queued_span:
            # what submit_event does before it waits for the cluster's mutex
            queued = Pending(arrival(1), request_hash(arrival(1)),
                             origin=ctx.tracing.origin())
            ctx.groups.enqueue(cid, queued)
        with tracer.start_as_current_span("holder request"):
            assert submit_event(ctx, cid, arrival(2))["decision"] == "placed"
    assert queued.done and queued.result()["decision"] == "placed"

    decide = _one(list(exporter.get_finished_spans()), tracing.DECIDE)
    assert decide.attributes["headroom.group_size"] == 2
    assert [link.context for link in decide.links] == [queued_span.get_span_context()]


def test_a_tick_loop_pass_is_one_trace(sqlite_url):
    """The tick loop's events have no request: ``headroom.tick`` is the root that holds them."""
    exporter = InMemorySpanExporter()
    app = create_app(make_settings(sqlite_url, tick_interval_seconds=0), configure_logs=False,
                     span_exporter=exporter)
    with admin_client(app) as client:
        r = client.post("/v1/clusters", json=cluster_spec(policy={"kind": "rms"}))
        assert r.status_code == 201, r.text
        cid, ctx = r.json()["id"], app.state.ctx
        exporter.clear()
        [(_, created_at)] = wall_clock_clusters(ctx)
        assert tick_cluster(ctx, cid, created_at) is not None
    spans = list(exporter.get_finished_spans())
    tick = _one(spans, tracing.TICK)
    assert tick.parent is None and tick.attributes["headroom.cluster_id"] == cid
    by_id = {s.context.span_id: s for s in spans}
    for name in (tracing.LOCK_WAIT, tracing.DECIDE, tracing.COMMIT):
        assert by_id[_one(spans, name).parent.span_id] is tick


def test_tracing_off_by_default_records_nothing(sqlite_url, monkeypatch):
    """No OTEL_* variable: no provider, the shared no-op span, and not one SDK span started
    (every recorded span, FastAPI's, SQLAlchemy's or ours, starts through ``Span.start``)."""
    started = []
    monkeypatch.setattr(sdk_trace.Span, "start",
                        lambda self, *a, **k: started.append(self.name))
    assert not tracing.enabled({})
    app = create_app(make_settings(sqlite_url), configure_logs=False)
    ctx = app.state.ctx
    assert not ctx.tracing.on and ctx.tracing.provider is None
    with ctx.tracing.span(tracing.DECIDE, {"headroom.group_size": 1}) as span:
        assert span is INVALID_SPAN and not span.is_recording()
    assert ctx.tracing.span(tracing.LOCK_WAIT) is ctx.tracing.span(tracing.COMMIT)
    with admin_client(app) as client:
        cid = create_cluster(client)["id"]
        r = client.post(f"/v1/clusters/{cid}/arrivals",
                        json={"event_id": "a1", "job_id": "j1", "job_type": "small"})
        assert r.status_code == 200, r.text
    assert started == []


@pytest.mark.parametrize(("env", "on"), [
    ({}, False),
    ({"OTEL_TRACES_EXPORTER": "otlp"}, True),
    ({"OTEL_TRACES_EXPORTER": "console"}, True),
    ({"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, False),
    ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, True),
    ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"}, True),
    ({"OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "otlp"}, False),
    ({"OTEL_SDK_DISABLED": "false", "OTEL_TRACES_EXPORTER": "otlp"}, True),
])
def test_enabled_follows_the_standard_variables(env, on):
    assert tracing.enabled(env) is on


def test_environment_turns_tracing_on_with_its_exporter(sqlite_url, monkeypatch):
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "console")
    monkeypatch.setenv("OTEL_SERVICE_NAME", "headroom-eu1")
    app = create_app(make_settings(sqlite_url), configure_logs=False)
    provider = app.state.ctx.tracing.provider
    assert provider is not None
    assert provider.resource.attributes["service.name"] == "headroom-eu1"
    app.state.ctx.tracing.shutdown()


class _Collector(http.server.BaseHTTPRequestHandler):
    """An OTLP/HTTP trace receiver on the loopback: keeps each export request it is sent."""

    received: ClassVar[list[tuple[str, bytes]]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.received.append((self.path, body))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def test_otlp_endpoint_gets_the_spans_when_the_app_stops(sqlite_url, monkeypatch):
    """The production path: OTLP/HTTP from the environment, batched, flushed by the lifespan."""
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )
    server = http.server.HTTPServer(("127.0.0.1", 0), _Collector)
    _Collector.received = []
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT",
                           f"http://127.0.0.1:{server.server_port}")
        monkeypatch.delenv("OTEL_SERVICE_NAME", raising=False)
        monkeypatch.delenv("OTEL_RESOURCE_ATTRIBUTES", raising=False)
        app = create_app(make_settings(sqlite_url), configure_logs=False)
        with admin_client(app) as client:
            cid = create_cluster(client)["id"]
            r = client.post(f"/v1/clusters/{cid}/arrivals",
                            json={"event_id": "a1", "job_id": "j1", "job_type": "small"})
            assert r.status_code == 200, r.text
        # the client's exit ran the lifespan's shutdown, which flushed the batch
    finally:
        server.shutdown()
    assert _Collector.received and {p for p, _ in _Collector.received} == {"/v1/traces"}
    names, services = set(), set()
    for _, body in _Collector.received:
        export = ExportTraceServiceRequest.FromString(body)
        for rs in export.resource_spans:
            services |= {a.value.string_value for a in rs.resource.attributes
                         if a.key == "service.name"}
            names |= {s.name for ss in rs.scope_spans for s in ss.spans}
    assert services == {"headroom"}
    assert {tracing.LOCK_WAIT, tracing.DECIDE, tracing.COMMIT,
            "POST /v1/clusters/{cluster_id}/arrivals"} <= names


def test_without_the_otel_extra_the_start_says_what_to_install(sqlite_url, monkeypatch):
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")
    monkeypatch.setitem(sys.modules, "opentelemetry.sdk.trace", None)  # import fails
    with pytest.raises(RuntimeError, match=r"pip install 'headroom\[otel\]'"):
        create_app(make_settings(sqlite_url), configure_logs=False)


def test_an_unsupported_exporter_is_refused_at_start(sqlite_url, monkeypatch):
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "zipkin")
    with pytest.raises(RuntimeError, match="OTEL_TRACES_EXPORTER='zipkin'"):
        create_app(make_settings(sqlite_url), configure_logs=False)
