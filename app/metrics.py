"""Prometheus text-format metrics kept in process memory.

Each worker process keeps its own counters (the usual model for multi-process Python servers
scraped per instance); a scrape shows the process that answered it, named by ``pid``.
"""

from __future__ import annotations

import bisect
import os
import threading
from collections import defaultdict

# Latency buckets in seconds, chosen around the service's goals (p99 of 20-30 ms).
BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)


class Metrics:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.requests: dict[tuple[str, str, int], int] = defaultdict(int)
        self.latency_buckets: dict[tuple[str, str], list[int]] = {}
        self.latency_sum: dict[tuple[str, str], float] = defaultdict(float)
        self.latency_count: dict[tuple[str, str], int] = defaultdict(int)
        self.decisions: dict[tuple[str, str], int] = defaultdict(int)

    def request(self, method: str, route: str, status: int, seconds: float) -> None:
        with self._lock:
            self.requests[(method, route, status)] += 1
            key = (method, route)
            buckets = self.latency_buckets.setdefault(key, [0] * (len(BUCKETS) + 1))
            buckets[bisect.bisect_left(BUCKETS, seconds)] += 1
            self.latency_sum[key] += seconds
            self.latency_count[key] += 1

    def decision(self, event_kind: str, outcome: str) -> None:
        with self._lock:
            self.decisions[(event_kind, outcome)] += 1

    def render(self) -> str:
        pid = os.getpid()
        out = [
            "# HELP headroom_http_requests_total HTTP requests by method, route and status.",
            "# TYPE headroom_http_requests_total counter",
        ]
        with self._lock:
            for (m, r, s), n in sorted(self.requests.items()):
                out.append(f'headroom_http_requests_total{{method="{m}",route="{r}",'
                           f'status="{s}",pid="{pid}"}} {n}')
            out += ["# HELP headroom_http_request_duration_seconds Request latency.",
                    "# TYPE headroom_http_request_duration_seconds histogram"]
            for (m, r), buckets in sorted(self.latency_buckets.items()):
                labels = f'method="{m}",route="{r}",pid="{pid}"'
                acc = 0
                for bound, n in zip(BUCKETS, buckets):
                    acc += n
                    out.append(f'headroom_http_request_duration_seconds_bucket{{{labels},'
                               f'le="{bound}"}} {acc}')
                acc += buckets[-1]
                out.append(f'headroom_http_request_duration_seconds_bucket{{{labels},'
                           f'le="+Inf"}} {acc}')
                out.append(f"headroom_http_request_duration_seconds_sum{{{labels}}} "
                           f"{self.latency_sum[(m, r)]:.6f}")
                out.append(f"headroom_http_request_duration_seconds_count{{{labels}}} "
                           f"{self.latency_count[(m, r)]}")
            out += ["# HELP headroom_decisions_total Decisions by event kind and outcome.",
                    "# TYPE headroom_decisions_total counter"]
            for (k, o), n in sorted(self.decisions.items()):
                out.append(f'headroom_decisions_total{{event="{k}",outcome="{o}",'
                           f'pid="{pid}"}} {n}')
        return "\n".join(out) + "\n"
