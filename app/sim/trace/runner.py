"""A job trace through a policy: the event order an orchestrator would follow, and the ledger.

``Schedule`` is the one definition of that order, shared by the in-process run
(``run_placement``) and the HTTP replay (``app.sim.trace.replay``), so both send the same events
in the same order: arrivals in trace order, a placed job's departure at arrival + duration,
and at equal times departures first (the capacity they free is there for the arrival, as in
``app.sim.dra.simulator``). Event and job ids are the trace position with a run tag, so a retry
of an event is recognisable by the service.

``Ledger`` is what the orchestrator believes: where each running job is (migrations moved),
every decision in order, and the figures derived from them (acceptance, time-average
utilisation over the trace's window).
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from app.policies.model import cluster_model
from app.policies.registry import PLACEMENT_ENGINES
from app.sim.trace.alibaba import DIMENSIONS, MACHINE, Trace


@dataclass(frozen=True)
class Event:
    kind: str  # "arrival" | "departure"
    at: float
    index: int  # position of the job in the trace

    def body(self, tag: str, trace: Trace) -> dict[str, Any]:
        job = f"{tag}j{self.index}"
        if self.kind == "arrival":
            return {"event_id": f"{tag}a{self.index}", "job_id": job,
                    "job_type": trace.job_types[trace.types[self.index]].name}
        return {"event_id": f"{tag}d{self.index}", "job_id": job}


class Schedule:
    """Arrivals of a trace merged with the departures of the jobs placed so far."""

    def __init__(self, trace: Trace):
        self.trace = trace
        self.next_arrival = 0
        self.departures: list[tuple[float, int]] = []

    def peek_time(self) -> float:
        ta = (self.trace.times[self.next_arrival] if self.next_arrival < len(self.trace)
              else math.inf)
        td = self.departures[0][0] if self.departures else math.inf
        return min(ta, td)

    def pop(self) -> Event | None:
        ta = (self.trace.times[self.next_arrival] if self.next_arrival < len(self.trace)
              else math.inf)
        if self.departures and self.departures[0][0] <= ta:
            t, i = heapq.heappop(self.departures)
            return Event("departure", t, i)
        if ta == math.inf:
            return None
        i = self.next_arrival
        self.next_arrival += 1
        return Event("arrival", ta, i)

    def placed(self, index: int) -> None:
        t = self.trace.times[index] + self.trace.durations[index]
        heapq.heappush(self.departures, (t, index))

    def departure_time(self, index: int) -> float:
        return self.trace.times[index] + self.trace.durations[index]


@dataclass
class Ledger:
    trace: Trace
    servers: int
    tag: str = ""
    running: dict[str, str] = field(default_factory=dict)  # job id -> server id
    decisions: list[tuple[str, str, str | None]] = field(default_factory=list)
    placed_index: list[int] = field(default_factory=list)
    arrivals: int = 0
    migrations: int = 0
    departed: set[str] = field(default_factory=set)
    moved_early: dict[str, str] = field(default_factory=dict)

    def record(self, event: Event, answer: dict[str, Any]) -> bool:
        """Note the service's (or engine's) answer; True when an arrival was placed."""
        job = f"{self.tag}j{event.index}"
        if event.kind == "arrival":
            self.arrivals += 1
            self.decisions.append((f"{self.tag}a{event.index}", answer["decision"],
                                   answer.get("server_id")))
            if answer["decision"] == "placed":
                self.running[job] = self.moved_early.pop(job, answer["server_id"])
                self.placed_index.append(event.index)
                return True
            return False
        self.decisions.append((f"{self.tag}d{event.index}", answer["decision"],
                               answer.get("server_id")))
        self.running.pop(job, None)
        self.departed.add(job)
        mig = answer.get("migration")
        if mig:
            self.migrations += 1
            # Concurrent clients record answers in their own order, not the service's: the
            # moved job's departure may come first (a job that left cannot move: ignore) or
            # its arrival may come later (apply the move then).
            moved = mig["job_id"]
            if moved in self.running:
                self.running[moved] = mig["to_server_id"]
            elif moved not in self.departed:
                self.moved_early[moved] = mig["to_server_id"]
        return False

    def by_server(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for job, server in self.running.items():
            out.setdefault(server, []).append(job)
        return {s: sorted(js) for s, js in out.items()}

    def summary(self, horizon: float | None = None) -> dict[str, Any]:
        """Acceptance, and utilisation per resource averaged over [0, horizon) (default: the
        trace's last arrival), counting each placed job's bucketed size while it runs."""
        tr = self.trace
        end = horizon if horizon is not None else (tr.times[-1] if len(tr) else 0.0)
        used = [0.0, 0.0]
        for i in self.placed_index:
            t = tr.times[i]
            held = max(0.0, min(t + tr.durations[i], end) - t)
            jt = tr.job_types[tr.types[i]]
            used[0] += jt.cpu * held
            used[1] += jt.memory * held
        cap = [c * self.servers * end for c in MACHINE]
        accepted = len(self.placed_index)
        # Reward-seconds placed over reward-seconds offered: what DRA maximises (each type's
        # reward is its machine share), so a policy that rejects big jobs shows it here.
        rw = [t.reward for t in tr.job_types]
        offered = sum(rw[tr.types[i]] * tr.durations[i] for i in range(self.arrivals))
        kept = sum(rw[tr.types[i]] * tr.durations[i] for i in self.placed_index)
        return {
            "arrivals": self.arrivals, "accepted": accepted,
            "acceptance": accepted / self.arrivals if self.arrivals else None,
            "reward_share": kept / offered if offered else None,
            "utilisation": {d: (u / c if c else None) for d, u, c in zip(DIMENSIONS, used, cap)},
            "migrations": self.migrations, "running_at_end": len(self.running),
        }


def run_placement(kind: str, trace: Trace, servers: int, seed: int = 0,
                  params: dict[str, Any] | None = None, tag: str = "") -> Ledger:
    """The trace through the service's own placement engine, in process, event by event."""
    model = cluster_model(trace.cluster_spec("trace", servers, {"kind": kind}))
    engine = PLACEMENT_ENGINES[kind](model, params or None, np.random.default_rng(seed))
    ledger = Ledger(trace, servers, tag)
    schedule = Schedule(trace)
    while (ev := schedule.pop()) is not None:
        body = ev.body(tag, trace)
        if ev.kind == "arrival":
            p = engine.arrive(body["job_id"], body["job_type"])
            answer = {"decision": p.decision, "server_id": p.server_id}
        else:
            r = engine.depart(body["job_id"])
            answer = {"decision": r.decision, "server_id": r.server_id,
                      "migration": (None if r.migration is None else
                                    {"job_id": r.migration.job_id,
                                     "to_server_id": r.migration.to_server_id})}
        if ledger.record(ev, answer):
            schedule.placed(ev.index)
    return ledger


def run_queue(kind: str, trace: Trace, servers: int, seed: int = 0,
              params: dict[str, Any] | None = None) -> dict[str, Any]:
    """The trace through a queueing engine (RMS or a greedy queue): nothing is rejected, so
    the figure is waiting time (start - arrival, seconds). Time unit: one second."""
    from app.policies.rms import GREEDY, make_scheduler

    model = cluster_model(trace.cluster_spec("trace", servers, {"kind": "first_fit"}))
    p = dict(params or {})
    if kind not in GREEDY:
        # The dummy jobs' service rate: each type's real mean rate (RMS §IV).
        mean = np.bincount(trace.types, weights=trace.durations,
                           minlength=len(trace.job_types))
        count = np.bincount(trace.types, minlength=len(trace.job_types))
        p.setdefault("mu", {t.name: float(count[k] / mean[k]) if mean[k] else 1.0
                            for k, t in enumerate(trace.job_types)})
    eng = make_scheduler(kind, model, p, np.random.default_rng(seed))
    arrived_at: dict[str, float] = {}
    waits: list[float] = []
    departures: list[tuple[float, str]] = []
    duration = {f"j{i}": d for i, d in enumerate(trace.durations)}

    def started(recs: list[dict[str, Any]]) -> None:
        for r in recs:
            waits.append(r["at"] - arrived_at[r["job_id"]])
            heapq.heappush(departures, (r["at"] + duration[r["job_id"]], r["job_id"]))

    i, n = 0, len(trace)
    while True:
        ta = trace.times[i] if i < n else math.inf
        td = departures[0][0] if departures else math.inf
        ti = eng.next_event_time()
        if min(ta, td) == math.inf:
            break  # no job left to arrive or finish: only idle clocks remain
        if ti < min(ta, td):
            started(eng.step())
        elif td <= ta:
            _, jid = heapq.heappop(departures)
            started(eng.depart(jid, td)["started"])
        else:
            jid = f"j{i}"
            arrived_at[jid] = ta
            out = eng.arrive(jid, trace.job_types[trace.types[i]].name, ta)
            started(out["started"])
            if out["decision"] == "started":
                started([{"job_id": jid, "at": ta}])
            i += 1
    w = np.asarray(waits) if waits else np.zeros(1)
    return {"policy": kind, "arrivals": n, "started": len(waits),
            "never_started": n - len(waits), "mean_wait_s": float(w.mean()),
            "p50_wait_s": float(np.percentile(w, 50)), "p99_wait_s": float(np.percentile(w, 99)),
            "waited": float((w > 0).mean())}
