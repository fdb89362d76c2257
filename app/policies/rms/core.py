"""Bookkeeping shared by the queueing schedulers (RMS and the greedy queue baselines).

Unlike ``app.policies.base.PlacementEngine``, jobs here never get rejected: they wait in a
FIFO queue per job type (centralized queueing, RMS paper §II) until a scheduler starts them.
Time only comes from the caller's events (``at``/``until``); RMS's Poisson clocks and its
dummy-job departures are fired from those calls with the engine's own seeded generator, so the
same calls on the same state always make the same decisions.

Every public call validates first and raises an ``RmsInputError`` before any mutation.
Every job start, whatever caused it (a clock tick, a departure, an arrival), is reported in the
``started`` list of the call during which it happened, so a driver never misses one.
A departure of a job that is still waiting when its time comes *withdraws* it: the job leaves
its queue without ever running (a job cancelled before it started; the orchestrator's
departure is the same event either way, so it needs no other call).
Finished and withdrawn jobs are kept for ``job_view`` up to ``finished_history`` each (oldest
evicted first); ``finished_total`` and ``withdrawn_total`` keep counting, so
queued + running + finished_total + withdrawn_total == arrived always.
"""

from __future__ import annotations

import math
from collections import OrderedDict, deque
from typing import Any, ClassVar

import numpy as np

from app.policies.errors import DuplicateJob, TimeWentBackwards, UnknownJob, UnknownJobType
from app.policies.model import ClusterModel
from app.policies.rms.errors import BadParameterError, JobNotRunningError

UNKNOWN = "is not known to this scheduler"  # a queue also knows waiting and finished jobs


class QueueScheduler:
    kind: ClassVar[str]
    default_params: ClassVar[dict[str, Any]] = {"finished_history": 1000}

    def __init__(self, model: ClusterModel, params: dict[str, Any] | None = None,
                 rng: np.random.Generator | None = None):
        self.model = model
        self.params = {**QueueScheduler.default_params, **self.default_params, **(params or {})}
        hist = self.params["finished_history"]
        if not isinstance(hist, int) or hist < 0:
            raise BadParameterError("finished_history", "must be an integer >= 0")
        self.rng = rng if rng is not None else np.random.default_rng(0)
        L, D, J = model.num_servers, len(model.dimensions), model.num_types
        self.now = 0.0
        self.queues: list[deque[str]] = [deque() for _ in range(J)]
        self.queued: dict[str, tuple[int, float]] = {}  # job id -> (type, queued_at)
        # job id -> (server, type, queued_at, started_at)
        self.running: dict[str, tuple[int, int, float, float]] = {}
        self.finished: OrderedDict[str, tuple[int, int, float, float, float]] = OrderedDict()
        self.withdrawn: OrderedDict[str, tuple[int, float, float]] = OrderedDict()  # (type, queued_at, withdrawn_at)
        self.used: list[list[float]] = [[0.0] * D for _ in range(L)]
        # A numpy mirror of ``used`` (and the capacities) for the scans over all servers that
        # Random-/First-/Best-Fit make; ``used`` stays the exact record that is persisted.
        self.used_np = np.zeros((L, D))
        self.caps_np = np.array([model.capacity(s) for s in range(L)], dtype=float).reshape(L, D)
        self.arrived = 0
        self.finished_total = 0
        self.withdrawn_total = 0

    # ---- public API ---------------------------------------------------------------------

    def arrive(self, job_id: str, job_type: str, at: float,
               queued_at: float | None = None) -> dict[str, Any]:
        """A job arrives at ``at``; ``queued_at``, when earlier, is when it began to wait
        before it reached this scheduler (for its tenant's quota, app/policies/quota_queue.py)."""
        if not isinstance(job_id, str) or not job_id:
            raise UnknownJob(job_id, UNKNOWN)
        if job_id in self.queued or job_id in self.running or job_id in self.finished \
                or job_id in self.withdrawn:
            raise DuplicateJob(job_id, "is already queued, running or recently finished",
                               field="job_id")
        j = self._type_index(job_type)
        self._check_time("at", at)
        started = self._advance(float(at))
        self.arrived += 1
        return self._admit(job_id, j, started, self.now if queued_at is None else queued_at)

    def depart(self, job_id: str, at: float) -> dict[str, Any]:
        """Job ``job_id`` left at ``at``. Internal events before ``at`` fire first, as for every
        call; if the job is still waiting then, it is withdrawn from its queue (it never ran:
        "withdrawn"), otherwise its slot is freed ("released"), including when a clock started
        it in between."""
        if job_id not in self.running and job_id not in self.queued:
            if job_id in self.finished:
                raise JobNotRunningError(job_id, "finished")
            if job_id in self.withdrawn:
                raise JobNotRunningError(job_id, "withdrawn")
            raise UnknownJob(job_id, UNKNOWN)
        self._check_time("at", at)
        started = self._advance(float(at))
        if job_id in self.queued:
            return self._withdraw_job(job_id, started)
        s, j, qa, sa = self.running.pop(job_id)
        self._release(s, j)
        self.finished_total += 1
        if self.params["finished_history"] > 0:
            self.finished[job_id] = (s, j, qa, sa, self.now)
            while len(self.finished) > self.params["finished_history"]:
                self.finished.popitem(last=False)
        started += self._after_departure(s, j)
        return {"decision": "released", "job_id": job_id,
                "server_id": self.model.server_ids[s], "started": started}

    def _withdraw_job(self, job_id: str, started: list[dict[str, Any]]) -> dict[str, Any]:
        s = self._withdraw(job_id)
        j, qa = self.queued.pop(job_id)
        self._remember_withdrawn(job_id, j, qa)
        # Nothing was running, so no slot is freed and nothing else starts: the greedy
        # invariant (no waiting job fits anywhere) and RMS's clocks are untouched; only the
        # queue lengths, hence RMS's weights, change.
        return {"decision": "withdrawn", "job_id": job_id,
                "server_id": None if s is None else self.model.server_ids[s], "started": started}

    def _remember_withdrawn(self, job_id: str, j: int, queued_at: float) -> None:
        self.withdrawn_total += 1
        if self.params["finished_history"] > 0:
            self.withdrawn[job_id] = (j, queued_at, self.now)
            while len(self.withdrawn) > self.params["finished_history"]:
                self.withdrawn.popitem(last=False)

    def withdrawn_before(self, job_id: str, job_type: str, queued_at: float) -> None:
        """A job that left before it reached this scheduler (it waited for its tenant's
        quota): counted as arrived and withdrawn, and kept in the history like any other."""
        self.arrived += 1
        self._remember_withdrawn(job_id, self._type_index(job_type), queued_at)

    def start_now(self, job_id: str, job_type: str, s: int, queued_at: float
                  ) -> dict[str, Any]:
        """Start a job on server ``s`` at once, past the queues (a gang's member, which the
        caller found room for); counted as arrived. Returns its start record."""
        self.arrived += 1
        return self._start(job_id, self._type_index(job_type), s, queued_at)

    def knows(self, job_id: str) -> bool:
        return job_id in self.queued or job_id in self.running or job_id in self.finished \
            or job_id in self.withdrawn

    def advance(self, until: float) -> list[dict[str, Any]]:
        """Fire every internal event (clock tick, dummy departure) before ``until``."""
        self._check_time("until", until)
        return self._advance(float(until))

    def next_event_time(self) -> float:
        """When the next internal event (clock tick, dummy departure) fires; inf if never."""
        return math.inf

    def step(self) -> list[dict[str, Any]]:
        """Fire exactly the next internal event and move the clock to it. An exact
        discrete-event driver uses this (with ``next_event_time``) so that it learns of every
        start when it happens, not at its next external event."""
        t = self.next_event_time()
        if not math.isfinite(t):
            return []
        started = self._run_until(math.nextafter(t, math.inf))
        self.now = t
        return started

    def job_view(self, job_id: str) -> dict[str, Any]:
        ids = self.model.server_ids
        if job_id in self.queued:
            return self._queued_view(job_id)
        if job_id in self.running:
            s, j, qa, sa = self.running[job_id]
            return {"job_id": job_id, "job_type": self.model.job_types[j].name,
                    "status": "running", "server_id": ids[s], "queued_at": qa, "started_at": sa}
        if job_id in self.finished:
            s, j, qa, sa, fa = self.finished[job_id]
            return {"job_id": job_id, "job_type": self.model.job_types[j].name,
                    "status": "finished", "server_id": ids[s], "queued_at": qa,
                    "started_at": sa, "finished_at": fa}
        if job_id in self.withdrawn:
            j, qa, wa = self.withdrawn[job_id]
            return {"job_id": job_id, "job_type": self.model.job_types[j].name,
                    "status": "withdrawn", "queued_at": qa, "withdrawn_at": wa}
        raise UnknownJob(job_id, UNKNOWN)

    def queue_lengths(self) -> list[int]:
        return [len(q) for q in self.queues]

    def describe(self) -> dict[str, Any]:
        names = [t.name for t in self.model.job_types]
        running = [0] * len(names)
        for _, j, _, _ in self.running.values():
            running[j] += 1
        return {
            "policy": self.kind, "now": self.now, "servers": self.model.num_servers,
            "queues": dict(zip(names, self.queue_lengths())),
            "running": dict(zip(names, running)),
            "arrived": self.arrived, "finished": self.finished_total,
            "withdrawn": self.withdrawn_total,
            **self._describe_extra(),
        }

    # ---- persistence --------------------------------------------------------------------

    def to_state(self) -> dict[str, Any]:
        return {
            "kind": self.kind, "now": self.now, "rng": self.rng.bit_generator.state,
            "queues": self._queues_state(),
            "running": [[jid, *v] for jid, v in self.running.items()],
            "finished": [[jid, *v] for jid, v in self.finished.items()],
            # Stored rather than recomputed: re-summing in another order could move a float
            # across a fit boundary and change a later decision.
            "used": [list(u) for u in self.used],
            "arrived": self.arrived, "finished_total": self.finished_total,
            "extra": self._extra_state(),
            "withdrawn": [[jid, *v] for jid, v in self.withdrawn.items()],
            "withdrawn_total": self.withdrawn_total,
        }

    @classmethod
    def from_state(cls, model: ClusterModel, params: dict[str, Any] | None,
                   state: dict[str, Any]) -> QueueScheduler:
        eng = cls(model, params)
        eng.rng.bit_generator.state = state["rng"]
        eng.now = float(state["now"])
        eng._restore_queues(state["queues"])
        for jid, s, j, qa, sa in state["running"]:
            eng.running[jid] = (int(s), int(j), float(qa), float(sa))
        for jid, s, j, qa, sa, fa in state["finished"]:
            eng.finished[jid] = (int(s), int(j), float(qa), float(sa), float(fa))
        eng.used = [[float(x) for x in u] for u in state["used"]]
        eng.used_np = np.array(eng.used, dtype=float).reshape(eng.used_np.shape)
        eng.arrived = int(state["arrived"])
        eng.finished_total = int(state["finished_total"])
        # States written before withdrawals existed have neither key: nothing was withdrawn.
        for jid, j, qa, wa in state.get("withdrawn", []):
            eng.withdrawn[jid] = (int(j), float(qa), float(wa))
        eng.withdrawn_total = int(state.get("withdrawn_total", 0))
        eng._restore_extra(state["extra"])
        return eng

    # ---- hooks --------------------------------------------------------------------------
    # The waiting room: one FIFO queue per type here. A scheduler with other queues (RMS with
    # a queue per server and type, Algorithm 2) overrides _admit, _queued_view, _withdraw,
    # queue_lengths and the two queue-state hooks together.

    def _admit(self, job_id: str, j: int, started: list[dict[str, Any]],
               queued_at: float) -> dict[str, Any]:
        """Start or queue a type-j arrival at ``self.now`` (validated and counted); returns
        ``arrive``'s answer, with ``started`` (the earlier starts of this call) in it."""
        s = self._place_arrival(j)
        if s is None:
            self.queues[j].append(job_id)
            self.queued[job_id] = (j, queued_at)
            return {"decision": "queued", "job_id": job_id, "position": len(self.queues[j]) - 1,
                    "started": started}
        rec = self._start(job_id, j, s, queued_at)
        return {"decision": "started", "job_id": job_id, "position": None,
                "server_id": rec["server_id"], "started": started}

    def _queued_view(self, job_id: str) -> dict[str, Any]:
        j, qa = self.queued[job_id]
        return {"job_id": job_id, "job_type": self.model.job_types[j].name,
                "status": "queued", "queued_at": qa, "position": self.queues[j].index(job_id)}

    def _withdraw(self, job_id: str) -> int | None:
        """Take a waiting job out of its queue (``queued`` is the caller's); the order of the
        others is kept. Returns the server the job was bound to, None for a central queue."""
        self.queues[self.queued[job_id][0]].remove(job_id)
        return None

    def _queues_state(self) -> Any:
        return [[[jid, self.queued[jid][1]] for jid in q] for q in self.queues]

    def _restore_queues(self, data: Any) -> None:
        for j, q in enumerate(data):
            for jid, qa in q:
                self.queues[j].append(jid)
                self.queued[jid] = (j, float(qa))

    def _place_arrival(self, j: int) -> int | None:
        """Server to start a type-j arrival on now (capacity already free), or None to queue."""
        return None

    def _after_departure(self, s: int, j: int) -> list[dict[str, Any]]:
        """React to a type-j job (real, or a dummy for RMS) leaving server s at ``self.now``."""
        return []

    def _run_until(self, until: float) -> list[dict[str, Any]]:
        """Fire internal events strictly before ``until``, setting ``self.now`` to each."""
        return []

    def _describe_extra(self) -> dict[str, Any]:
        return {}

    def _extra_state(self) -> Any:
        return None

    def _restore_extra(self, extra: Any) -> None:
        pass

    # ---- helpers ------------------------------------------------------------------------

    def _type_index(self, name: str) -> int:
        if not isinstance(name, str):
            raise UnknownJobType(name)
        try:
            return self.model._type_index[name]
        except KeyError:
            raise UnknownJobType(name) from None

    def _check_time(self, field: str, at: Any) -> None:
        if isinstance(at, bool) or not isinstance(at, (int, float)) or not math.isfinite(at) \
                or at < self.now:
            raise TimeWentBackwards(field, f"{field}={at!r} is before the scheduler's clock "
                                    f"{self.now!r}")

    def _advance(self, until: float) -> list[dict[str, Any]]:
        started = self._run_until(until)
        self.now = until
        return started

    def _occupy(self, s: int, j: int) -> None:
        used = self.used[s]
        for d, x in enumerate(self.model.job_types[j].demand):
            used[d] += x
        self.used_np[s] = used

    def _release(self, s: int, j: int) -> None:
        used = self.used[s]
        for d, x in enumerate(self.model.job_types[j].demand):
            used[d] -= x
            if abs(used[d]) < 1e-9:  # keep float drift from accumulating on empty servers
                used[d] = 0.0
        self.used_np[s] = used

    def _start(self, job_id: str, j: int, s: int, queued_at: float) -> dict[str, Any]:
        self.running[job_id] = (s, j, queued_at, self.now)
        self._occupy(s, j)
        return {"job_id": job_id, "job_type": self.model.job_types[j].name,
                "server_id": self.model.server_ids[s], "at": self.now, "queued_at": queued_at}

    def _start_head(self, j: int, s: int) -> dict[str, Any]:
        job_id = self.queues[j].popleft()
        _, qa = self.queued.pop(job_id)
        return self._start(job_id, j, s, qa)
