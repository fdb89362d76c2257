"""Gangs on queued clusters: every member starts at the same moment, or none has started.

A gang waits outside the scheduler's queues until its tenant's quota takes all its members
(their demands summed) and the servers have room for all of them at once; then each member
starts on the first server with room for it, in the order given, and runs as any job (each
departs on its own). Gangs are tried in arrival order after every event that frees room or
quota, before the jobs waiting for quota are handed to the scheduler. A gang given a
``timeout`` that has not started that many time units after it arrived is refused: its
members are withdrawn and the event during which the time passed says so
(``gangs_timed_out``).

What it does not do: hold servers back for a waiting gang. The scheduler keeps starting its
own queued jobs in room that frees, so a gang waits for a moment when room for all of it is
free at once (docs/tenants.md says so for users).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from app.policies.model import ClusterModel


@dataclass(frozen=True)
class WaitingGang:
    gang_id: str
    members: tuple[tuple[str, str], ...]  # (job id, job type)
    tenant: str | None  # None: the cluster declares no tenants
    priority: int
    at: float
    deadline: float  # inf without a timeout


class GangQueue:
    def __init__(self) -> None:
        self.gangs: dict[str, WaitingGang] = {}  # in arrival order
        self.member_of: dict[str, str] = {}

    def __contains__(self, job_id: object) -> bool:
        return job_id in self.member_of

    def __bool__(self) -> bool:
        return bool(self.gangs)

    def add(self, gang: WaitingGang) -> None:
        self.gangs[gang.gang_id] = gang
        for job_id, _ in gang.members:
            self.member_of[job_id] = gang.gang_id

    def remove(self, gang_id: str) -> WaitingGang:
        gang = self.gangs.pop(gang_id)
        for job_id, _ in gang.members:
            del self.member_of[job_id]
        return gang

    def position(self, gang_id: str) -> int:
        return list(self.gangs).index(gang_id)

    def next_deadline(self) -> float:
        return min((g.deadline for g in self.gangs.values()), default=math.inf)

    def due(self, now: float) -> list[str]:
        """The gangs whose timeout has passed at ``now``."""
        return [g.gang_id for g in self.gangs.values() if g.deadline <= now]

    def to_state(self) -> list[list[Any]]:
        return [[g.gang_id, [list(m) for m in g.members], g.tenant, g.priority, g.at,
                 None if math.isinf(g.deadline) else g.deadline] for g in self.gangs.values()]

    @classmethod
    def from_state(cls, state: list[list[Any]]) -> GangQueue:
        q = cls()
        for gang_id, members, tenant, priority, at, deadline in state:
            q.add(WaitingGang(gang_id, tuple((m[0], m[1]) for m in members), tenant,
                              int(priority), float(at),
                              math.inf if deadline is None else float(deadline)))
        return q


def room_for_all(model: ClusterModel, used: list[list[float]],
                 members: tuple[tuple[str, str], ...]) -> list[int] | None:
    """A server for each member, all at once on what is free now: the first with room for
    it, in order (each member's demand counted before the next is placed); None if some
    member finds none."""
    free = [list(u) for u in used]
    servers = []
    for _, job_type in members:
        demand = model.job_types[model.type_index(job_type)].demand
        for s in range(model.num_servers):
            if model.fits(free[s], demand, model.capacity(s)):
                for d, x in enumerate(demand):
                    free[s][d] += x
                servers.append(s)
                break
        else:
            return None
    return servers
