"""One decider per cluster on a host: the workers of one ``headroom serve`` share the clusters
out, and each forwards a single event to the worker that decides its cluster.

Without it every worker takes every cluster's requests, so each one replays into its engine
what the others decided (catch-up) and groups split between them: a second worker bought
nothing. Here each worker claims a *slot* (0 to N-1, an exclusive ``flock`` on a file in the
directory ``headroom serve`` makes for its workers) and listens on a Unix socket beside it. A
cluster belongs to slot ``crc32(id) mod N``. A worker still parses, authenticates and checks
each request itself (``app/api/lean.py``, the routes), then hands the prepared event to the
owner over one kept connection, in a length-prefixed JSON frame; the owner queues it with its
own requests' events for its decider (``app/service/decider.py``) and sends back the answer,
or the problem to answer with. A batch (``events:batch``) is handed over the same way and
decided there alone, all or nothing.

Nothing depends on it for correctness: the row lock, the log and the replay check still order
and verify every decision. So when the owner cannot be reached (its slot free, its process
restarting after a crash, the connection lost with events in flight) the worker decides the
event itself, as it did before; an event the owner had already committed is then found in the
log and answered as a replay (``replayed: true``). The supervisor replaces a dead worker, and
the new one claims the slot its predecessor's death released.

Across hosts, HAProxy's affinity (``deploy/haproxy``) keeps a cluster on one host.
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import logging
import os
import time
import zlib
from pathlib import Path
from typing import Any

from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from app.errors import CODES, HeadroomError
from app.service.context import ServiceContext
from app.service.decider import batch_here, submit_here

log = logging.getLogger("headroom.affinity")

# Set by `headroom serve` for its workers: the directory of the slots' locks and sockets, and
# how many workers share it.
DIRECTORY_ENV = "HEADROOM_DECIDERS_DIR"
WORKERS_ENV = "HEADROOM_DECIDERS"
# How long a slot found unreachable is not tried again (its events are decided here).
UNREACHABLE_SECONDS = 1.0
# How often a worker without a slot (its predecessor's lock not yet released) tries again.
CLAIM_RETRY_SECONDS = 0.5

_LENGTH = 4


class Relayed(HeadroomError):
    """The problem another worker answered a forwarded event with, answered here as is."""

    def __init__(self, problem: dict[str, Any]):
        super().__init__(problem["detail"], errors=problem.get("errors"),
                         headers=problem.get("headers"))
        self.code, self.status, self.title = problem["code"], problem["status"], \
            problem["title"]
        self.extensions = problem.get("extensions")


def from_environment(ctx: ServiceContext) -> Affinity | None:
    directory, workers = os.environ.get(DIRECTORY_ENV), os.environ.get(WORKERS_ENV)
    if not directory or not workers or int(workers) < 2:
        return None
    return Affinity(ctx, Path(directory), int(workers))


class Affinity:
    def __init__(self, ctx: ServiceContext, directory: Path, workers: int):
        self.ctx, self.directory, self.workers = ctx, directory, workers
        self.slot: int | None = None
        self._lock_fd: int | None = None
        self._server: asyncio.AbstractServer | None = None
        self._claiming: asyncio.Task[None] | None = None
        self._peers: dict[int, _Peer] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def owner(self, cluster_id: str) -> int:
        return zlib.crc32(cluster_id.encode()) % self.workers

    async def start(self) -> None:
        if not await self._claim():
            self._claiming = asyncio.create_task(self._keep_claiming())

    async def _keep_claiming(self) -> None:
        while not await self._claim():
            await asyncio.sleep(CLAIM_RETRY_SECONDS)

    async def _claim(self) -> bool:
        for slot in range(self.workers):
            fd = os.open(self.directory / f"slot-{slot}.lock", os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                continue
            socket = self.directory / f"slot-{slot}.sock"
            socket.unlink(missing_ok=True)  # a dead predecessor's
            self._server = await asyncio.start_unix_server(self._serve, path=str(socket))
            self.slot, self._lock_fd = slot, fd
            log.info("deciding the clusters of slot %d of %d", slot, self.workers)
            return True
        return False

    async def close(self) -> None:
        if self._claiming is not None:
            self._claiming.cancel()
        for peer in self._peers.values():
            peer.close()
        if self._server is not None:
            self._server.close()
            (self.directory / f"slot-{self.slot}.sock").unlink(missing_ok=True)
        if self._lock_fd is not None:
            os.close(self._lock_fd)

    async def forward(self, cluster_id: str, event: dict[str, Any] | None = None,
                      batch: list[dict[str, Any]] | None = None) -> Any:
        """The owner's answer to a single ``event`` (or a ``batch``'s answers), or None:
        decide it here (this worker owns the cluster, or the owner cannot be reached)."""
        slot = self.owner(cluster_id)
        if slot == self.slot:
            return None
        peer = self._peers.get(slot)
        if peer is None:
            peer = self._peers[slot] = _Peer(self.directory / f"slot-{slot}.sock")
        message = {"cluster": cluster_id, "event": event} if batch is None else \
            {"cluster": cluster_id, "batch": batch}
        try:
            reply = await peer.ask(message)
        except (OSError, EOFError, asyncio.IncompleteReadError):
            self.ctx.metrics.forwarded.labels("owner_unreachable").inc()
            return None
        self.ctx.metrics.forwarded.labels("answered").inc()
        if "problem" in reply:
            raise Relayed(reply["problem"])
        return reply["answer"]

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                frame = await _read_frame(reader)
                task = asyncio.create_task(self._answer(frame, writer))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def _answer(self, frame: dict[str, Any], writer: asyncio.StreamWriter) -> None:
        reply: dict[str, Any] = {"id": frame["id"]}
        try:
            if "batch" in frame:
                reply["answer"] = await batch_here(self.ctx, frame["cluster"], frame["batch"])
            else:
                reply["answer"] = await submit_here(self.ctx, frame["cluster"], frame["event"])
        except HeadroomError as exc:
            reply["problem"] = {"code": exc.code, "status": exc.status, "title": exc.title,
                                "detail": exc.detail, "errors": exc.errors,
                                "headers": exc.headers, "extensions": exc.extensions}
        except (OperationalError, PoolTimeout, DBAPIError) as exc:
            reply["problem"] = _database_problem(exc)
        except Exception:
            log.exception("a forwarded event failed")
            reply["problem"] = _problem("internal_error", "the server failed to handle this "
                                        "request; it was logged")
        if not writer.is_closing():
            writer.write(_frame(reply))


def _problem(code: str, detail: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
    entry = CODES[code]
    return {"code": code, "status": entry.status, "title": entry.title, "detail": detail,
            "errors": None, "headers": headers, "extensions": None}


def _database_problem(exc: Exception) -> dict[str, Any]:
    """As app/api/problems.py answers a database error: 503 if the connection failed, else
    a bug (500)."""
    if isinstance(exc, OperationalError | PoolTimeout) or (
            isinstance(exc, DBAPIError) and exc.connection_invalidated):
        log.warning("database unavailable: %s", type(exc).__name__)
        return _problem("database_unavailable", "the database could not be reached; retrying "
                        "with the same event_id is safe", {"Retry-After": "1"})
    log.exception("a forwarded event failed", exc_info=exc)
    return _problem("internal_error", "the server failed to handle this request; it was "
                    "logged")


def _frame(message: dict[str, Any]) -> bytes:
    data = json.dumps(message, ensure_ascii=False, allow_nan=False,
                      separators=(",", ":")).encode()
    return len(data).to_bytes(_LENGTH, "big") + data


async def _read_frame(reader: asyncio.StreamReader) -> dict[str, Any]:
    size = int.from_bytes(await reader.readexactly(_LENGTH), "big")
    return json.loads(await reader.readexactly(size))


class _Peer:
    """One kept connection to another worker's socket; replies matched to requests by id."""

    def __init__(self, path: Path):
        self.path = path
        self._writer: asyncio.StreamWriter | None = None
        self._connecting: asyncio.Lock | None = None
        self._waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._next = 0
        self._down_until = 0.0
        self._reading: asyncio.Task[None] | None = None

    async def ask(self, message: dict[str, Any]) -> dict[str, Any]:
        writer = await self._connected()
        self._next += 1
        rid = self._next
        answered: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[rid] = answered
        try:
            writer.write(_frame({**message, "id": rid}))
            return await answered
        finally:
            self._waiting.pop(rid, None)

    async def _connected(self) -> asyncio.StreamWriter:
        if self._writer is not None and not self._writer.is_closing():
            return self._writer
        if time.monotonic() < self._down_until:
            raise ConnectionRefusedError(f"{self.path} was unreachable just now")
        if self._connecting is None:
            self._connecting = asyncio.Lock()
        async with self._connecting:
            if self._writer is None or self._writer.is_closing():
                try:
                    reader, self._writer = await asyncio.open_unix_connection(str(self.path))
                except OSError:
                    self._down_until = time.monotonic() + UNREACHABLE_SECONDS
                    raise
                self._reading = asyncio.create_task(self._read(reader))
        assert self._writer is not None
        return self._writer

    async def _read(self, reader: asyncio.StreamReader) -> None:
        try:
            while True:
                reply = await _read_frame(reader)
                answered = self._waiting.get(reply["id"])
                if answered is not None and not answered.done():
                    answered.set_result(reply)
        except (asyncio.IncompleteReadError, ConnectionError, OSError):
            pass
        finally:
            # The owner went away: whatever it did not answer is decided by the sender.
            if self._writer is not None:
                self._writer.close()
            self._writer = None
            for answered in self._waiting.values():
                if not answered.done():
                    answered.set_exception(EOFError("the deciding worker went away"))

    def close(self) -> None:
        if self._reading is not None:
            self._reading.cancel()
        if self._writer is not None:
            self._writer.close()
