"""RMS with distributed queues (RMS paper §IV-B, Algorithm 2, with Remarks 3 and 4).

Every server l keeps one FIFO queue Q_j^l per job type j, and a job queued at l is later served
by l (§II (ii)); the per-type totals Q_j = sum_l Q_j^l are what ``queue_lengths`` reports.

- Routing, on a type-j arrival: ``jsq`` sends it to a shortest type-j queue, argmin_l Q_j^l (6);
  ``po2`` (Remark 4) samples two distinct servers and takes the one with the shorter Q_j^l.
  Ties are broken uniformly at random with the engine's seeded generator, for both (the paper:
  "arbitrarily" for JSQ, "at random" for po2). Not lowest-index: on an idle cluster every queue
  is 0, and lowest-index would send every arrival to server 0 to wait for that one server's
  clock. With ``replace_dummies``, tied servers holding a type-j dummy win the tie (still a
  shortest queue, so still (6)), so an arrival takes a reserved slot whenever JSQ allows.
  Servers that cannot hold a type-j job even when empty are never candidates: the paper assumes
  every server fits every type, and without this a job could be stranded where it never fits.
- Clock tick of Q_j^l (Poisson, rate r_j^l): if a type-j job fits on l, Q_j^l's head starts
  there, or a dummy type-j job when Q_j^l is empty; else nothing.
- Departure of a type-j job (real or dummy) from l: with probability 1 - exp(-w_j^l) the slot is
  refilled from Q_j^l, or with a dummy when Q_j^l is empty, where (5)
      w_j^l = max{ f(Q_j^l), eps/(8M) f(Q_max^l) },  Q_max^l = max_j Q_j^l.
- Dummies hold their slot for an Exp(mu_j) time (Remark 3). ``replace_dummies`` (Remark 3's less
  wasteful version; the "_plus" names): a type-j job routed to l takes the slot of a type-j dummy
  on l instead of queueing. A dummy of (l, j) is only created while Q_j^l is empty, and every
  later type-j arrival at l takes a dummy first, so none sits on l while a type-j job waits at l.

Clock rates: ``clock_rate`` keeps Algorithm 1's meaning, the total rate r_j = sum_l r_j^l of type
j's clocks, split evenly: r_j^l = r_j / L. Its default r_j = L gives r_j^l = 1. Why: the paper
compares the two schemes (§VII-A.2, Fig. 4) at the same sum of clock rates with equal rates for
all queues, and a shared meaning lets one preset or ``--clock-rate`` give both the same budget.

All L*J clocks together form one Poisson clock of rate sum_j r_j, Algorithm 1's total rate. At a
tick, queue (l, j) is picked with probability r_j^l / sum_j r_j = (r_j / sum_j r_j) * (1 / L):
the type by rate, then the server uniformly. That is how Algorithm 1 draws its tick
(uniform sampling), so its clock, dummy and persistence machinery is reused as it is. Splitting
``advance`` calls anywhere gives the same decisions.
"""

from __future__ import annotations

import math
from collections import deque
from typing import Any

import numpy as np

from app.policies.model import ClusterModel
from app.policies.rms.errors import BadParameterError
from app.policies.rms.rms import RmsScheduler, draw_index
from app.policies.rms.selection import fits

ROUTINGS = ("jsq", "po2")
# describe() lists at most this many non-empty local queues (the longest), so its size does not
# grow with L * J.
DESCRIBE_QUEUES = 20


class DistributedRmsScheduler(RmsScheduler):
    kind = "rms_jsq"
    default_params = {**RmsScheduler.default_params, "routing": "jsq"}

    def __init__(self, model: ClusterModel, params: dict[str, Any] | None = None,
                 rng: np.random.Generator | None = None):
        super().__init__(model, params, rng)
        p = self.params
        if p["routing"] not in ROUTINGS:
            raise BadParameterError("routing", f"must be one of {', '.join(ROUTINGS)}")
        if p["sampling"] != "uniform":
            raise BadParameterError("sampling", "with distributed queues a tick tries its own "
                                    "server: only 'uniform' applies")
        if p["adaptive"]:
            raise BadParameterError("adaptive", "RMS-AD is defined for centralized queues only")
        L, J, D = model.num_servers, model.num_types, len(model.dimensions)
        self.server_rates = [r / L for r in self.rates]  # r_j^l
        self.local: list[list[deque[str]]] = [[deque() for _ in range(J)] for _ in range(L)]
        self.queued_server: dict[str, int] = {}  # queued job id -> l
        # (l, j) -> dummy ids in creation order (the oldest is replaced first)
        self.dummies_at: list[list[dict[int, None]]] = [[{} for _ in range(J)] for _ in range(L)]
        empty = [0.0] * D
        self.hosts = [[s for s in range(L) if fits(model, empty, s, j)] or list(range(L))
                      for j in range(J)]
        # There is no central queue here; an empty list makes any stray use of one fail loudly.
        self.queues = []

    # ---- queues and weights -------------------------------------------------------------

    def queue_lengths(self) -> list[int]:
        return [sum(len(row[j]) for row in self.local) for j in range(self.model.num_types)]

    def weight(self, s: int, j: int) -> float:
        """w_j^l of (5)."""
        row = self.local[s]
        floor = self.floor_coeff * self._f(max(len(q) for q in row))
        return max(self._f(len(row[j])), floor)

    def weights(self) -> list[list[float]]:  # type: ignore[override]
        """w_j^l for every server l (rows) and type j (columns)."""
        return [[self.weight(s, j) for j in range(self.model.num_types)]
                for s in range(self.model.num_servers)]

    def _route(self, j: int) -> int:
        cands = self.hosts[j]
        if self.params["routing"] == "po2" and len(cands) > 2:
            a = int(self.rng.integers(len(cands)))
            b = int(self.rng.integers(len(cands) - 1))
            cands = [cands[a], cands[b + (b >= a)]]  # two distinct servers, uniformly
        lengths = [len(self.local[s][j]) for s in cands]
        shortest = min(lengths)
        best = [s for s, n in zip(cands, lengths) if n == shortest]
        if self.params["replace_dummies"]:
            best = [s for s in best if self.dummies_at[s][j]] or best
        return best[0] if len(best) == 1 else best[int(self.rng.integers(len(best)))]

    # ---- hooks --------------------------------------------------------------------------

    def _admit(self, job_id: str, j: int, started: list[dict[str, Any]],
               queued_at: float) -> dict[str, Any]:
        s = self._route(j)
        if self.params["replace_dummies"] and self.dummies_at[s][j]:
            self._remove_dummy(next(iter(self.dummies_at[s][j])))
            rec = self._start(job_id, j, s, queued_at)
            return {"decision": "started", "job_id": job_id, "position": None,
                    "server_id": rec["server_id"], "started": started}
        q = self.local[s][j]
        q.append(job_id)
        self.queued[job_id] = (j, queued_at)
        self.queued_server[job_id] = s
        return {"decision": "queued", "job_id": job_id, "position": len(q) - 1,
                "started": started}

    def _after_departure(self, s: int, j: int) -> list[dict[str, Any]]:
        if self.rng.random() < -math.expm1(-self.weight(s, j)):  # 1 - exp(-w_j^l)
            return self._fill(s, j)
        return []

    def _tick(self) -> list[dict[str, Any]]:
        j = draw_index(self.rng, self.rates)
        s = int(self.rng.integers(self.model.num_servers))
        return self._fill(s, j) if fits(self.model, self.used[s], s, j) else []

    def _fill(self, s: int, j: int) -> list[dict[str, Any]]:
        """Q_j^l's head on server l, or a dummy when Q_j^l is empty (the caller checked fit)."""
        q = self.local[s][j]
        if q:
            job_id = q.popleft()
            del self.queued_server[job_id]
            _, qa = self.queued.pop(job_id)
            return [self._start(job_id, j, s, qa)]
        did = self._add_dummy(s, j)
        self.dummies_at[s][j][did] = None
        return []

    def _remove_dummy(self, did: int) -> int:
        s, j, _ = self.dummies[did]
        del self.dummies_at[s][j][did]
        return super()._remove_dummy(did)

    # ---- views and state ----------------------------------------------------------------

    def _queued_view(self, job_id: str) -> dict[str, Any]:
        j, qa = self.queued[job_id]
        s = self.queued_server[job_id]
        # server_id: the job is bound to this server for life (it will run there), the same
        # meaning the key has for running and finished jobs.
        return {"job_id": job_id, "job_type": self.model.job_types[j].name,
                "status": "queued", "queued_at": qa,
                "position": self.local[s][j].index(job_id),
                "server_id": self.model.server_ids[s]}

    def _withdraw(self, job_id: str) -> int | None:
        s = self.queued_server.pop(job_id)
        self.local[s][self.queued[job_id][0]].remove(job_id)
        return s

    def _queues_state(self) -> Any:
        # Only the non-empty queues: [l, j, [[job id, queued_at], ...]] in FIFO order.
        return [[s, j, [[jid, self.queued[jid][1]] for jid in q]]
                for s, row in enumerate(self.local) for j, q in enumerate(row) if q]

    def _restore_queues(self, data: Any) -> None:
        for s, j, items in data:
            s, j = int(s), int(j)
            for jid, qa in items:
                self.local[s][j].append(jid)
                self.queued[jid] = (j, float(qa))
                self.queued_server[jid] = s

    def _restore_extra(self, extra: Any) -> None:
        super()._restore_extra(extra)
        for did in sorted(self.dummies):  # ids grow with creation: this is creation order
            s, j, _ = self.dummies[did]
            self.dummies_at[s][j][did] = None

    def _describe_extra(self) -> dict[str, Any]:
        names = [t.name for t in self.model.job_types]
        ids = self.model.server_ids
        w = self.weights()
        nonempty = sorted(((len(q), s, j) for s, row in enumerate(self.local)
                           for j, q in enumerate(row) if q), key=lambda x: (-x[0], x[1], x[2]))
        return {
            # Same shape as Algorithm 1's: per type, the largest w_j^l over the servers.
            "weights": {n: max(row[j] for row in w) for j, n in enumerate(names)},
            "local_queues": [{"server_id": ids[s], "job_type": names[j], "length": n,
                              "weight": w[s][j]} for n, s, j in nonempty[:DESCRIBE_QUEUES]],
            "local_queues_nonempty": len(nonempty),
            "dummies": {n: len(d) for n, d in zip(names, self.dummies_by_type)},
            "clock_rates": dict(zip(names, self.rates)),
            "server_clock_rates": dict(zip(names, self.server_rates)),
            "next_tick": self.next_tick,
            "max_jobs_per_server": self.M,
            "variant": {"routing": self.params["routing"],
                        "replace_dummies": self.params["replace_dummies"]},
        }
