"""Arrivals of a queued cluster that wait for their tenant's quota.

Kueue's model: a job is admitted by quota first, then waits in the scheduler's own queues for
room on a server. An arrival its tenant's quota (and the cohort's lendable quota) can take is
charged at once and handed to the scheduler; one it cannot take waits here,
``waiting_for_quota``, until a departure or a quota change frees enough.

Who goes next when quota frees (docs/tenants.md states it for users):

- Within a tenant: highest priority first, then oldest first; a tenant's next job that does
  not fit blocks the tenant's others (Kueue's StrictFIFO), so a large job is not starved by
  small ones of its own tenant.
- Among tenants: the lowest weighted dominant share first (DRF, Ghodsi et al. 2011, over
  borrowed quota as in Kueue's fair sharing: ``Quotas.dominant_share``), then the oldest. A
  tenant within its nominal quota has share 0, so a lender waiting for what it lent goes
  before every borrower.
- A tenant whose next job is short only of its cohort's unused quota keeps what frees in the
  cohort until its job fits: tenants of higher share in the cohort wait behind it, even when
  their jobs would fit (DRF's progressive filling; without it, whoever's job fits a hole takes
  it, and the shares stay wherever they first settled). A job short of its tenant's own limit
  (nominal, borrowing limit), or larger than the whole pool could lend it, blocks no one.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from app.policies.tenancy import Quotas


@dataclass(frozen=True)
class Waiting:
    tenant: str
    priority: int
    job_type: str
    at: float  # when it arrived
    seq: int  # arrival order among the waiting: a larger seq is newer


class QuotaQueue:
    """The jobs waiting for quota, with each tenant's in a heap by (-priority, seq): choosing
    the next job looks at one head per tenant (at most MAX_TENANTS), however many wait."""

    def __init__(self) -> None:
        self.jobs: dict[str, Waiting] = {}
        self.seq = 0
        # Per tenant, (-priority, seq, job id); entries of jobs that left are dropped when
        # they surface (``_head``).
        self._heaps: dict[str, list[tuple[int, int, str]]] = {}
        self._waiting: dict[str, int] = {}

    def __contains__(self, job_id: object) -> bool:
        return job_id in self.jobs

    def __len__(self) -> int:
        return len(self.jobs)

    def add(self, job_id: str, tenant: str, priority: int, job_type: str, at: float,
            seq: int | None = None) -> None:
        if seq is None:
            self.seq += 1
            seq = self.seq
        self.jobs[job_id] = Waiting(tenant, priority, job_type, at, seq)
        heapq.heappush(self._heaps.setdefault(tenant, []), (-priority, seq, job_id))
        self._waiting[tenant] = self._waiting.get(tenant, 0) + 1

    def remove(self, job_id: str) -> Waiting:
        w = self.jobs.pop(job_id)
        self._waiting[w.tenant] -= 1
        if not self._waiting[w.tenant]:
            del self._waiting[w.tenant], self._heaps[w.tenant]
        return w

    def _live(self, entry: tuple[int, int, str]) -> bool:
        w = self.jobs.get(entry[2])
        return w is not None and w.seq == entry[1]  # not a job that left, or its old entry

    def _head(self, tenant: str) -> str:
        heap = self._heaps[tenant]
        while not self._live(heap[0]):
            heapq.heappop(heap)
        return heap[0][2]

    def position(self, job_id: str) -> int:
        """Its place among its tenant's waiting jobs (0: the tenant's next)."""
        w = self.jobs[job_id]
        key = (-w.priority, w.seq)
        return sum(1 for e in self._heaps[w.tenant] if e[:2] < key and self._live(e))

    def next(self, quotas: Quotas, demand: Callable[[str], Sequence[float]]) -> str | None:
        """The job to admit now, by the rules above; None if none is to start."""
        heads = []
        for tenant in self._heaps:
            if tenant not in quotas.tenants:
                continue  # a tenant a quota change removed takes nothing more
            job_id = self._head(tenant)
            w = self.jobs[job_id]
            heads.append((quotas.dominant_share(tenant), w.seq, job_id, tenant))
        heads.sort()
        blocked: set[str] = set()  # cohorts whose freed quota a tenant waits for
        for _, _, job_id, tenant in heads:
            cohort = quotas.tenants[tenant].cohort
            if cohort in blocked:
                continue
            need = demand(self.jobs[job_id].job_type)
            short = quotas.shortfall(tenant, need)
            if short is None:
                return job_id
            if short["limit"] == "cohort" and quotas.fits_pool(tenant, need):
                # Only the cohort's unused quota is short, and departures can free enough:
                # what frees is kept for this tenant, the one of lowest share, rather than
                # taken by a tenant of higher share whose job happens to fit (which would
                # freeze the shares wherever they first settled).
                blocked.add(cohort)
        return None

    def waiting_of(self) -> dict[str, int]:
        return dict(self._waiting)

    def to_state(self) -> dict[str, Any]:
        return {"seq": self.seq, "jobs": [[jid, w.tenant, w.priority, w.job_type, w.at, w.seq]
                                          for jid, w in self.jobs.items()]}

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> QuotaQueue:
        q = cls()
        q.seq = int(state["seq"])
        for jid, tenant, priority, job_type, at, seq in state["jobs"]:
            q.add(jid, tenant, int(priority), job_type, float(at), int(seq))
        return q
