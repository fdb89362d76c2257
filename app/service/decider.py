"""The decider: one thread per process decides the single events that requests queue.

A request's coroutine queues its event (``submit``) and awaits its answer on the event loop,
so a waiting request holds no worker thread: with sixteen clients the process no longer runs
sixteen threads that take turns at the GIL only to wait for a leader, and no request pays a
hand-off to the thread pool. The decider thread is the leader of ``app/service/group_commit.py``
for every round it can take: it claims every cluster with queued events whose mutex is free,
decides them in one transaction (``app/service/events.py``) and wakes each request once the
transaction committed. Threads that decide for themselves (``submit_event``: the tick loop,
the Kubernetes routes, the calibration loop) still take leader turns beside it; a turn is held
by one of them at a time, whichever it is.

With ``HEADROOM_GROUP_ACROSS_CLUSTERS=false`` each cluster has its own transactions, as
``submit_event`` decides them, in a worker thread.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

import anyio.to_thread

from app.service.context import ServiceContext
from app.service.events import Pending, apply_batch, lead, request_hash, submit_event

log = logging.getLogger("headroom.events")

# How long the idle decider sleeps before it looks again without being woken: a safety net
# only, every enqueue and every released mutex wakes it.
IDLE_WAKE_SECONDS = 1.0

_starting = threading.Lock()


async def submit(ctx: ServiceContext, cluster_id: str, event: dict[str, Any]
                 ) -> dict[str, Any]:
    """``submit_event`` for a coroutine: the answer once the event's transaction committed,
    from the worker that decides the cluster on this host (``app/service/affinity.py``),
    this one if it is that worker or that worker cannot be reached."""
    if ctx.affinity is not None:
        answer = await ctx.affinity.forward(cluster_id, event)
        if answer is not None:
            return answer
    return await submit_here(ctx, cluster_id, event)


async def submit_batch(ctx: ServiceContext, cluster_id: str, events: list[dict[str, Any]]
                       ) -> list[dict[str, Any]]:
    """``apply_batch`` for a coroutine, by the worker that decides the cluster on this host
    (as ``submit``)."""
    if ctx.affinity is not None:
        answers = await ctx.affinity.forward(cluster_id, batch=events)
        if answers is not None:
            return answers
    return await batch_here(ctx, cluster_id, events)


async def batch_here(ctx: ServiceContext, cluster_id: str, events: list[dict[str, Any]]
                     ) -> list[dict[str, Any]]:
    return await anyio.to_thread.run_sync(apply_batch, ctx, cluster_id, events)


async def submit_here(ctx: ServiceContext, cluster_id: str, event: dict[str, Any]
                      ) -> dict[str, Any]:
    """Decide the event in this process.

    A request cancelled while it waits (the client gone, the graceful shutdown's deadline)
    leaves its event queued: it is decided and logged as if its answer had been read, so a
    retry with the same ``event_id`` finds it."""
    if not ctx.settings.group_across_clusters:
        return await anyio.to_thread.run_sync(submit_event, ctx, cluster_id, event)
    loop = asyncio.get_running_loop()
    answered = loop.create_future()

    def wake() -> None:
        try:
            loop.call_soon_threadsafe(_resolve, answered)
        except RuntimeError:  # the loop closed: nobody waits for this answer any more
            pass

    pending = Pending(event, request_hash(event), origin=ctx.tracing.origin(), waker=wake)
    _decider(ctx)
    ctx.groups.enqueue(cluster_id, pending)
    await answered
    return pending.result()


def _resolve(answered: asyncio.Future[None]) -> None:
    if not answered.done():
        answered.set_result(None)


def _decider(ctx: ServiceContext) -> Decider:
    if ctx.decider is None:
        with _starting:
            if ctx.decider is None:
                ctx.decider = Decider(ctx)
    return ctx.decider


class Decider:
    def __init__(self, ctx: ServiceContext):
        self._ctx = ctx
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="headroom-decider", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        groups = self._ctx.groups
        while not self._stop.is_set():
            seen = groups.generation()
            try:
                if lead(self._ctx, lambda: False, on_behalf=True):
                    continue
            except Exception:  # _decide answers its events: this is a bug
                log.exception("the decider's round failed; it goes on")
            # Nothing it could take: every queued cluster held by a batch, a read or another
            # leader, or nothing queued. Whatever changes that wakes it.
            groups.wait_for_work(seen, IDLE_WAKE_SECONDS)

    def close(self) -> None:
        self._stop.set()
        self._ctx.groups.wake()
        self._thread.join(timeout=10)
