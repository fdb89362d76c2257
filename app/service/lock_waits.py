"""How long this process's transactions waited for clusters' locks (the row lock on
Postgres, SQLite's BEGIN IMMEDIATE), per cluster: a health figure for the dashboard.

Process-local and in memory, like the engine cache: with several workers each answers with
what it saw itself (the answer says which process). Bounded: the least recently waited-for
clusters are forgotten beyond ``MAX_CLUSTERS``."""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

MAX_CLUSTERS = 1024


@dataclass
class _Waits:
    count: int = 0
    total: float = 0.0
    longest: float = 0.0
    last: float = 0.0


class LockWaits:
    def __init__(self, max_clusters: int = MAX_CLUSTERS):
        self._max = max_clusters
        self._by_cluster: OrderedDict[str, _Waits] = OrderedDict()
        self._lock = threading.Lock()

    def record(self, cluster_id: str, seconds: float) -> None:
        with self._lock:
            w = self._by_cluster.pop(cluster_id, None) or _Waits()
            w.count += 1
            w.total += seconds
            w.longest = max(w.longest, seconds)
            w.last = seconds
            self._by_cluster[cluster_id] = w
            while len(self._by_cluster) > self._max:
                self._by_cluster.popitem(last=False)

    def view(self, cluster_id: str) -> dict[str, Any]:
        with self._lock:
            w = self._by_cluster.get(cluster_id) or _Waits()
            return {"process": os.getpid(), "transactions": w.count,
                    "mean_ms": 1000 * w.total / w.count if w.count else None,
                    "max_ms": 1000 * w.longest if w.count else None,
                    "last_ms": 1000 * w.last if w.count else None}
