"""The interface every placement policy (DRA and the baselines) implements.

Engines are pure: no I/O, no clock, no global random state. The service and the simulator
drive the same engine objects. An engine owns the bookkeeping shared by every policy (which
job runs where, how much of each server is used) so that each policy only decides.

Contract the service relies on:
- ``arrive``/``depart`` validate first and raise a ``PolicyError`` *before* mutating anything;
- ``decide_arrival`` answers what ``arrive`` would do without mutating (random state included);
- ``to_state``/``from_state`` round-trip the whole engine through JSON-able data, so that
  ``from_state(to_state(e))`` makes exactly the same future decisions as ``e``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import numpy as np

# The refusals live in app/policies/errors.py so that model.py can raise UnknownJobType
# without importing this module (which imports model.py); they stay importable from here.
from app.policies.errors import (  # noqa: F401
    DuplicateJob, PolicyError, UnknownJob, UnknownJobType, UnknownServer)
from app.policies.model import ClusterModel


@dataclass
class Preemption:
    job_id: str
    job_type: str
    server_id: str
    # Set where tenants' quotas preempted it (app/policies/gangs.py): whose job it was, and
    # "reclaim" (a lender took back its quota) or "priority" (its tenant's higher job).
    tenant: str | None = None
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"job_id": self.job_id, "job_type": self.job_type,
                               "server_id": self.server_id}
        if self.reason is not None:  # absent elsewhere, so that logged answers stay as they were
            out["tenant"], out["reason"] = self.tenant, self.reason
        return out


@dataclass
class Reconfiguration:
    server_id: str
    configuration: dict[str, int]  # job type name -> slots

    def to_dict(self) -> dict[str, Any]:
        return {"server_id": self.server_id, "configuration": dict(self.configuration)}


@dataclass
class Placement:
    """Outcome of an arrival.

    ``preempted`` jobs are removed whatever the decision (DRA+Preemption preempts on a
    rejection); ``reconfigured`` lists servers a policy gave a new configuration while
    handling the arrival (DRA reruns CRA after every admission).
    """

    decision: Literal["placed", "rejected"]
    server_id: str | None
    reason: str
    details: dict[str, Any] = field(default_factory=dict)
    preempted: list[Preemption] = field(default_factory=list)
    reconfigured: list[Reconfiguration] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        # Written out rather than dataclasses.asdict, whose deep copy cost ~10% of a decision.
        return {
            "decision": self.decision, "server_id": self.server_id, "reason": self.reason,
            "details": self.details,
            "preempted": [p.to_dict() for p in self.preempted],
            "reconfigured": [r.to_dict() for r in self.reconfigured],
        }


@dataclass
class Migration:
    job_id: str
    from_server_id: str
    to_server_id: str


@dataclass
class Release:
    """Outcome of a departure."""

    decision: Literal["released"]
    server_id: str
    migration: Migration | None = None
    reconfigured: list[Reconfiguration] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)  # DRA: the migration tally

    def to_dict(self) -> dict[str, Any]:
        m = self.migration
        return {
            "decision": self.decision, "server_id": self.server_id,
            "migration": None if m is None else {"job_id": m.job_id,
                                                 "from_server_id": m.from_server_id,
                                                 "to_server_id": m.to_server_id},
            "reconfigured": [r.to_dict() for r in self.reconfigured],
            "details": self.details,
        }


class PlacementEngine(ABC):
    """Shared bookkeeping; subclasses implement ``_decide``, ``_on_placed`` and ``_on_departed``.

    Attributes the invariant tests read:
    - ``jobs``: job id -> (server number, job type index)
    - ``used[s]``: resource vector used on server s
    - ``counts[s]``: jobs per type on server s
    - ``on_server[s]``: ids of the jobs on server s
    """

    kind: ClassVar[str]
    default_params: ClassVar[dict[str, Any]] = {}
    # True where an answer determines every change its decision made: no random draws, no
    # preemption or migration, no policy index but those ``_on_added``/``_on_removed`` keep.
    # Catch-up may then follow a logged answer (``follow_arrival``) instead of deciding.
    follows_answers: ClassVar[bool] = False
    # True where a removed job put back (``readmit``) leaves the policy as it was, and an
    # arrival changes nothing but the bookkeeping and ``rng``: the policy keeps no state but
    # what ``_on_added``/``_on_removed`` maintain. Preemption trials (app/policies/gangs.py)
    # then undo in place instead of restoring a snapshot.
    undoes_removal: ClassVar[bool] = False

    def __init__(self, model: ClusterModel, params: dict[str, Any] | None = None,
                 rng: np.random.Generator | None = None):
        self.model = model
        self.params = {**self.default_params, **(params or {})}
        self.rng = rng if rng is not None else np.random.default_rng(0)
        L, D, J = model.num_servers, len(model.dimensions), model.num_types
        self.jobs: dict[str, tuple[int, int]] = {}
        self.used: list[list[float]] = [[0.0] * D for _ in range(L)]
        self.counts: list[list[int]] = [[0] * J for _ in range(L)]
        self.jobs_per_type: list[int] = [0] * J
        self.on_server: list[set[str]] = [set() for _ in range(L)]

    # ---- public API ---------------------------------------------------------------------

    def arrive(self, job_id: str, job_type: str) -> Placement:
        if job_id in self.jobs:
            raise DuplicateJob(job_id)
        j = self.model.type_index(job_type)
        placement = self._decide(j)
        for p in placement.preempted:
            self._remove(p.job_id)
        if placement.decision == "placed":
            s = self.model.server_numbers[placement.server_id]
            self._add(job_id, s, j)
            self._on_placed(job_id, s, j, placement)
        else:
            self._on_rejected(j, placement)
        return placement

    def follow_arrival(self, job_id: str, job_type: str, server_id: str | None) -> None:
        """Record the logged outcome of an arrival (placed on ``server_id``, or rejected:
        None) without deciding; only for engines whose ``follows_answers`` is True."""
        if not self.follows_answers:
            raise TypeError(f"{self.kind} cannot follow answers: its decisions change more")
        j = self.model.type_index(job_type)
        if server_id is None:
            return
        s = self.model.server_numbers.get(server_id)
        if job_id in self.jobs or s is None or not self._fits(s, j):
            raise ValueError(f"logged placement of {job_id!r} on {server_id!r} does not fit")
        self._add(job_id, s, j)

    def decide_arrival(self, job_type: str) -> Placement:
        """What ``arrive`` would decide now, with no change to any state (dry run)."""
        j = self.model.type_index(job_type)
        saved = self.rng.bit_generator.state
        try:
            return self._decide(j)
        finally:
            self.rng.bit_generator.state = saved

    def depart(self, job_id: str) -> Release:
        if job_id not in self.jobs:
            raise UnknownJob(job_id)
        s, j = self._remove(job_id)
        release = Release(decision="released", server_id=self.model.server_ids[s])
        self._on_departed(job_id, s, j, release)
        return release

    def evict(self, job_id: str) -> tuple[int, int]:
        """Remove a running job that did not depart (preempted by its tenant's quota): the
        bookkeeping of a removal, without a departure's reaction (DRA's migration)."""
        return self._remove(job_id)

    def readmit(self, job_id: str, s: int, j: int) -> None:
        """Put back on server s a job ``evict`` removed (a preemption trial undone)."""
        self._add(job_id, s, j)

    def server_view(self, server_id: str) -> dict[str, Any]:
        try:
            s = self.model.server_numbers[server_id]
        except KeyError:
            raise UnknownServer(server_id) from None
        names = [t.name for t in self.model.job_types]
        return {
            "server_id": server_id,
            "pool": self.model.pools[self.model.server_pool[s]].name,
            "capacity": dict(zip(self.model.dimensions, self.model.capacity(s))),
            "used": dict(zip(self.model.dimensions, self.used[s])),
            "jobs": sorted(self.on_server[s]),
            "jobs_per_type": {names[j]: c for j, c in enumerate(self.counts[s]) if c},
        }

    def describe(self) -> dict[str, Any]:
        """Cluster-wide state for ``GET .../state``; subclasses extend it."""
        names = [t.name for t in self.model.job_types]
        reward = sum(self.model.job_types[j].reward * n for j, n in enumerate(self.jobs_per_type))
        return {
            "policy": self.kind,
            "servers": self.model.num_servers,
            "jobs": len(self.jobs),
            "jobs_per_type": dict(zip(names, self.jobs_per_type)),
            "reward_rate": reward,
        }

    # ---- persistence --------------------------------------------------------------------

    def to_state(self) -> dict[str, Any]:
        return {
            "jobs": [[jid, s, j] for jid, (s, j) in self.jobs.items()],
            "rng": self.rng.bit_generator.state,
            "extra": self._extra_state(),
        }

    @classmethod
    def from_state(cls, model: ClusterModel, params: dict[str, Any] | None,
                   state: dict[str, Any]) -> PlacementEngine:
        engine = cls(model, params)
        engine.rng.bit_generator.state = state["rng"]
        for jid, s, j in state["jobs"]:
            engine._add(jid, s, j)
        engine._restore_extra(state["extra"])
        return engine

    # ---- hooks for subclasses -----------------------------------------------------------

    @abstractmethod
    def _decide(self, j: int) -> Placement:
        """Choose a server for a type-j arrival. Must not mutate anything but ``self.rng``."""

    def _on_placed(self, job_id: str, s: int, j: int, placement: Placement) -> None:
        """Update policy indexes after the base class recorded the job on server s."""

    def _on_rejected(self, j: int, placement: Placement) -> None:
        """Update policy indexes after a rejection (after any ``placement.preempted`` left)."""

    def _on_departed(self, job_id: str, s: int, j: int, release: Release) -> None:
        """Update policy indexes after a departure; may migrate (via ``_move``)."""

    def _on_removed(self, job_id: str, s: int, j: int) -> None:
        """Called after any removal (departure, preemption, migration source)."""

    def _on_added(self, job_id: str, s: int, j: int) -> None:
        """Called after any addition (placement, migration target, restore)."""

    def _extra_state(self) -> Any:
        return None

    def _restore_extra(self, extra: Any) -> None:
        """Rebuild policy indexes after ``from_state`` re-added every job."""

    # ---- bookkeeping --------------------------------------------------------------------

    def _add(self, job_id: str, s: int, j: int) -> None:
        self.jobs[job_id] = (s, j)
        demand = self.model.job_types[j].demand
        used = self.used[s]
        for d, x in enumerate(demand):
            used[d] += x
        self.counts[s][j] += 1
        self.jobs_per_type[j] += 1
        self.on_server[s].add(job_id)
        self._on_added(job_id, s, j)

    def _remove(self, job_id: str) -> tuple[int, int]:
        s, j = self.jobs.pop(job_id)
        demand = self.model.job_types[j].demand
        used = self.used[s]
        for d, x in enumerate(demand):
            used[d] -= x
            if abs(used[d]) < 1e-9:  # keep float drift from accumulating on empty servers
                used[d] = 0.0
        self.counts[s][j] -= 1
        self.jobs_per_type[j] -= 1
        self.on_server[s].discard(job_id)
        self._on_removed(job_id, s, j)
        return s, j

    def _move(self, job_id: str, to_server: int) -> Migration:
        s, j = self.jobs[job_id]
        self._remove(job_id)
        self._add(job_id, to_server, j)
        ids = self.model.server_ids
        return Migration(job_id=job_id, from_server_id=ids[s], to_server_id=ids[to_server])

    def _fits(self, s: int, j: int) -> bool:
        return self.model.fits(self.used[s], self.model.job_types[j].demand, self.model.capacity(s))
