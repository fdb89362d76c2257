"""Pure ASGI middleware: request id, body size limit, access log and request metrics.

Written as raw ASGI rather than BaseHTTPMiddleware so it adds no task hop per request and can
refuse an oversized body before any of it reaches JSON parsing.
"""

from __future__ import annotations

import json
import logging
import time
import uuid

from app.logs import request_id
from app.metrics import Metrics

log = logging.getLogger("headroom.access")


class RequestContextMiddleware:
    def __init__(self, app, metrics: Metrics, max_body_bytes: int):  # noqa: ANN001
        self.app = app
        self.metrics = metrics
        self.max_body = max_body_bytes

    async def __call__(self, scope, receive, send):  # noqa: ANN001
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        rid = headers.get(b"x-request-id", b"").decode("latin-1")[:100] or uuid.uuid4().hex
        token = request_id.set(rid)
        started = time.perf_counter()
        status = 500

        async def send_wrapped(message):  # noqa: ANN001
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], (b"x-request-id", rid.encode())]
            await send(message)

        try:
            body = await self._read_body(scope, receive, headers)
            if body is None:
                await self._too_large(scope, send_wrapped)
            else:
                await self.app(scope, _replay(body, receive), send_wrapped)
        finally:
            elapsed = time.perf_counter() - started
            route = scope.get("route")
            template = getattr(route, "path", None) or "unmatched"
            self.metrics.request(scope["method"], template, status, elapsed)
            if log.isEnabledFor(logging.INFO):  # skip building the record when it is dropped
                log.info("request", extra={"method": scope["method"], "path": scope["path"],
                                           "status": status, "ms": round(elapsed * 1000, 2)})
            request_id.reset(token)

    async def _read_body(self, scope, receive, headers) -> bytes | None:  # noqa: ANN001
        """The whole body, or None when it exceeds the limit (declared or actual)."""
        declared = headers.get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_body:
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

    async def _too_large(self, scope, send) -> None:  # noqa: ANN001
        body = json.dumps({
            "type": "urn:headroom:problem:payload_too_large", "title": "Request body too large",
            "status": 413, "code": "payload_too_large", "instance": scope["path"],
            "detail": f"request bodies are limited to {self.max_body} bytes"}).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/problem+json"),
                                (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})


def _replay(body: bytes, receive):  # noqa: ANN001, ANN202
    sent = False

    async def receive_again():  # noqa: ANN202
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return receive_again
