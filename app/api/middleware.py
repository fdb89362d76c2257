"""Pure ASGI middleware: request id, body size limit, control characters, access log and
request metrics.

Written as raw ASGI rather than BaseHTTPMiddleware so it adds no task hop per request and can
refuse an oversized body before any of it reaches JSON parsing.

Control characters are refused here, once for every route, rather than per field: Postgres
text and JSONB cannot hold NUL at all (psycopg raises, which was a 500 on every route that
looks an id up), and no id, name, cursor or query value has a legitimate use for a C0 control
character or DEL. JSON bodies are read strictly here too (``app/api/json_body.py``): NUL, lone
surrogates, repeated keys, NaN and Infinity, and nesting deeper than 64 are refused wherever
they are, before any route parses the body; the schemas' own patterns keep other control
characters out of ids and names.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
import uuid
from typing import Any
from urllib.parse import parse_qsl

from app import redact
from app.api.json_body import Refusal, refusal
from app.api.problems import coded, problem
from app.errors import PayloadTooLarge, ShuttingDown
from app.logs import request_id
from app.metrics import Metrics

log = logging.getLogger("headroom.access")

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_CONTROL_CHARACTER = "control characters are not allowed"
_IN_PATH = Refusal("path", "control_character", _CONTROL_CHARACTER)
# A client's request id is echoed in a response header and written to the logs: visible
# ASCII only (what every client may send in a header and every log shows as itself), 100 at
# most; any other is replaced by a fresh id rather than echoed changed.
_REQUEST_ID = re.compile(rb"[!-~]{1,100}")
# Longest Content-Length worth converting: 18 digits exceed any body limit, and int() of a
# header of thousands of digits raises (Python refuses over 4,300).
_LENGTH_DIGITS = 18


class InFlightRequests:
    """The requests this process has started and not finished (those the graceful shutdown
    cancelled included, since their threads run on), for the shutdown's last word."""

    def __init__(self) -> None:
        self._running: dict[int, tuple[str, str, float]] = {}

    def start(self, key: int, method: str, path: str) -> None:
        self._running[key] = (method, path, time.monotonic())

    def finish(self, key: int) -> None:
        self._running.pop(key, None)

    def describe(self) -> list[str]:
        now = time.monotonic()
        return [f"{method} {path} (running {now - t:.1f} s)"
                for method, path, t in list(self._running.values())]


class RequestContextMiddleware:
    def __init__(self, app, metrics: Metrics, max_body_bytes: int,  # noqa: ANN001
                 in_flight: InFlightRequests | None = None):
        self.app = app
        self.metrics = metrics
        self.max_body = max_body_bytes
        self.in_flight = in_flight or InFlightRequests()

    async def __call__(self, scope, receive, send):  # noqa: ANN001
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        # Echoed and written on every log line: a key pasted here by mistake is redacted.
        sent_id = headers.get(b"x-request-id", b"")
        rid = redact.text(sent_id.decode("ascii")) if _REQUEST_ID.fullmatch(sent_id) \
            else uuid.uuid4().hex
        token = request_id.set(rid)
        started = time.perf_counter()
        status = 500
        self.in_flight.start(id(scope), scope["method"], scope["path"])
        cancelled = started_response = False

        async def send_wrapped(message):  # noqa: ANN001
            nonlocal status
            if message["type"] == "http.response.start":
                nonlocal started_response
                started_response = True
                status = message["status"]
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], (b"x-request-id", rid.encode())]
            await send(message)

        try:
            body = await self._read_body(scope, receive, headers)
            if body is None:
                await self._too_large(scope, receive, send_wrapped)
            elif (refused := _refusal(scope, body)) is not None:
                await _refuse(scope, receive, send_wrapped, refused)
            else:
                await self.app(scope, replay(body, receive), send_wrapped)
        except asyncio.CancelledError:
            # The graceful shutdown timed out and cancelled this request: its sync route's
            # thread cannot be cancelled and runs on, so it stays listed for the shutdown,
            # and the client is told to retry (if nothing was sent yet).
            cancelled = True
            if status == 500 and not started_response:
                exc = ShuttingDown("the server stopped before this request was answered",
                                   headers={"connection": "close", "retry-after": "1"})
                await problem(exc.status, exc.code, exc.title, exc.detail,
                              _printable(scope["path"]), headers=exc.headers
                              )(scope, receive, send_wrapped)
                status = exc.status
            else:
                raise
        finally:
            if not cancelled:
                self.in_flight.finish(id(scope))
            elapsed = time.perf_counter() - started
            route = scope.get("route")
            template = getattr(route, "path", None) or "unmatched"
            self.metrics.request(scope["method"], template, status, elapsed)
            if log.isEnabledFor(logging.INFO):  # skip building the record when it is dropped
                # Redacted by its shape, whether a route matched or not (app/redact.py).
                log.info("request", extra={"method": scope["method"],
                                           "path": redact.path(scope["path"]),
                                           "status": status, "ms": round(elapsed * 1000, 2)})
            request_id.reset(token)

    async def _read_body(self, scope, receive, headers) -> bytes | None:  # noqa: ANN001
        """The whole body, or None when it exceeds the limit (declared or actual)."""
        declared = headers.get(b"content-length")
        if declared is not None and declared.isdigit() and (
                len(declared) > _LENGTH_DIGITS or int(declared) > self.max_body):
            return None
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                return None
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        return b"".join(chunks)

    async def _too_large(self, scope, receive, send) -> None:  # noqa: ANN001
        exc = PayloadTooLarge(f"request bodies are limited to {self.max_body} bytes",
                              headers={"connection": "close"})
        response = problem(exc.status, exc.code, exc.title, exc.detail,
                           _printable(scope["path"]), headers=exc.headers)
        await response(scope, receive, send)

def _refusal(scope: dict[str, Any], body: bytes) -> Refusal | None:
    """Why the request may not reach a route: a control character in the path (field
    "path") or a query parameter (its name), or what the strict JSON reading refuses in the
    body; None when the request is clean."""
    if _CONTROL.search(scope["path"]):
        return _IN_PATH
    query = scope.get("query_string") or b""
    if query:
        for name, value in parse_qsl(query.decode("latin-1"), keep_blank_values=True):
            if _CONTROL.search(name) or _CONTROL.search(value):
                return Refusal(_printable(name), "control_character", _CONTROL_CHARACTER)
    return refusal(body, scope)


def _printable(text: str) -> str:
    """A field name fit to echo back: control characters as JSON escapes."""
    return _CONTROL.sub(lambda m: f"\\u{ord(m[0]):04x}", text)


async def _refuse(scope, receive, send, refused: Refusal) -> None:  # noqa: ANN001
    """A path with a control character names nothing that can exist (no id or name may hold
    one): 404, as for any unknown id, which also keeps every path parameter's documented type
    a plain string. In a query value or a body it is an invalid field: 422."""
    instance = _printable(scope["path"])
    if refused is _IN_PATH:
        response = coded("not_found", "no resource has a control character in its path",
                         instance)
    else:
        response = coded("validation_error", f"{refused.field}: {refused.message}", instance,
                         errors=[{"field": refused.field, "type": refused.type,
                                  "message": refused.message}])
    await response(scope, receive, send)


def replay(body: bytes, receive):  # noqa: ANN001, ANN202
    """``receive`` for an app further in: ``body`` (already read here) first, then the rest."""
    sent = False

    async def receive_again():  # noqa: ANN202
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return receive_again
