"""A minimal HTTP/1.1 keep-alive client on asyncio streams, for load generation only.

The benchmark client shares the machine's two cores with the server and Postgres; httpx
spent about 2 ms of CPU per request there, which made the *client* the bottleneck. This one
writes the request bytes itself and reads Content-Length bodies, at a small fraction of that.
It understands exactly what Headroom sends back (no chunked encoding, no redirects).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any


class RawConnection:
    def __init__(self, host: str, port: int, headers: dict[str, str] | None = None):
        self.host, self.port = host, port
        self.extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def _connect(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)

    async def post_json(self, path: str, body: Any) -> tuple[int, Any]:
        return await self.request("POST", path, body)

    async def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        """(status, parsed JSON body or None); ``body`` None sends none."""
        if self.writer is None:
            await self._connect()
        payload = b"" if body is None else json.dumps(body, separators=(",", ":")).encode()
        kind = "" if body is None else "Content-Type: application/json\r\n"
        head = (f"{method} {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
                f"{kind}Content-Length: {len(payload)}\r\n{self.extra}\r\n")
        assert self.writer is not None and self.reader is not None
        self.writer.write(head.encode() + payload)
        await self.writer.drain()
        status_line = await self.reader.readline()
        if not status_line:  # the server closed the connection (or died) before answering
            await self.close()
            raise ConnectionError("connection closed before a response")
        status = int(status_line.split()[1])
        length, close = 0, False
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.decode("latin-1").partition(":")
            name = name.strip().lower()
            if name == "content-length":
                length = int(value)
            elif name == "connection" and value.strip().lower() == "close":
                close = True
        data = await self.reader.readexactly(length) if length else b""
        if close:
            await self.close()
        return status, (json.loads(data) if data else None)

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            try:
                await self.writer.wait_closed()
            except ConnectionError:
                pass
        self.reader = self.writer = None
