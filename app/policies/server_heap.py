"""A min-heap of servers with keys that change, for O(log L) "best server" queries.

Each server carries a stamp; an update bumps it and pushes a fresh entry, so stale entries are
recognised and dropped lazily when they reach the top. The heap is rebuilt when stale entries
outnumber live ones, which keeps memory O(L) and amortised cost O(log L) per update.
"""

from __future__ import annotations

import heapq
from typing import Any


class ServerHeap:
    __slots__ = ("_heap", "_stamp", "_key")

    def __init__(self) -> None:
        self._heap: list[tuple[Any, int, int]] = []
        self._stamp: dict[int, int] = {}
        self._key: dict[int, Any] = {}  # live servers only

    def __len__(self) -> int:
        return len(self._key)

    def __contains__(self, server: int) -> bool:
        return server in self._key

    def set(self, server: int, key: Any | None) -> None:
        """Give ``server`` a new key, or remove it with ``None``."""
        if key is None:
            if server in self._key:
                del self._key[server]
                self._stamp[server] = self._stamp.get(server, 0) + 1
            return
        if self._key.get(server) == key:
            return
        stamp = self._stamp.get(server, 0) + 1
        self._stamp[server] = stamp
        self._key[server] = key
        heapq.heappush(self._heap, (key, server, stamp))
        if len(self._heap) > 2 * len(self._key) + 64:
            self._rebuild()

    def best(self) -> int | None:
        """Server with the smallest (key, server number), or None when empty."""
        heap = self._heap
        while heap:
            key, server, stamp = heap[0]
            if self._stamp.get(server) == stamp and server in self._key:
                return server
            heapq.heappop(heap)
        return None

    def _rebuild(self) -> None:
        self._heap = [(k, s, self._stamp[s]) for s, k in self._key.items()]
        heapq.heapify(self._heap)
