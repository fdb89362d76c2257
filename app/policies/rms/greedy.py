"""Work-conserving greedy queue schedulers (RMS paper §III, Definition 1): the baselines.

An arrival starts at once on a server chosen by the rule (Best-/First-/Random-Fit) if any
server has room, else it queues. When a job leaves server l, queued jobs that fit in l are
started there, oldest first across types (within a type the queue is FIFO), until nothing
waiting fits. Only l gained room, so every rule would pick l for them; the rule matters on
arrival only. The invariant after every call: no queued job fits on any server.
"""

from __future__ import annotations

from typing import Any

from app.policies.rms.core import QueueScheduler
from app.policies.rms.selection import fits


class GreedyQueueScheduler(QueueScheduler):
    rule = "bf"
    # Which waiting job a freed server takes first: "fifo" (oldest head across types),
    # "small_first" or "large_first" (by the job's total demand share of the server).
    default_params = {"order": "fifo"}

    def _key(self, s: int, k: int) -> float:
        order = self.params["order"]
        if order == "fifo":
            return self.queued[self.queues[k][0]][1]
        cap = self.model.capacity(s)
        size = sum(d / c for d, c in zip(self.model.job_types[k].demand, cap) if c > 0)
        return size if order == "small_first" else -size

    def _place_arrival(self, j: int) -> int | None:
        from app.policies.rms.selection import choose_server

        return choose_server(self.rule, self.model, self.used, j, self.rng,
                             (self.used_np, self.caps_np))

    def _after_departure(self, s: int, j: int) -> list[dict[str, Any]]:
        started = []
        while True:
            best = None
            for k, q in enumerate(self.queues):
                if q and fits(self.model, self.used[s], s, k):
                    key = self._key(s, k)
                    if best is None or key < best[0]:
                        best = (key, k)
            if best is None:
                return started
            started.append(self._start_head(best[1], s))


class BestFitQueue(GreedyQueueScheduler):
    kind = "best_fit_queue"
    rule = "bf"


class FirstFitQueue(GreedyQueueScheduler):
    kind = "first_fit_queue"
    rule = "ff"


class RandomFitQueue(GreedyQueueScheduler):
    kind = "random_fit_queue"
    rule = "rf"
