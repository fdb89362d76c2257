"""The cluster a placement policy works on: resource dimensions, server pools, job types.

Plain frozen dataclasses, validated by the API layer before they get here. Every vector is
ordered like ``ClusterModel.dimensions``. Servers are numbered 0..L-1 across pools in the
order the pools are declared; their public ids are ``"<pool>-<i>"`` with i counted per pool.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from app.policies.errors import UnknownJobType

# Tolerance for comparing sums of float demands against capacities: demands such as 0.1 vCPU
# must fit ten times into 1.0 even though 10 * 0.1 != 1.0 in binary floating point.
FIT_TOLERANCE = 1e-9


@dataclass(frozen=True)
class JobType:
    name: str
    demand: tuple[float, ...]
    reward: float
    # Higher is more important; only preemption (DRA+Preemption, paper §7.2) reads it.
    priority: int = 0


@dataclass(frozen=True)
class ServerPool:
    name: str
    count: int
    capacity: tuple[float, ...]


@dataclass(frozen=True)
class ClusterModel:
    dimensions: tuple[str, ...]
    pools: tuple[ServerPool, ...]
    job_types: tuple[JobType, ...]
    _type_index: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_type_index", {t.name: i for i, t in enumerate(self.job_types)})

    @property
    def num_servers(self) -> int:
        return sum(p.count for p in self.pools)

    @property
    def num_types(self) -> int:
        return len(self.job_types)

    def type_index(self, name: str) -> int:
        """Index of a job type by name; raises UnknownJobType."""
        try:
            return self._type_index[name]
        except KeyError:
            raise UnknownJobType(name) from None

    @cached_property
    def server_pool(self) -> tuple[int, ...]:
        """Pool index of every server, by server number."""
        out: list[int] = []
        for p, pool in enumerate(self.pools):
            out.extend([p] * pool.count)
        return tuple(out)

    @cached_property
    def server_ids(self) -> tuple[str, ...]:
        return tuple(f"{pool.name}-{i}" for pool in self.pools for i in range(pool.count))

    @cached_property
    def server_numbers(self) -> dict[str, int]:
        return {sid: n for n, sid in enumerate(self.server_ids)}

    def capacity(self, server: int) -> tuple[float, ...]:
        return self.pools[self.server_pool[server]].capacity

    def fits(self, used: tuple[float, ...] | list[float], demand: tuple[float, ...],
             capacity: tuple[float, ...]) -> bool:
        return all(u + d <= c + FIT_TOLERANCE for u, d, c in zip(used, demand, capacity))

    def to_dict(self) -> dict:
        return {
            "dimensions": list(self.dimensions),
            "pools": [{"name": p.name, "count": p.count, "capacity": list(p.capacity)}
                      for p in self.pools],
            "job_types": [{"name": t.name, "demand": list(t.demand), "reward": t.reward,
                           "priority": t.priority} for t in self.job_types],
        }

    @classmethod
    def from_dict(cls, d: dict) -> ClusterModel:
        return cls(
            dimensions=tuple(d["dimensions"]),
            pools=tuple(ServerPool(p["name"], int(p["count"]), tuple(map(float, p["capacity"])))
                        for p in d["pools"]),
            job_types=tuple(JobType(t["name"], tuple(map(float, t["demand"])), float(t["reward"]),
                                    int(t.get("priority", 0))) for t in d["job_types"]),
        )


def cluster_model(spec: Mapping[str, Any]) -> ClusterModel:
    """The engines' view of a cluster declaration (``dimensions``, ``server_pools``,
    ``job_types`` as the API stores them): every vector ordered like ``dimensions``. The
    service, the simulator's presets and the benchmarks all build their models here, so a
    declaration means the same cluster everywhere."""
    dims = tuple(spec["dimensions"])
    return ClusterModel(
        dimensions=dims,
        pools=tuple(ServerPool(p["name"], p["count"], tuple(float(p["capacity"][d]) for d in dims))
                    for p in spec["server_pools"]),
        job_types=tuple(JobType(t["name"], tuple(float(t["demand"][d]) for d in dims),
                                float(t["reward"]), int(t.get("priority", 0)))
                        for t in spec["job_types"]),
    )
