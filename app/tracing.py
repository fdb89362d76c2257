"""OpenTelemetry traces of the decision path, off unless the standard ``OTEL_*`` variables ask.

On when ``OTEL_TRACES_EXPORTER`` names an exporter (``otlp`` or ``console``) or an OTLP endpoint
is given (``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` / ``OTEL_EXPORTER_OTLP_ENDPOINT``);
``OTEL_SDK_DISABLED=true`` or ``OTEL_TRACES_EXPORTER=none`` keeps it off whatever else is set.
A tracer left on by default would ship spans nowhere and still pay for them, so an operator opts
in the way every OpenTelemetry SDK is configured, and no ``HEADROOM_`` twin of those variables
exists. Sampling, batching, headers and the resource come from the SDK's own ``OTEL_*``
variables (``OTEL_TRACES_SAMPLER``, ``OTEL_BSP_*``, ``OTEL_EXPORTER_OTLP_HEADERS``,
``OTEL_SERVICE_NAME`` ...).

Spans: the HTTP request (FastAPI's own instrumentation, given this provider), one SQL span per
statement (SQLAlchemy instrumentation of this app's engine only), and the service's
``headroom.lock_wait``, ``headroom.decide`` and ``headroom.commit`` (app/service/events.py).
FastAPI records each request's raw ``url.path`` and ``url.query`` when its span starts, before
any route or middleware of this app runs; a span processor redacts them there
(app/redact.py), before any exporter sees the span.

The SDK, the SQLAlchemy instrumentation and the OTLP exporter are the optional extra
``headroom[otel]``; only ``opentelemetry-api`` (a FastAPI dependency) is needed when tracing is
off. Each app gets its own provider rather than the global one: the global can be set once per
process, and tests build many apps.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any

from opentelemetry.trace import (
    INVALID_SPAN,
    Link,
    NonRecordingSpan,
    Span,
    SpanContext,
    get_current_span,
    use_span,
)
from sqlalchemy import Engine

from app import __version__, redact

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SpanExporter

LOCK_WAIT = "headroom.lock_wait"
DECIDE = "headroom.decide"
COMMIT = "headroom.commit"
TICK = "headroom.tick"  # the tick loop's pass over one cluster (no request around it)

# Shared by every span asked for while tracing is off: entering it allocates nothing, and its
# non-recording span takes set_attribute calls and drops them.
_OFF: AbstractContextManager[Span] = nullcontext(INVALID_SPAN)

EXTRA_HINT = "tracing needs the optional packages: pip install 'headroom[otel]'"


def enabled(env: Mapping[str, str] = os.environ) -> bool:
    """Whether the ``OTEL_*`` variables ask for traces (standard semantics, see the module)."""
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    exporter = env.get("OTEL_TRACES_EXPORTER", "").strip().lower()
    if exporter:
        return exporter != "none"
    return bool(env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
                or env.get("OTEL_EXPORTER_OTLP_ENDPOINT"))


class Tracing:
    """The spans of one app; with no provider, every span is the shared no-op ``_OFF``."""

    def __init__(self, provider: TracerProvider | None = None):
        self.provider = provider
        self._tracer = (provider.get_tracer("headroom", __version__)
                        if provider is not None else None)

    @property
    def on(self) -> bool:
        return self._tracer is not None

    def span(self, name: str, attributes: Mapping[str, Any] | None = None,
             linked: Iterable[Any] = ()) -> AbstractContextManager[Span]:
        """A child of the current span for the ``with`` block (an exception is recorded on it
        and re-raised); while tracing is off, a context that costs nothing.

        ``linked``: items with an ``origin`` (see :meth:`origin`). A group-committed event is
        decided in another request's transaction; a link from that decide span to the event's
        own request span is how its trace finds where it was decided.
        """
        if self._tracer is None:
            return _OFF
        here = get_current_span().get_span_context()
        links = [Link(p.origin) for p in linked
                 if p.origin is not None and p.origin.is_valid and p.origin != here]
        return self._tracer.start_as_current_span(name, attributes=attributes, links=links)

    def origin(self) -> SpanContext | None:
        """The current span's context, to link to later; None (and no work) while off."""
        return None if self._tracer is None else get_current_span().get_span_context()

    def within(self, origin: SpanContext | None) -> AbstractContextManager[Any]:
        """Spans of the ``with`` block as children of ``origin`` (a request's span, from
        :meth:`origin`), for a thread that works on that request's behalf: the decider's
        transaction sits in the trace of the first event it takes, as a request's own
        transaction does, and links the others."""
        if self._tracer is None or origin is None or not origin.is_valid:
            return nullcontext()
        return use_span(NonRecordingSpan(origin), end_on_exit=False)

    def shutdown(self) -> None:
        """Flush what the batch processor still holds (called when the app stops)."""
        if self.provider is not None:
            self.provider.shutdown()


def outcomes(group: Iterable[Any]) -> dict[str, int]:
    """Attributes of a decided group (``Pending`` items of app/service/events.py): new
    decisions, replays (of the log, or of an earlier event of the same group) and refusals."""
    decided = replayed = refused = 0
    for p in group:
        if p.error is not None:
            refused += 1
        elif p.twin is not None or (p.answer is not None and p.answer["replayed"]):
            replayed += 1
        elif p.answer is not None:
            decided += 1
    return {"headroom.events_decided": decided, "headroom.events_replayed": replayed,
            "headroom.events_refused": refused}


def setup(engine: Engine, exporter: SpanExporter | None = None) -> Tracing:
    """Tracing for an app whose database is ``engine``: off (no provider, nothing imported
    from the SDK) unless :func:`enabled` or ``exporter`` is given.

    ``exporter`` replaces the one the environment names and gets each span as it ends (the
    tests pass the SDK's in-memory exporter); the environment's exporter gets them in batches.
    """
    if exporter is None and not enabled():
        return Tracing()
    try:
        from opentelemetry.instrumentation.sqlalchemy.engine import EngineTracer
        from opentelemetry.metrics import NoOpMeterProvider
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import (
            BatchSpanProcessor,
            SimpleSpanProcessor,
        )
    except ImportError as exc:
        raise RuntimeError(EXTRA_HINT) from exc

    # The SDK reads OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES; an attribute passed here
    # would override them, so the default name is given only when neither names the service.
    named = os.environ.get("OTEL_SERVICE_NAME") or \
        "service.name=" in os.environ.get("OTEL_RESOURCE_ATTRIBUTES", "")
    provider = TracerProvider(resource=Resource.create(
        {} if named else {"service.name": "headroom"}))
    provider.add_span_processor(_redacting_processor())
    if exporter is not None:
        provider.add_span_processor(SimpleSpanProcessor(exporter))
    else:
        provider.add_span_processor(BatchSpanProcessor(_exporter_from_env()))
    # This engine only: SQLAlchemyInstrumentor().instrument() would also patch create_engine
    # and Engine.connect for the whole process, once per process.
    EngineTracer(provider.get_tracer("opentelemetry.instrumentation.sqlalchemy", __version__),
                 engine,
                 NoOpMeterProvider().get_meter("headroom").create_up_down_counter(
                     "db.client.connections.usage"))
    return Tracing(provider)


def _redacting_processor() -> Any:
    """A span processor that rewrites a starting span's URL attributes without their keys."""
    from opentelemetry.sdk.trace import SpanProcessor

    class Redact(SpanProcessor):
        def on_start(self, span: Any, parent_context: Any = None) -> None:
            attributes = span.attributes or {}
            for name, scrub in (("url.path", redact.path), ("url.query", redact.text),
                                ("http.target", redact.path), ("url.full", redact.text)):
                value = attributes.get(name)
                if isinstance(value, str) and (clean := scrub(value)) != value:
                    span.set_attribute(name, clean)

    return Redact()


def _exporter_from_env() -> SpanExporter:
    name = os.environ.get("OTEL_TRACES_EXPORTER", "otlp").strip().lower() or "otlp"
    if name == "console":
        from opentelemetry.sdk.trace.export import ConsoleSpanExporter
        return ConsoleSpanExporter()
    if name != "otlp":
        raise RuntimeError(f"OTEL_TRACES_EXPORTER={name!r} is not supported: "
                           "use otlp, console or none")
    protocol = (os.environ.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
                or os.environ.get("OTEL_EXPORTER_OTLP_PROTOCOL") or "http/protobuf")
    if protocol != "http/protobuf":
        raise RuntimeError(f"OTLP protocol {protocol!r} is not supported: "
                           "headroom[otel] ships the http/protobuf exporter")
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import (
            OTLPSpanExporter,
        )
    except ImportError as exc:
        raise RuntimeError(EXTRA_HINT) from exc
    return OTLPSpanExporter()  # endpoint, headers, timeout: from OTEL_EXPORTER_OTLP_*
