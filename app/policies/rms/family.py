"""Queued clusters (RMS and the greedy queue baselines) as the service drives them.

Arrivals wait until the scheduler starts them, so time is an input: every event carries
``at`` (ticks ``until``) and the engine fires, with its own seeded generator, whatever falls
before it. Where that time comes from (the wall clock, stamped by the service, or the
clients) is part of the declaration (``policy.clock``), kept here beside the engine rather
than set on it: the engine itself only ever sees times.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import chain
from typing import Any, Literal, Self

import numpy as np

from app.policies.capabilities import HoldsJobs, TracksJobs
from app.policies.errors import DuplicateJob, NoDryRun, UnknownJob
from app.policies.model import ClusterModel, cluster_model
from app.policies.protocol import Answer, Event, Gauges, PolicyAdapter, Spec, first_ids
from app.policies.quota_queue import QuotaQueue
from app.policies.rms import GREEDY, make_scheduler
from app.policies.rms.core import QueueScheduler
from app.policies.rms.errors import RmsInputError
from app.policies.rms.gangs import GangQueue, WaitingGang, room_for_all
from app.policies.rms.rms import RmsScheduler
from app.policies.tenancy import Quotas, TenantRefused

# Spec keys that configure the clock around a queue engine, not the engine itself.
_CLOCK_KEYS = ("kind", "clock", "time_unit_seconds")

# RMS's M (the weight floor of (4)) is the most jobs of all types together on one server. Every
# RMS cluster's spec stores the rule (the API fills in the default); a stored spec without it
# was declared under the one-type rule and keeps it: its logged decisions were made with that
# rule, and its replay must not diverge.
_RULE_BEFORE_15 = {"max_jobs_rule": "one_type"}

# At most about this many clock ticks fire within one event. RMS's clocks tick at a steady rate
# whether or not jobs wait, so a jump far ahead in time (a client's `at`, or a cluster whose
# loop was off for a day) would fire them by the million while holding the cluster's lock.
MAX_TICKS_PER_EVENT = 100_000


@dataclass(frozen=True)
class Tick:
    """A tick's answer: ``advanced`` (logged) or ``idle`` (nothing was due: not logged)."""

    decision: Literal["advanced", "idle"]
    now: float
    started: list[dict[str, Any]]
    gangs_timed_out: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out = {"decision": self.decision, "now": self.now, "started": self.started}
        if self.gangs_timed_out:
            out["gangs_timed_out"] = list(self.gangs_timed_out)
        return out


class QueueAdapter(PolicyAdapter[QueueScheduler], HoldsJobs, TracksJobs):
    # The service offers RMS under its one name (its variants are parameters) and the
    # greedy baselines under theirs.
    kinds = (RmsScheduler.kind, *GREEDY)
    event_kinds = frozenset({"arrival", "departure", "tick", "quotas", "gang"})

    def __init__(self, engine: QueueScheduler, clock: Literal["wall", "client"],
                 time_unit: float, quotas: Quotas | None = None,
                 held: QuotaQueue | None = None, gangs: GangQueue | None = None):
        super().__init__(engine)
        self._clock: Literal["wall", "client"] = clock
        self.time_unit = time_unit
        # Tenants' quotas, where the cluster declares tenants: an arrival is charged to its
        # tenant before the scheduler sees it, or waits in ``held`` for quota to free.
        self.quotas = quotas
        self.held = held if held is not None or quotas is None else QuotaQueue()
        # Gangs waiting to start together (app/policies/rms/gangs.py).
        self.gangs = gangs if gangs is not None else GangQueue()

    @classmethod
    def build(cls, spec: Spec) -> Self:
        policy = spec["policy"]
        params = {k: v for k, v in policy.items() if k not in _CLOCK_KEYS}
        if policy["kind"] == "rms":
            params = {**_RULE_BEFORE_15, **params}
        try:
            engine = make_scheduler(policy["kind"], cluster_model(spec), params,
                                    np.random.default_rng(spec["seed"]))
        except RmsInputError as exc:  # the engine's own parameter checks: a bad declaration
            raise ValueError(str(exc)) from exc
        tenants = spec.get("tenants")
        return cls(engine, policy.get("clock", "wall"),
                   float(policy.get("time_unit_seconds", 1.0)),
                   Quotas(spec["dimensions"], tenants) if tenants else None)

    @classmethod
    def from_state(cls, spec: Spec, state: Mapping[str, Any]) -> Self:
        fresh = cls.build(spec)
        engine = type(fresh.engine).from_state(fresh.engine.model, fresh.engine.params,
                                                dict(state))
        engine.kind = fresh.engine.kind
        quotas = state.get("quotas")
        gangs = GangQueue.from_state(state.get("gangs", []))
        if quotas is None:
            return cls(engine, fresh.clock, fresh.time_unit, gangs=gangs)
        return cls(engine, fresh.clock, fresh.time_unit,
                   Quotas.from_state(spec["dimensions"], quotas),
                   QuotaQueue.from_state(state["quota_queue"]), gangs)

    @property
    def clock(self) -> Literal["wall", "client"]:
        return self._clock

    @property
    def now(self) -> float:
        return self.engine.now

    @property
    def model(self) -> ClusterModel:
        return self.engine.model

    def next_event_time(self) -> float:
        """When the next internal event fires (clock tick, dummy departure, a waiting gang's
        timeout); inf if never."""
        return min(self.engine.next_event_time(), self.gangs.next_deadline())

    @property
    def waiting(self) -> bool:
        """Whether a job waits in a queue (the scheduler's, or a gang's: one waiting for
        quota waits for a departure or a quota change, which no clock brings)."""
        return bool(self.engine.queued) or bool(self.gangs)

    def job_view(self, job_id: str) -> dict[str, Any]:
        if job_id in self.gangs:
            gang = self.gangs.gangs[self.gangs.member_of[job_id]]
            job_type = dict(gang.members)[job_id]
            view = {"job_id": job_id, "job_type": job_type, "status": "queued",
                    "queued_at": gang.at, "position": self.gangs.position(gang.gang_id),
                    "reason": "waiting_for_gang", "gang_id": gang.gang_id}
            return view if gang.tenant is None else {**view, "tenant": gang.tenant}
        if self.held is not None and job_id in self.held:
            w = self.held.jobs[job_id]
            return {"job_id": job_id, "job_type": w.job_type, "status": "queued",
                    "queued_at": w.at, "position": self.held.position(job_id),
                    "reason": "waiting_for_quota", "tenant": w.tenant}
        view = self.engine.job_view(job_id)
        if self.quotas is not None:
            h = self.quotas.holders.get(job_id)
            if h is not None:
                view["tenant"] = h.tenant
        return view

    @property
    def max_span(self) -> float:
        """How far (time units) one event may move the clock; inf without clocks."""
        rate = getattr(self.engine, "total_rate", 0.0)
        return MAX_TICKS_PER_EVENT / rate if rate > 0 else math.inf

    def idle(self, until: float) -> Tick | None:
        """The answer of a tick to ``until`` that finds nothing due (None: something is):
        it would change nothing, so the service neither applies nor logs it."""
        if until <= self.engine.now or self.next_event_time() >= until:
            return Tick("idle", self.engine.now, [])
        return None

    def apply(self, event: Event) -> Answer | Tick:
        kind = event["kind"]
        if kind == "quotas":
            return self._set_quotas(event)
        if self.quotas is None and event.get("tenant") is not None:
            raise TenantRefused("this cluster declares no tenants (docs/tenants.md)")
        if kind == "gang":
            return Answer.of(self._gang(event))
        if kind == "arrival":
            if event["job_id"] in self.gangs:
                raise DuplicateJob(event["job_id"], "is a member of a waiting gang",
                                   field="job_id")
            if self.quotas is not None:
                out = self._arrive_under_quota(event)
            else:
                out = self.engine.arrive(event["job_id"], event["job_type"], event["at"])
            return Answer.of(self._settled(out, frees=False))
        if kind == "departure":
            return Answer.of(self._settled(self._depart(event), frees=True))
        budget = event.get("budget")
        started = (self.engine.advance(event["until"]) if budget is None
                   else self._advance_within(event["until"], budget))
        out = self._settled({"started": started}, frees=True)
        return Tick("advanced", self.engine.now, out["started"],
                    tuple(out.get("gangs_timed_out", ())))

    def _settled(self, out: dict[str, Any], frees: bool) -> dict[str, Any]:
        """``out`` once what the event's time and what it freed bring about is done: gangs
        past their timeout refused, waiting gangs started where room for them came free
        (time alone frees room: RMS's dummy jobs end), and where quota may have freed
        (``frees``), jobs waiting for quota handed to the scheduler."""
        out = {**out, "at": self.engine.now}
        if self.gangs:
            timed_out = self._expire_gangs()
            if timed_out:
                out["gangs_timed_out"] = timed_out
            out["started"] = out["started"] + self._start_gangs()
        if frees and self.quotas is not None:
            out["started"] = out["started"] + self._admit_held()
        return out

    # ---- gangs (app/policies/rms/gangs.py) ----------------------------------------------

    def _gang(self, event: Event) -> dict[str, Any]:
        engine, gang_id = self.engine, event["gang_id"]
        members = tuple((m["job_id"], m["job_type"]) for m in event["members"])
        tenant = event.get("tenant")
        if self.quotas is not None:
            self.quotas.tenant(tenant)  # TenantRefused, UnknownTenant
        if gang_id in self.gangs.gangs:
            raise DuplicateJob(gang_id, "is a gang already waiting", field="gang_id")
        for job_id, job_type in members:
            if job_id in self.gangs or self._known(job_id):
                raise DuplicateJob(job_id, "is already queued, running or recently finished",
                                   field="job_id")
            engine.model.type_index(job_type)  # UnknownJobType
        started = engine.advance(event["at"])  # TimeWentBackwards before any change
        timeout = event.get("timeout")
        self.gangs.add(WaitingGang(gang_id, members, tenant, event.get("priority", 0),
                                   engine.now, math.inf if timeout is None
                                   else engine.now + timeout))
        out = self._settled({"started": started}, frees=True)
        mine = [s for s in out["started"] if s["job_id"] in dict(members)]
        others = [s for s in out["started"] if s["job_id"] not in dict(members)]
        answer = {"gang_id": gang_id, "started": others, "at": engine.now,
                  **({"gangs_timed_out": out["gangs_timed_out"]}
                     if "gangs_timed_out" in out else {})}
        if mine:
            return {**answer, "decision": "started", "reason": "all_started", "position": None,
                    "members": [{"job_id": s["job_id"], "job_type": s["job_type"],
                                 "server_id": s["server_id"]} for s in mine], "details": {}}
        short = None if self.quotas is None else self.quotas.shortfall(
            tenant, self._gang_demand(members))
        return {**answer, "decision": "queued",
                "reason": "waiting_for_room" if short is None else "waiting_for_quota",
                "position": self.gangs.position(gang_id),
                "members": [{"job_id": j, "job_type": t, "server_id": None}
                            for j, t in members],
                "details": {} if short is None else {"quota": short}}

    def _gang_demand(self, members: tuple[tuple[str, str], ...]) -> list[float]:
        total = [0.0] * len(self.engine.model.dimensions)
        for _, job_type in members:
            for d, x in enumerate(self._demand(job_type)):
                total[d] += x
        return total

    def _start_gangs(self) -> list[dict[str, Any]]:
        """Start every waiting gang, in arrival order, that its quota and the free room now
        take whole."""
        started: list[dict[str, Any]] = []
        engine = self.engine
        for gang in list(self.gangs.gangs.values()):
            if self.quotas is not None and self.quotas.shortfall(
                    gang.tenant, self._gang_demand(gang.members)) is not None:
                continue  # short of quota, or its tenant was removed by a quota change
            servers = room_for_all(engine.model, engine.used, gang.members)
            if servers is None:
                continue
            self.gangs.remove(gang.gang_id)
            for (job_id, job_type), s in zip(gang.members, servers):
                if self.quotas is not None:
                    assert gang.tenant is not None
                    self.quotas.hold(job_id, gang.tenant, gang.priority, self._demand(job_type))
                started.append(engine.start_now(job_id, job_type, s, gang.at))
        return started

    def _expire_gangs(self) -> list[str]:
        """Refuse the gangs whose timeout has passed: their members are withdrawn."""
        due = self.gangs.due(self.engine.now)
        for gang_id in due:
            self._withdraw_gang(gang_id)
        return due

    def _withdraw_gang(self, gang_id: str) -> None:
        gang = self.gangs.remove(gang_id)
        for job_id, job_type in gang.members:
            self.engine.withdrawn_before(job_id, job_type, gang.at)

    def dry_run(self, event: Event) -> Answer:
        raise NoDryRun("a queued cluster decides over time, at the event's time, which a "
                       "single dry run does not take: send it as a batch with dry_run "
                       "(POST .../events:batch), which decides on a copy")

    # ---- tenants (app/policies/quota_queue.py) ------------------------------------------

    def _known(self, job_id: str) -> bool:
        """Whether the job waits for quota or the scheduler holds or remembers it."""
        return (self.held is not None and job_id in self.held) or self.engine.knows(job_id)

    def _demand(self, job_type: str) -> tuple[float, ...]:
        model = self.engine.model
        return model.job_types[model.type_index(job_type)].demand

    def _arrive_under_quota(self, event: Event) -> dict[str, Any]:
        assert self.quotas is not None and self.held is not None
        engine, job_id = self.engine, event["job_id"]
        name = event.get("tenant")
        self.quotas.tenant(name)  # TenantRefused, UnknownTenant
        if self._known(job_id):
            raise DuplicateJob(job_id, "is already queued, running or recently finished",
                               field="job_id")
        demand = self._demand(event["job_type"])  # UnknownJobType
        short = self.quotas.shortfall(name, demand)
        priority = event.get("priority", 0)
        if short is None:  # the engine checks the rest before it changes anything
            out = engine.arrive(job_id, event["job_type"], event["at"])
            self.quotas.hold(job_id, name, priority, demand)
            return {**out, "at": engine.now}
        started = engine.advance(event["at"])  # TimeWentBackwards before any change
        self.held.add(job_id, name, priority, event["job_type"], engine.now)
        return {"decision": "queued", "job_id": job_id, "position": self.held.position(job_id),
                "reason": "waiting_for_quota", "details": {"quota": short},
                "started": started, "at": engine.now}

    def _depart(self, event: Event) -> dict[str, Any]:
        engine, job_id = self.engine, event["job_id"]
        if job_id in self.gangs:  # a waiting gang's member leaves: the gang does not start
            started = engine.advance(event["at"])
            gang_id = self.gangs.member_of[job_id]
            self._withdraw_gang(gang_id)
            return {"decision": "withdrawn", "job_id": job_id, "server_id": None,
                    "started": started, "gang_id": gang_id}
        if self.held is not None and job_id in self.held:
            started = engine.advance(event["at"])
            w = self.held.remove(job_id)
            engine.withdrawn_before(job_id, w.job_type, w.at)
            return {"decision": "withdrawn", "job_id": job_id, "server_id": None,
                    "started": started}
        out = engine.depart(job_id, event["at"])
        if self.quotas is not None:
            self.quotas.release(job_id)
        return out

    def _admit_held(self) -> list[dict[str, Any]]:
        """Hand the scheduler every waiting job the quotas now take, in fair-share order;
        the starts this causes at once."""
        assert self.quotas is not None and self.held is not None
        started: list[dict[str, Any]] = []
        while (job_id := self.held.next(self.quotas, self._demand)) is not None:
            w = self.held.remove(job_id)
            self.quotas.hold(job_id, w.tenant, w.priority, self._demand(w.job_type))
            out = self.engine.arrive(job_id, w.job_type, self.engine.now, queued_at=w.at)
            started += out["started"]
            if out["decision"] == "started":
                started.append({"job_id": job_id, "job_type": w.job_type,
                                "server_id": out["server_id"], "at": self.engine.now,
                                "queued_at": w.at})
        return started

    def _set_quotas(self, event: Event) -> Answer:
        if self.quotas is None:
            raise TenantRefused("this cluster declares no tenants (docs/tenants.md)")
        engine = self.engine
        at = event.get("at", engine.now)  # a client clock's change is at the cluster's time
        if at < engine.now:
            at = engine.now  # a wall-clock stamp a little behind another process's
        self.quotas.replace(event["tenants"], event["generation"])  # refused before any change
        out = self._settled({"started": engine.advance(at)}, frees=True)
        return Answer("quotas_set", {"generation": self.quotas.generation,
                                     "tenants": self.quotas.declared(),
                                     "started": out["started"],
                                     **({"gangs_timed_out": out["gangs_timed_out"]}
                                        if "gangs_timed_out" in out else {})})

    def _advance_within(self, until: float, budget: int) -> list[dict[str, Any]]:
        """Fire internal events before ``until``, at most ``budget`` of them; the clock stops
        at the last one fired when the budget runs out. Exact, not an expected count, so a
        pass is bounded even while dummy departures outnumber ticks. Deterministic for a given
        state and (until, budget), which is what the log keeps, so a replay fires the same."""
        engine = self.engine
        started: list[dict[str, Any]] = []
        for _ in range(budget):
            if engine.next_event_time() >= until:
                return started + engine.advance(until)
            started += engine.step()
        return started

    def describe(self) -> dict[str, Any]:
        view = {**self.engine.describe(), "clock": self.clock_view(None)}
        if self.quotas is not None and self.held is not None:
            view["tenancy"] = self.quotas.describe(self.held.waiting_of())
            per_type = dict.fromkeys(view["queues"], 0)
            for w in self.held.jobs.values():
                per_type[w.job_type] += 1
            view["waiting_for_quota"] = per_type
        return view

    def held_jobs(self, after: str | None, limit: int) -> tuple[list[dict[str, Any]], int]:
        """The first ``limit`` jobs waiting or running whose ids sort after ``after``, by id,
        and how many there are in all (``GET .../jobs``); finished and withdrawn ones are
        kept only as a bounded history and are not listed."""
        e = self.engine
        ids, types = e.model.server_ids, e.model.job_types
        held = self.held.jobs if self.held is not None else {}
        page = []
        for jid in first_ids(chain(e.queued, e.running, held), after, limit):
            if jid in held:
                page.append({"job_id": jid, "job_type": held[jid].job_type, "status": "queued",
                             "server_id": None})
            elif jid in e.queued:
                page.append({"job_id": jid, "job_type": types[e.queued[jid][0]].name,
                             "status": "queued", "server_id": None})
            else:
                s, j, _qa, _sa = e.running[jid]
                page.append({"job_id": jid, "job_type": types[j].name, "status": "running",
                             "server_id": ids[s]})
        return page, len(e.queued) + len(e.running) + len(held)

    def clock_view(self, behind: float | None) -> dict[str, Any]:
        """``behind``: time units the clock trails the wall clock, which only the service
        knows (None: client clock, or not known)."""
        nxt = self.engine.next_event_time()
        return {"mode": self.clock, "time_unit_seconds": self.time_unit,
                "next_event_at": nxt if math.isfinite(nxt) else None, "behind": behind}

    def to_state(self) -> dict[str, Any]:
        state = self.engine.to_state()
        if self.quotas is not None and self.held is not None:
            state["quotas"] = self.quotas.to_state()
            state["quota_queue"] = self.held.to_state()
        if self.gangs:
            state["gangs"] = self.gangs.to_state()
        return state

    def gauges(self, answer: Mapping[str, Any]) -> Gauges:
        out: dict[str, Any] = {"queue_length": sum(self.engine.queue_lengths())}
        if self.quotas is not None:
            out.update(self.quotas.gauges())
        return out
