"""Group commit: single events queued per cluster, and the per-process mutex per cluster.

One cluster's transactions are serial, so a per-transaction overhead caps a cluster's
throughput. Single events are queued here; the thread that holds the cluster's mutex takes
the row lock, *then* drains the queue, and decides everything queued in one transaction
(``app/service/events.py``). The mutex also keeps two threads of one process from racing for
the row lock and finding the engine checked out by the other (which would force a reload).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

T = TypeVar("T")


class GroupCommit(Generic[T]):
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._mutexes: weakref.WeakValueDictionary[str, threading.Lock] = \
            weakref.WeakValueDictionary()
        self._queues: dict[str, list[T]] = {}

    def enqueue(self, cluster_id: str, pending: T) -> None:
        """Queue an event for the next transaction of this cluster."""
        with self._lock:
            self._queues.setdefault(cluster_id, []).append(pending)

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

    @contextmanager
    def exclusive(self, cluster_id: str) -> Iterator[None]:
        """Hold this process's mutex for one cluster."""
        with self._lock:
            mutex = self._mutexes.get(cluster_id)
            if mutex is None:
                mutex = threading.Lock()
                self._mutexes[cluster_id] = mutex
        with mutex:
            yield
