"""Placement clusters (DRA and the baselines) as the service drives them: an arrival is placed
or rejected at once, a departure frees its slot."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self

import numpy as np

from app.policies.base import Placement, PlacementEngine, Release
from app.policies.capabilities import ClockKind, HasServers, HoldsJobs
from app.policies.errors import ClockRefused, DuplicateJob, NoDryRun, UnknownJob
from app.policies.gangs import ANYONE, Gate, GangPlacement, Outcome
from app.policies.model import ClusterModel, cluster_model
from app.policies.protocol import Answer, Event, Gauges, PolicyAdapter, Spec, first_ids
from app.policies.registry import PLACEMENT_ENGINES
from app.policies.tenancy import Quotas, TenantRefused


def _params(spec: Spec) -> dict[str, Any]:
    return {k: v for k, v in spec["policy"].items() if k != "kind"}


def _no_time(event: Event) -> None:
    if event.get("at") is not None:
        raise ClockRefused("at", "a placement cluster decides at once and takes no time "
                           "(only DRA with a migration_budget takes it)")


class PlacementAdapter(PolicyAdapter[PlacementEngine], HasServers, HoldsJobs):
    kinds = tuple(PLACEMENT_ENGINES)
    event_kinds = frozenset({"arrival", "departure", "gang", "quotas"})

    def __init__(self, engine: PlacementEngine, quotas: Quotas | None = None):
        super().__init__(engine)
        # Tenants' quotas, where the cluster declares tenants: every arrival then passes the
        # Gate (app/policies/gangs.py), which wraps the policy's decision.
        self.quotas = quotas

    @classmethod
    def build(cls, spec: Spec) -> Self:
        engine_class = PLACEMENT_ENGINES[spec["policy"]["kind"]]
        tenants = spec.get("tenants")
        return cls(engine_class(cluster_model(spec), _params(spec),
                                np.random.default_rng(spec["seed"])),
                   Quotas(spec["dimensions"], tenants) if tenants else None)

    @classmethod
    def from_state(cls, spec: Spec, state: Mapping[str, Any]) -> Self:
        engine_class = PLACEMENT_ENGINES[spec["policy"]["kind"]]
        quotas = state.get("quotas")
        return cls(engine_class.from_state(cluster_model(spec), _params(spec), dict(state)),
                   None if quotas is None else Quotas.from_state(spec["dimensions"], quotas))

    @property
    def clock(self) -> ClockKind:
        """None but for DRA with a migration budget, whose refill takes time."""
        budget = getattr(getattr(self.engine, "opts", None), "budget", None)
        return None if budget is None else budget.clock

    @property
    def now(self) -> float:
        return float(getattr(self.engine, "now", 0.0))  # a clock only where one is kept

    @property
    def model(self) -> ClusterModel:
        return self.engine.model

    def server_view(self, server_id: str) -> dict[str, Any]:
        return self.engine.server_view(server_id)

    def server_of(self, job_id: str) -> str | None:
        held = self.engine.jobs.get(job_id)
        return None if held is None else self.engine.model.server_ids[held[0]]

    def fits(self, server_id: str, job_type: str) -> bool:
        model = self.engine.model
        s = model.server_numbers[server_id]
        demand = model.job_types[model.type_index(job_type)].demand
        return model.fits(self.engine.used[s], demand, model.capacity(s))

    def _take_time(self, event: Event) -> None:
        """Check the event and its ``at``, then bring the engine's clock to it: refilling the
        budget is a change, so everything the engine would refuse is refused first."""
        at = event.get("at")
        if at is None:
            raise ClockRefused("at", "required: this cluster's migration budget runs on its "
                               "clients' clock")
        engine = self.engine
        if event["kind"] == "arrival":
            if event["job_id"] in engine.jobs:
                raise DuplicateJob(event["job_id"])
            engine.model.type_index(event["job_type"])  # UnknownJobType
        elif event["job_id"] not in engine.jobs:
            raise UnknownJob(event["job_id"])
        self._move_clock(event)

    def _move_clock(self, event: Event) -> None:
        at = event.get("at")
        if at is None:
            raise ClockRefused("at", "required: this cluster's migration budget runs on its "
                               "clients' clock")
        engine = self.engine
        now = engine.now  # type: ignore[attr-defined]
        if at < now:
            raise ClockRefused("at", f"{at:g} is before the cluster's clock ({now:g}); "
                               "times never decrease")
        engine.observe_time(at)  # type: ignore[attr-defined]

    def apply(self, event: Event) -> Placement | Release | GangPlacement | Answer:
        kind = event["kind"]
        if kind in ("gang", "quotas"):
            return self._tenanted(event, dry=False)
        if self.clock is None:
            _no_time(event)
        else:
            self._take_time(event)
        if kind == "arrival":
            if self.quotas is not None:
                return self._under_quota(event, dry=False)
            if event.get("tenant") is not None:
                raise _no_tenants()
            return self.engine.arrive(event["job_id"], event["job_type"])
        release = self.engine.depart(event["job_id"])
        if self.quotas is not None:
            self.quotas.release(event["job_id"])
        return release

    def _under_quota(self, event: Event, dry: bool) -> Placement:
        assert self.quotas is not None
        out = Gate(self).decide([(event["job_id"], event["job_type"])],
                                event.get("tenant"), event.get("priority", 0), dry)
        if not out.placed:
            assert out.refusal is not None
            return out.refusal
        p = out.placements[0]
        p.preempted = out.preempted + p.preempted
        return p

    def _tenanted(self, event: Event, dry: bool) -> GangPlacement | Answer:
        """A gang's arrival, or an admin's change of the quotas."""
        if self.quotas is None and (event["kind"] == "quotas" or
                                    event.get("tenant") is not None):
            raise _no_tenants()
        if event["kind"] == "quotas":  # changes no clock (a wall clock may have stamped it)
            assert self.quotas is not None
            if dry:
                raise NoDryRun("a quota change cannot be dry-run")
            self.quotas.replace(event["tenants"], event["generation"])
            return Answer("quotas_set", {"generation": self.quotas.generation,
                                         "tenants": self.quotas.declared()})
        if event.get("timeout") is not None:
            raise ClockRefused("timeout", "a placement cluster decides a gang at once; a "
                               "timeout is for queued clusters, where a gang waits")
        members = [(m["job_id"], m["job_type"]) for m in event["members"]]
        gate = Gate(self)
        if self.clock is None:
            _no_time(event)
        elif not dry:  # as an arrival's: everything refused first, then the clock moves
            gate.check(members)
            self._move_clock(event)
        out = gate.decide(members, event.get("tenant", ANYONE if self.quotas is None else None),
                          event.get("priority", 0), dry)
        return _gang_answer(event["gang_id"], members, out)

    def follow(self, event: Event, answer: Mapping[str, Any]) -> bool:
        # Tenants' books and gangs are decided again: their answers leave out the trials.
        if not self.engine.follows_answers or self.quotas is not None or \
                event["kind"] not in ("arrival", "departure"):
            return False
        _no_time(event)
        if event["kind"] == "arrival":
            placed = answer.get("decision") == "placed"
            self.engine.follow_arrival(event["job_id"], event["job_type"],
                                       answer.get("server_id") if placed else None)
        else:  # a departure is the same bookkeeping whether decided or followed
            self.engine.depart(event["job_id"])
        return True

    def dry_run(self, event: Event) -> Placement | GangPlacement | Answer:
        if event["kind"] == "gang":
            return self._tenanted(event, dry=True)
        if event["kind"] != "arrival":
            raise NoDryRun("only arrivals and gangs can be dry-run")
        if self.clock is None:
            _no_time(event)  # with a budget, an arrival's time changes no decision
        if event["job_id"] in self.engine.jobs:
            raise DuplicateJob(event["job_id"])
        if self.quotas is not None:
            return self._under_quota(event, dry=True)
        if event.get("tenant") is not None:
            raise _no_tenants()
        return self.engine.decide_arrival(event["job_type"])

    def describe(self) -> dict[str, Any]:
        view = self.engine.describe()
        if self.quotas is not None:
            view["tenancy"] = self.quotas.describe()
        return view

    def held_jobs(self, after: str | None, limit: int) -> tuple[list[dict[str, Any]], int]:
        """The first ``limit`` jobs holding a slot whose ids sort after ``after``, by id, and
        how many jobs hold one in all (``GET .../jobs``)."""
        jobs, ids, types = self.engine.jobs, self.engine.model.server_ids, self.engine.model.job_types
        page = [{"job_id": jid, "job_type": types[jobs[jid][1]].name, "status": "running",
                 "server_id": ids[jobs[jid][0]]} for jid in first_ids(jobs, after, limit)]
        return page, len(jobs)

    def to_state(self) -> dict[str, Any]:
        state = self.engine.to_state()
        if self.quotas is not None:
            state["quotas"] = self.quotas.to_state()
        return state

    def gauges(self, answer: Mapping[str, Any]) -> Gauges:
        ratio = (answer.get("details") or {}).get("migrations_per_departure")  # DRA departures
        out: dict[str, Any] = {} if ratio is None else {"migrations_per_departure": ratio}
        if self.quotas is not None:
            out.update(self.quotas.gauges())
        return out


def _no_tenants() -> TenantRefused:
    return TenantRefused("this cluster declares no tenants (docs/tenants.md)")


def _gang_answer(gang_id: str, members: list[tuple[str, str]], out: Outcome) -> GangPlacement:
    if out.placed:
        return GangPlacement("placed", gang_id, "all_placed", [
            {"job_id": jid, "job_type": jt, "server_id": p.server_id}
            for (jid, jt), p in zip(members, out.placements)], preempted=out.preempted)
    refusal = out.refusal
    assert refusal is not None
    failed = None if out.failed is None else {
        "job_id": members[out.failed][0], "job_type": members[out.failed][1],
        "reason": refusal.reason}
    return GangPlacement("rejected", gang_id, refusal.reason, [], failed,
                         details=refusal.details)
