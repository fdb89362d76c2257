"""Arrivals under tenants' quotas on a placement cluster, one job or a gang of them.

A gang is decided all or nothing: every member is placed (each on a server, by the cluster's
own policy, in the order given) or none is, and the answer names the member that failed and
why. One arrival is a gang of one. An arrival its tenant's quota cannot take, or that the
cluster cannot place, may preempt the jobs ``Quotas.candidates`` lists; the fewest of them, in
their order, that let the gang in are preempted (a doubling then a bisection over how many,
each tried on a copy of the engine restored from its snapshot, so a trial leaves nothing
behind and every policy is served the same way).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from app.policies.base import DuplicateJob, Placement, PlacementEngine, Preemption
from app.policies.tenancy import Holding, Quotas

Member = tuple[str, str]  # job id, job type
ANYONE = ""  # the one tenant of a cluster that declares none


@dataclass
class GangPlacement:
    """The decision on a gang: ``members`` placed, or none of them (``failed``)."""

    decision: str  # "placed" | "rejected"
    gang_id: str
    reason: str
    members: list[dict[str, Any]]
    failed: dict[str, Any] | None = None
    preempted: list[Preemption] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"decision": self.decision, "gang_id": self.gang_id, "reason": self.reason,
                "members": self.members, "failed": self.failed,
                "preempted": [p.to_dict() for p in self.preempted], "details": self.details}


@dataclass
class Outcome:
    """Placements of every member (``failed`` None), or the first refusal: the index of the
    member refused (None when the quota refused the whole gang) and the engine's answer."""

    placements: list[Placement]
    failed: int | None = None
    refusal: Placement | None = None
    preempted: list[Preemption] = field(default_factory=list)

    @classmethod
    def of(cls, p: Placement) -> Outcome:
        """A single arrival's outcome: placed, or refused as member 0."""
        return cls([p]) if p.decision == "placed" else cls([], 0, p)

    @property
    def placed(self) -> bool:
        return self.refusal is None


def quota_refusal(short: dict[str, Any]) -> Placement:
    return Placement(decision="rejected", server_id=None, reason="quota_exceeded",
                     details={"quota": short})


class Gate:
    """A placement engine and its cluster's quotas, deciding arrivals together."""

    def __init__(self, owner: Any):
        # The adapter holding ``engine`` and ``quotas``: a trial replaces its engine (and its
        # quotas). A cluster without tenants is one tenant, ANYONE, without limits, whose
        # books last for this decision only.
        self.owner = owner
        self.tenanted = owner.quotas is not None
        self.quotas: Quotas = owner.quotas if self.tenanted else Quotas(
            owner.engine.model.dimensions,
            [{"name": ANYONE, "nominal": {d: math.inf for d in owner.engine.model.dimensions}}])

    @property
    def engine(self) -> PlacementEngine:
        return self.owner.engine

    def check(self, members: Sequence[Member]) -> tuple[float, ...]:
        """Refuse what the engine would (unknown types, known ids), before anything changes;
        the members' demand summed."""
        engine = self.engine
        seen: set[str] = set()
        total = [0.0] * len(engine.model.dimensions)
        for job_id, job_type in members:
            if job_id in engine.jobs or job_id in seen:
                raise DuplicateJob(job_id, "is already running in this cluster"
                                   if job_id in engine.jobs else "is named twice in the gang")
            seen.add(job_id)
            demand = engine.model.job_types[engine.model.type_index(job_type)].demand
            for r, x in enumerate(demand):
                total[r] += x
        return tuple(total)

    def decide(self, members: Sequence[Member], tenant: str, priority: int, dry: bool
               ) -> Outcome:
        quotas = self.quotas
        quotas.tenant(tenant)
        demand = self.check(members)
        short = quotas.shortfall(tenant, demand)
        tried: Outcome | None = None  # the gang as the cluster stands, when the quota allows it
        if short is None:
            engine = self.engine
            if len(members) == 1 and engine.undoes_removal and not dry:
                # Decided for real at once: a refusal of such a policy changes nothing but
                # its random state, put back here.
                rng = engine.rng.bit_generator.state
                p = engine.arrive(*members[0])
                if p.decision == "placed":
                    self._hold(members, [p], tenant, priority)
                    return Outcome([p])
                engine.rng.bit_generator.state = rng
                tried = Outcome([], 0, p)
            elif len(members) == 1:
                p = engine.decide_arrival(members[0][1])
                tried = Outcome.of(p)
            else:
                tried = self._attempt(0, [], members, tenant, demand)
            if tried.placed:
                return self._commit(members, tenant, priority, None, dry, tried)
        candidates = quotas.candidates(tenant, priority, demand)
        count = self._search(candidates, members, tenant, demand) \
            if self._could_fit(candidates, members) else None
        if count is not None:
            victims = candidates, count
            return self._commit(members, tenant, priority, victims, dry, None)
        if not dry:
            quotas.refuse(tenant)
        if tried is None:
            assert short is not None
            return Outcome([], None, quota_refusal(short))
        if len(members) == 1 and not dry:
            # A policy may act on a refusal (DRA preempts on a rejection): decided for real.
            p = self.engine.arrive(*members[0])
            assert p.decision != "placed", "an arrival refused in its dry run was placed"
            for q in p.preempted:
                quotas.release(q.job_id, preempted=True)
            return Outcome([], 0, p)
        return Outcome([], tried.failed, tried.refusal)

    # ---- trials --------------------------------------------------------------------------

    def _snapshot(self) -> tuple[dict[str, Any], dict[str, Any]]:
        return self.engine.to_state(), self.quotas.to_state()

    def _restore(self, snap: tuple[dict[str, Any], dict[str, Any]]) -> None:
        engine = self.engine
        self.owner.engine = type(engine).from_state(engine.model, engine.params, snap[0])
        self.quotas = Quotas.from_state(self.quotas.resources, snap[1])
        if self.tenanted:
            self.owner.quotas = self.quotas

    def _arrive_all(self, members: Sequence[Member]) -> Outcome:
        """Arrive every member on the live engine, stopping at the first refused."""
        placements: list[Placement] = []
        for i, (job_id, job_type) in enumerate(members):
            p = self.engine.arrive(job_id, job_type)
            if p.decision != "placed":
                return Outcome(placements, i, p)
            placements.append(p)
        return Outcome(placements)

    def _evict(self, count: int, candidates: list[str], tenant: str,
               undo: list[tuple[str, int, int, Holding]] | None = None) -> list[Preemption]:
        """Preempt the first ``count`` candidates still worth it, on the live engine;
        ``undo`` records what to put back."""
        engine, quotas = self.engine, self.quotas
        out: list[Preemption] = []
        for job_id in candidates:
            if len(out) == count:
                break
            if not quotas.still_candidate(job_id, tenant):
                continue
            s, j = engine.jobs[job_id]
            held = quotas.release(job_id, preempted=True)
            assert held is not None
            engine.evict(job_id)
            if undo is not None:
                undo.append((job_id, s, j, held))
            out.append(Preemption(job_id, engine.model.job_types[j].name,
                                  engine.model.server_ids[s], tenant=held.tenant,
                                  reason="reclaim" if held.tenant != tenant else "priority"))
        return out

    def _attempt(self, count: int, candidates: list[str], members: Sequence[Member],
                 tenant: str, demand: tuple[float, ...]) -> Outcome:
        """The gang (a single arrival: its dry run) after preempting the first ``count``
        candidates, the cluster left as it was afterwards: undone in place where the policy
        allows (``undoes_removal``), which is much cheaper than restoring a snapshot (that
        rebuilds the policy's indexes)."""
        engine, quotas = self.engine, self.quotas
        if not engine.undoes_removal:
            snap = self._snapshot()
            try:
                return self._try(count, candidates, members, tenant, demand, [], [])
            finally:
                self._restore(snap)
        jobs, holders, mark = list(engine.jobs), list(quotas.holders), quotas.mark()
        rng = engine.rng.bit_generator.state
        placed: list[str] = []
        evicted: list[tuple[str, int, int, Holding]] = []
        try:
            return self._try(count, candidates, members, tenant, demand, placed, evicted)
        finally:
            for job_id in reversed(placed):
                engine.evict(job_id)
            for job_id, s, j, _ in reversed(evicted):
                engine.readmit(job_id, s, j)
            engine.jobs = {job_id: engine.jobs[job_id] for job_id in jobs}  # as ordered
            quotas.undo(mark, holders, {job_id: held for job_id, _, _, held in evicted})
            engine.rng.bit_generator.state = rng

    def _try(self, count: int, candidates: list[str], members: Sequence[Member], tenant: str,
             demand: tuple[float, ...], placed: list[str],
             evicted: list[tuple[str, int, int, Holding]]) -> Outcome:
        self._evict(count, candidates, tenant, evicted)
        short = self.quotas.shortfall(tenant, demand)
        if short is not None:
            return Outcome([], None, quota_refusal(short))
        if len(members) == 1:
            p = self.engine.decide_arrival(members[0][1])
            return Outcome.of(p)
        out = self._arrive_all(members)
        placed += [job_id for (job_id, _), _p in zip(members, out.placements)]
        return out

    def _could_fit(self, candidates: list[str], members: Sequence[Member]) -> bool:
        """False when some member would fit no server even with every candidate on it
        preempted: needed whatever the policy (not enough for every one), and it keeps the
        search off the arrivals that no preemption can help, on a full cluster of jobs that
        are not candidates."""
        if not candidates:
            return False
        engine = self.engine
        model = engine.model
        freed: dict[int, list[float]] = {}
        for job_id in candidates:
            s, j = engine.jobs[job_id]
            row = freed.setdefault(s, list(engine.used[s]))
            for r, x in enumerate(model.job_types[j].demand):
                row[r] -= x
        servers = [(s, row) for s, row in freed.items()] + [
            (s, engine.used[s]) for s in range(model.num_servers) if s not in freed]
        for _, job_type in members:
            need = model.job_types[model.type_index(job_type)].demand
            if not any(model.fits(row, need, model.capacity(s)) for s, row in servers):
                return False
        return True

    def _search(self, candidates: list[str], members: Sequence[Member], tenant: str,
                demand: tuple[float, ...]) -> int | None:
        """How many of the candidates, at fewest, to preempt; None if all would not do."""
        if not candidates:
            return None
        def fits(count: int) -> bool:
            return self._attempt(count, candidates, members, tenant, demand).placed

        n, lo, hi = len(candidates), 0, 1
        while not fits(hi):
            if hi >= n:
                return None
            lo, hi = hi, min(2 * hi, n)
        while hi - lo > 1:  # lo fails, hi fits
            mid = (lo + hi) // 2
            if fits(mid):
                hi = mid
            else:
                lo = mid
        return hi

    # ---- outcomes ------------------------------------------------------------------------

    def _commit(self, members: Sequence[Member], tenant: str, priority: int,
                victims: tuple[list[str], int] | None, dry: bool, tried: Outcome | None
                ) -> Outcome:
        """Preempt the victims and place the gang (on a dry run: say so and leave the cluster
        as it was)."""
        if dry and victims is None and tried is not None:
            return tried
        snap = self._snapshot() if dry else None
        preempted = self._evict(victims[1], victims[0], tenant) if victims else []
        out = self._arrive_all(members)
        assert out.placed, "a gang that fit in its trial was refused"
        self._hold(members, out.placements, tenant, priority)
        out.preempted = preempted
        if snap is not None:
            self._restore(snap)
        return out

    def _hold(self, members: Sequence[Member], placements: list[Placement], tenant: str,
              priority: int) -> None:
        """Book placed members to their tenant (and let go what the policy preempted)."""
        quotas, engine = self.quotas, self.engine
        for (job_id, _), p in zip(members, placements):
            for q in p.preempted:  # the policy's own preemption (DRA)
                quotas.release(q.job_id, preempted=True)
            _, j = engine.jobs[job_id]
            quotas.hold(job_id, tenant, priority, engine.model.job_types[j].demand)
