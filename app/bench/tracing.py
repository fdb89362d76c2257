"""What one ``headroom.*`` span costs the decision path (app/tracing.py), off and on.

Times N entries of the span context manager as app/service/events.py uses it (an attribute
dict built, the span entered, ``is_recording`` asked): with tracing off, against building the
dict alone and against the OpenTelemetry API's own no-op tracer; and, when the SDK is installed,
with tracing on into the SDK's in-memory exporter. Best of five repeats.

    .venv/bin/python -m app.bench.tracing [--calls N]
"""

from __future__ import annotations

import argparse
import timeit
from collections.abc import Callable

from opentelemetry.trace import NoOpTracer

from app.tracing import DECIDE, Tracing


def _cases() -> list[tuple[str, Callable[[], None]]]:
    off = Tracing()
    api_noop = NoOpTracer()

    def attributes() -> dict[str, object]:
        return {"headroom.cluster_id": "c", "headroom.policy_kind": "first_fit",
                "headroom.group_size": 1}

    def dict_only() -> None:
        attributes()

    def span_off() -> None:
        with off.span(DECIDE, attributes()) as span:
            span.is_recording()

    def span_api_noop() -> None:
        with api_noop.start_as_current_span(DECIDE, attributes=attributes()) as span:
            span.is_recording()

    cases = [("attribute dict alone", dict_only), ("span, tracing off", span_off),
             ("span, API no-op tracer", span_api_noop)]
    try:
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
            InMemorySpanExporter,
        )
    except ImportError:
        return cases
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    on = Tracing(provider)

    def span_on() -> None:
        with on.span(DECIDE, attributes()) as span:
            span.is_recording()
        exporter.clear()

    return [*cases, ("span, tracing on (in-memory exporter)", span_on)]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=100_000, help="calls per repeat")
    args = parser.parse_args(argv)
    for name, case in _cases():
        best = min(timeit.repeat(case, number=args.calls, repeat=5))
        print(f"{name:40s} {best * 1e3:9.1f} ms per {args.calls:,} calls"
              f"  {best / args.calls * 1e9:8.0f} ns/call")


if __name__ == "__main__":
    main()
