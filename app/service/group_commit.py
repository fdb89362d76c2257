"""Group commit: single events queued per cluster, the per-process mutex per cluster, and
the leader that decides what is queued.

One cluster's transactions are serial, so a per-transaction overhead caps a cluster's
throughput; and every transaction costs a commit (a WAL flush), so many small clusters or
reservation streams each paying their own cap the process. Single events are queued here; one
thread at a time is the *leader* (``leading``): it claims every cluster that has queued events
and whose mutex is free, and decides all their queued events in one transaction, taking each
row lock *before* draining that cluster's queue (``app/service/events.py``). Threads whose
event waits meanwhile queue up behind the leader, which is what makes the next group large.
The mutex keeps two threads of one process from racing for a row lock and finding the engine
checked out by the other (which would force a reload); batches, dry runs and reads hold it too.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

T = TypeVar("T")


class GroupCommit(Generic[T]):
    def __init__(self) -> None:
        self._lock = threading.Lock()
        # The leader's turn: taken while a thread decides what is queued; waiters wake when it
        # ends, and leave at once if that turn decided their event.
        self._turn = threading.Condition()
        self._leading = False
        self._mutexes: weakref.WeakValueDictionary[str, threading.Lock] = \
            weakref.WeakValueDictionary()
        self._queues: dict[str, list[T]] = {}
        # Counts what may give a leader new work (an event queued, a mutex released), so that
        # the decider thread (app/service/decider.py) sleeps only while nothing changed.
        self._work = threading.Condition(self._lock)
        self._generation = 0

    def enqueue(self, cluster_id: str, pending: T) -> None:
        """Queue an event for the next transaction of this cluster."""
        with self._lock:
            self._queues.setdefault(cluster_id, []).append(pending)
            self._changed()

    def _changed(self) -> None:
        # The caller holds ``_lock``.
        self._generation += 1
        self._work.notify_all()

    def wake(self) -> None:
        """Wake whoever waits for work (the decider, to see that it should stop)."""
        with self._lock:
            self._changed()

    def generation(self) -> int:
        with self._lock:
            return self._generation

    def wait_for_work(self, seen: int, timeout: float) -> None:
        """Until something changed since ``generation()`` was ``seen`` (or ``timeout``)."""
        with self._lock:
            if self._generation == seen:
                self._work.wait(timeout)

    def drain(self, cluster_id: str, limit: int) -> list[T]:
        """Up to ``limit`` queued events of this cluster, oldest first."""
        with self._lock:
            queue = self._queues.get(cluster_id, [])
            group, rest = queue[:limit], queue[limit:]
            if rest:
                self._queues[cluster_id] = rest
            else:
                self._queues.pop(cluster_id, None)
            return group

    def oldest(self, cluster_id: str) -> T | None:
        """The cluster's oldest queued event, left queued."""
        with self._lock:
            queue = self._queues.get(cluster_id)
            return queue[0] if queue else None

    def _mutex(self, cluster_id: str) -> threading.Lock:
        """The cluster's mutex (the caller holds ``_lock``, and a reference while it uses it:
        the table forgets a mutex nobody refers to)."""
        mutex = self._mutexes.get(cluster_id)
        if mutex is None:
            mutex = threading.Lock()
            self._mutexes[cluster_id] = mutex
        return mutex

    @contextmanager
    def exclusive(self, cluster_id: str) -> Iterator[None]:
        """Hold this process's mutex for one cluster."""
        with self._lock:
            mutex = self._mutex(cluster_id)
        try:
            with mutex:
                yield
        finally:  # events queued meanwhile can now be decided
            with self._lock:
                if cluster_id in self._queues:
                    self._changed()

    @contextmanager
    def leading(self, limit: int, done: Callable[[], bool]) -> Iterator[list[str]]:
        """Be the leader, unless ``done()`` turns true while waiting for the turn (then yield
        nothing: a leader decided it). The leader holds the mutexes of up to ``limit``
        clusters that have queued events and whose mutex is free (never waiting for one, so a
        cluster held by a long batch delays only its own events), in id order, and gets their
        ids."""
        with self._turn:
            while self._leading and not done():
                self._turn.wait()
            if done():
                yield []
                return
            self._leading = True
        held: list[tuple[str, threading.Lock]] = []
        try:
            with self._lock:
                for cluster_id in sorted(self._queues):
                    if len(held) == limit:
                        break
                    mutex = self._mutex(cluster_id)
                    if mutex.acquire(blocking=False):
                        held.append((cluster_id, mutex))
            yield [cluster_id for cluster_id, _ in held]
        finally:
            for _, mutex in held:
                mutex.release()
            with self._lock:
                if self._queues:  # left for the next turn (more than a group, or skipped)
                    self._changed()
            with self._turn:
                self._leading = False
                self._turn.notify_all()

    def wait_for(self, cluster_id: str) -> None:
        """Until nobody holds the cluster's mutex (a batch or a read that a leader skipped)."""
        with self.exclusive(cluster_id):
            pass
