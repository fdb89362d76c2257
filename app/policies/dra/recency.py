"""The servers of one configuration, indexed as in Definition 4 (index 1 = most recent).

CRA needs "the index of server s" (is it in its configuration's excess, index <= X − X̂?)
while servers join (always as the newest, index 1) and leave from anywhere (only empty servers
are reassigned). A Python list
would make a removal O(X); here servers keep the position they joined at, departed positions
become holes, and a Fenwick tree counts live positions, so every query is O(log X). Holes are
compacted away when they outnumber live servers, which keeps memory O(X) and cost amortised.
"""

from __future__ import annotations

_HOLE = -1


class RecencyList:
    __slots__ = ("_slots", "_where", "_tree", "_live")

    def __init__(self, oldest_first: list[int] | None = None):
        self._build(list(oldest_first or []))

    def _build(self, servers: list[int]) -> None:
        self._slots = servers
        self._where = {s: p for p, s in enumerate(servers)}
        self._live = len(servers)
        size = max(16, 2 * len(servers))
        tree = [0] * (size + 1)
        for p in range(len(servers)):
            tree[p + 1] = 1
        for i in range(1, size + 1):  # O(size) Fenwick construction: push sums to parents
            parent = i + (i & -i)
            if parent <= size:
                tree[parent] += tree[i]
        self._tree = tree

    def __len__(self) -> int:
        return self._live

    def __contains__(self, s: int) -> bool:
        return s in self._where

    def _add(self, p: int, v: int) -> None:
        tree = self._tree
        i = p + 1
        n = len(tree)
        while i < n:
            tree[i] += v
            i += i & -i

    def _prefix(self, p: int) -> int:
        """Live servers at positions 0..p."""
        tree = self._tree
        i = p + 1
        total = 0
        while i > 0:
            total += tree[i]
            i -= i & -i
        return total

    def push(self, s: int) -> None:
        """``s`` becomes the most recent server (index 1)."""
        if len(self._slots) + 1 >= len(self._tree):
            self._build(self.oldest_first())
        p = len(self._slots)
        self._slots.append(s)
        self._where[s] = p
        self._live += 1
        self._add(p, 1)

    def remove(self, s: int) -> None:
        p = self._where.pop(s)
        self._slots[p] = _HOLE
        self._live -= 1
        self._add(p, -1)
        slots = self._slots
        while slots and slots[-1] == _HOLE:
            slots.pop()  # trailing holes: freeing them keeps newest() O(1)
        if len(slots) > 2 * self._live + 32:
            self._build(self.oldest_first())

    def newest(self) -> int | None:
        """The server with index 1, or None when the configuration has no server."""
        return self._slots[-1] if self._slots else None

    def newest_n(self, n: int) -> list[int]:
        """The ``n`` most recent servers (indices 1..n), newest first."""
        out: list[int] = []
        slots = self._slots
        p = len(slots) - 1
        while len(out) < n and p >= 0:
            if slots[p] != _HOLE:
                out.append(slots[p])
            p -= 1
        return out

    def index(self, s: int) -> int:
        """Index of ``s`` (1 = most recently assigned)."""
        return self._live - self._prefix(self._where[s]) + 1

    def oldest_first(self) -> list[int]:
        return [s for s in self._slots if s != _HOLE]
