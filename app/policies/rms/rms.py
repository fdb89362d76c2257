"""RMS with centralized queues (RMS paper §IV-A, Algorithm 1) and its §VI variants.

- Clock ticks: queue j owns a Poisson clock of rate r_j. On a tick one server is chosen
  (uniformly for plain RMS, Random-Fit for RMS-RF, Best-Fit for RMS-BF); if a type-j job fits
  there, the head of Q_j starts on it, or a *dummy* type-j job when Q_j is empty.
- Departures (real or dummy, type j, server l): with probability 1 - exp(-w_j) the slot is
  refilled at once with Q_j's head, or a dummy when Q_j is empty, where (4)
      w_j = max{ f(Q_j), eps/(8M) f(Q_max) },  f(x) = log(1+x)^(1-b)  (b=0: log(1+x), §VII).
- Dummy jobs hold their slot for an Exp(mu_j) time (Remark 2), then depart like real jobs.
- ``replace_dummies`` (Remark 2's less wasteful version, and the paper's "+" variant): an
  arriving type-j job takes the slot of a type-j dummy instead of queueing. A dummy is only
  ever created while Q_j is empty, so with this on a dummy never holds a slot while a real
  job of its type waits.
- ``adaptive`` (RMS-AD): one clock of the total rate r = sum r_j; each tick picks queue j with
  probability proportional to exp(w_j).

The superposition of the clocks is memoryless, so the engine keeps just the time of the next
tick (drawn when the previous one fired) and picks the ticking queue at tick time; splitting
``advance`` calls anywhere gives the same decisions.
"""

from __future__ import annotations

import heapq
import math
from typing import Any

import numpy as np

from app.policies.model import ClusterModel
from app.policies.rms.configurations import max_jobs_one_type, max_jobs_per_server
from app.policies.rms.core import QueueScheduler
from app.policies.rms.errors import BadParameterError
from app.policies.rms.selection import choose_server

MAX_JOBS_RULES = {"configurations": max_jobs_per_server, "one_type": max_jobs_one_type}


def _per_type(model: ClusterModel, name: str, value: Any) -> list[float]:
    names = [t.name for t in model.job_types]
    if isinstance(value, dict):
        unknown = set(value) - set(names)
        if unknown or len(value) != len(names):
            raise BadParameterError(name, f"needs exactly the job types {names}")
        out = [value[n] for n in names]
    else:
        out = [value] * len(names)
    if not all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
               and x > 0 for x in out):
        raise BadParameterError(name, "must be a positive number (or one per job type)")
    return [float(x) for x in out]


def draw_index(rng: np.random.Generator, probs: list[float]) -> int:
    """Index i with probability probs[i] / sum(probs), from one uniform draw."""
    u = rng.random() * sum(probs)
    acc = 0.0
    for i, p in enumerate(probs):
        acc += p
        if u < acc:
            return i
    return len(probs) - 1  # u landed on the float rounding of the last partial sum


class RmsScheduler(QueueScheduler):
    kind = "rms"
    default_params = {
        "clock_rate": None,    # r_j per queue (number or {type: rate}); None -> #servers
        "epsilon": 0.5,        # eps in (4)
        "b": 0.0,              # f(x) = log(1+x)^(1-b); Theorem 1 wants b in (0,1), §VII uses 0
        "sampling": "uniform",  # uniform | rf | bf
        "adaptive": False,     # RMS-AD
        "replace_dummies": False,  # Remark 2
        "mu": 1.0,             # dummy service rate per type (the real jobs' mu_j)
        # M in (4)'s floor: "configurations" = the most jobs of all types together (§II);
        # "one_type" = the most of a single type, an older rule, kept so that
        # clusters created with it replay as logged (see app/policies/rms/family.py).
        "max_jobs_rule": "configurations",
    }

    def __init__(self, model: ClusterModel, params: dict[str, Any] | None = None,
                 rng: np.random.Generator | None = None):
        super().__init__(model, params, rng)
        p = self.params
        rate = p["clock_rate"] if p["clock_rate"] is not None else float(model.num_servers)
        self.rates = _per_type(model, "clock_rate", rate)
        self.mu = _per_type(model, "mu", p["mu"])
        if not (isinstance(p["epsilon"], (int, float)) and 0 < p["epsilon"] < 1):
            raise BadParameterError("epsilon", "must be in (0, 1)")
        if not (isinstance(p["b"], (int, float)) and 0 <= p["b"] < 1):
            raise BadParameterError("b", "must be in [0, 1)")
        if p["sampling"] not in ("uniform", "rf", "bf"):
            raise BadParameterError("sampling", "must be uniform, rf or bf")
        if p["max_jobs_rule"] not in MAX_JOBS_RULES:
            raise BadParameterError("max_jobs_rule", "must be configurations or one_type")
        self.total_rate = sum(self.rates)
        self.M = MAX_JOBS_RULES[p["max_jobs_rule"]](model)
        self.floor_coeff = p["epsilon"] / (8 * self.M)
        J = model.num_types
        # dummy id -> (server, type, departs_at); per-type insertion order = creation order
        self.dummies: dict[int, tuple[int, int, float]] = {}
        self.dummies_by_type: list[dict[int, None]] = [{} for _ in range(J)]
        self.dummy_heap: list[tuple[float, int]] = []  # (departs_at, id); lazy deletion
        self.dummy_seq = 0
        self.next_tick = float(self.rng.exponential(1.0 / self.total_rate))

    # ---- weights ------------------------------------------------------------------------

    def _f(self, x: float) -> float:
        v = math.log1p(x)
        return v if self.params["b"] == 0 else v ** (1.0 - self.params["b"])

    def weights(self) -> list[float]:
        q = self.queue_lengths()
        floor = self.floor_coeff * self._f(max(q))
        return [max(self._f(x), floor) for x in q]

    # ---- hooks --------------------------------------------------------------------------

    def _place_arrival(self, j: int) -> int | None:
        if not self.params["replace_dummies"] or not self.dummies_by_type[j]:
            return None
        did = next(iter(self.dummies_by_type[j]))  # the oldest type-j dummy
        s = self._remove_dummy(did)
        return s

    def _after_departure(self, s: int, j: int) -> list[dict[str, Any]]:
        w = self.weights()[j]
        if self.rng.random() < -math.expm1(-w):  # 1 - exp(-w_j)
            return self._fill(s, j)
        return []

    def next_event_time(self) -> float:
        heap = self.dummy_heap
        while heap and heap[0][1] not in self.dummies:  # drop lazily deleted entries
            heapq.heappop(heap)
        return min(heap[0][0] if heap else math.inf, self.next_tick)

    def _run_until(self, until: float) -> list[dict[str, Any]]:
        started: list[dict[str, Any]] = []
        heap = self.dummy_heap
        while True:
            while heap and heap[0][1] not in self.dummies:
                heapq.heappop(heap)
            t_dummy = heap[0][0] if heap else math.inf
            if min(t_dummy, self.next_tick) >= until:
                return started
            if t_dummy < self.next_tick:
                self.now = t_dummy
                _, did = heapq.heappop(heap)
                j = self.dummies[did][1]
                s = self._remove_dummy(did)
                started += self._after_departure(s, j)
            else:
                self.now = self.next_tick
                started += self._tick()
                self.next_tick = self.now + float(self.rng.exponential(1.0 / self.total_rate))

    def _tick(self) -> list[dict[str, Any]]:
        if self.params["adaptive"]:
            w = self.weights()
            top = max(w)
            probs = [math.exp(x - top) for x in w]
        else:
            probs = self.rates
        j = draw_index(self.rng, probs)
        s = choose_server(self.params["sampling"], self.model, self.used, j, self.rng,
                          (self.used_np, self.caps_np))
        return [] if s is None else self._fill(s, j)

    def _fill(self, s: int, j: int) -> list[dict[str, Any]]:
        """Put Q_j's head on server s, or a dummy if Q_j is empty (the caller checked fit)."""
        if self.queues[j]:
            return [self._start_head(j, s)]
        self._add_dummy(s, j)
        return []

    def _add_dummy(self, s: int, j: int) -> int:
        did = self.dummy_seq
        self.dummy_seq += 1
        departs = self.now + float(self.rng.exponential(1.0 / self.mu[j]))
        self.dummies[did] = (s, j, departs)
        self.dummies_by_type[j][did] = None
        heapq.heappush(self.dummy_heap, (departs, did))
        self._occupy(s, j)
        return did

    def _remove_dummy(self, did: int) -> int:
        s, j, _ = self.dummies.pop(did)
        del self.dummies_by_type[j][did]
        self._release(s, j)
        return s

    # ---- views and state ----------------------------------------------------------------

    def _describe_extra(self) -> dict[str, Any]:
        names = [t.name for t in self.model.job_types]
        return {
            "weights": dict(zip(names, self.weights())),
            "dummies": {n: len(d) for n, d in zip(names, self.dummies_by_type)},
            "clock_rates": dict(zip(names, self.rates)),
            # A rate so small that the next tick is past every float (clock_rate 5e-324) never
            # fires: null, which JSON can carry, rather than infinity, which it cannot.
            "next_tick": self.next_tick if math.isfinite(self.next_tick) else None,
            "max_jobs_per_server": self.M,
            "variant": {k: self.params[k] for k in ("sampling", "adaptive", "replace_dummies")},
        }

    def _extra_state(self) -> Any:
        return {"next_tick": self.next_tick, "dummy_seq": self.dummy_seq,
                "dummies": [[did, s, j, t] for did, (s, j, t) in sorted(self.dummies.items())]}

    def _restore_extra(self, extra: Any) -> None:
        self.next_tick = float(extra["next_tick"])
        self.dummy_seq = int(extra["dummy_seq"])
        for did, s, j, t in extra["dummies"]:
            self.dummies[int(did)] = (int(s), int(j), float(t))
            self.dummies_by_type[int(j)][int(did)] = None
            self.dummy_heap.append((float(t), int(did)))
        heapq.heapify(self.dummy_heap)
