"""Workload instances from the DRA paper's §7.1: job types, server capacity, rewards, load ρ.

An ``Instance`` is independent of the number of servers L: arrivals of type j come at rate
ρ_j·L·α with mean service 1 (paper §7.1), and ``model(L)`` gives the cluster for a run.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from app.policies.model import ClusterModel, cluster_model

SERVER = (80.0, 640.0)  # vCPU, GB (paper §7.1)
DIMENSIONS = ("cpu", "memory")

# Table 2: small 2, 4 or 8 vCPU; large 32 or 64; GB per vCPU high 8 or 16, low 1 or 2,
# regular 4.
SMALL_VCPU = (2, 4, 8)
LARGE_VCPU = (32, 64)
GB_PER_VCPU_BY_CATEGORY = {"high": (8, 16), "low": (1, 2), "regular": (4,)}
GB_PER_VCPU = tuple(v for vs in GB_PER_VCPU_BY_CATEGORY.values() for v in vs)


def gcp_reward(cpu: float, gb: float) -> float:
    """8 per vCPU + 1 per GB: 8 GB cost about as much as one vCPU (paper §7.1)."""
    return 8.0 * cpu + gb


@dataclass(frozen=True)
class Instance:
    name: str
    demands: tuple[tuple[float, ...], ...]
    capacity: tuple[float, ...]
    rewards: tuple[float, ...]
    rho: tuple[float, ...]
    type_names: tuple[str, ...]
    dimensions: tuple[str, ...] = DIMENSIONS
    priorities: tuple[int, ...] | None = None

    def scaled(self, alpha: float) -> Instance:
        return replace(self, name=f"{self.name}*{alpha:g}",
                       rho=tuple(alpha * r for r in self.rho))

    def _priority(self, j: int) -> int:
        return self.priorities[j] if self.priorities is not None else 0

    def model(self, servers: int) -> ClusterModel:
        return cluster_model(self.spec(self.name, servers, {}))

    def spec(self, name: str, servers: int, policy: dict) -> dict:
        """The same instance as an API cluster declaration."""
        dims = self.dimensions
        return {
            "name": name, "dimensions": list(dims),
            "server_pools": [{"name": "s", "count": servers,
                              "capacity": dict(zip(dims, self.capacity))}],
            "job_types": [{"name": n, "demand": dict(zip(dims, d)), "reward": u,
                           "priority": self._priority(j)} for j, (n, d, u) in
                          enumerate(zip(self.type_names, self.demands, self.rewards))],
            "policy": policy,
        }


def _vm(cpu: float, gb: float) -> tuple[str, tuple[float, float], float]:
    return f"vm{cpu:g}x{gb:g}", (float(cpu), float(gb)), gcp_reward(cpu, gb)


def paper_worst_case(alpha: float = 1.0) -> Instance:
    """§7.1's subset of the worst random collection: (vCPU, GB) = (1,1), (4,16), (2,32),
    (32,256) with ρ rounded by the paper to (2, 1/2, 4/3, 1), scaled by α."""
    vms = [_vm(1, 1), _vm(4, 16), _vm(2, 32), _vm(32, 256)]
    base = Instance("paper-worst-case", tuple(v[1] for v in vms), SERVER,
                    tuple(v[2] for v in vms), (2.0, 0.5, 4.0 / 3.0, 1.0),
                    tuple(v[0] for v in vms))
    return base.scaled(alpha) if alpha != 1.0 else base


def random_gcp(seed: int, memory: str = "category") -> Instance:
    """One random collection as §7.1 draws them: three small and three large VM types with
    vCPU and GB per vCPU from Table 2 (distinct types), ρ_j ~ U(0.2, 2).

    The paper does not say how memory is drawn from Table 2's columns. ``memory="category"``
    (default) picks high, low or regular with equal chance, then a value in it; ``"value"``
    picks one of the five GB-per-vCPU values uniformly. The reproduction reports both.
    """
    if memory not in ("category", "value"):
        raise ValueError("memory must be 'category' or 'value'")
    rng = np.random.default_rng(seed)
    categories = list(GB_PER_VCPU_BY_CATEGORY.values())
    chosen: list[tuple[str, tuple[float, float], float]] = []
    for pool in (SMALL_VCPU, LARGE_VCPU):
        picked = 0
        while picked < 3:
            cpu = float(rng.choice(pool))
            if memory == "category":
                per_cpu = float(rng.choice(categories[int(rng.integers(len(categories)))]))
            else:
                per_cpu = float(rng.choice(GB_PER_VCPU))
            vm = _vm(cpu, cpu * per_cpu)
            if vm[1][1] <= SERVER[1] and all(vm[1] != c[1] for c in chosen):
                chosen.append(vm)
                picked += 1
    rho = tuple(float(x) for x in rng.uniform(0.2, 2.0, len(chosen)))
    name = f"random-gcp-{seed}" + ("" if memory == "category" else f"-{memory}")
    return Instance(name, tuple(v[1] for v in chosen), SERVER,
                    tuple(v[2] for v in chosen), rho, tuple(v[0] for v in chosen))


# §7.2 maps Google tasks to types by priority and by size rounded up to a power of 1/2, on
# servers of size 1, with reward = size x (1, 3, 9) for priorities (0, 1, 2). We have no task
# trace, so the mix below is our assumption (small jobs common, high priority rare); only the
# arrival *rate's shape over time* comes from a real series (app/sim/traces.py).
PRIORITY_FACTORS = (1.0, 3.0, 9.0)
PRIORITY_MIX = (0.6, 0.3, 0.1)
SIZE_MIX = {0.5: 0.05, 0.25: 0.10, 0.125: 0.20, 0.0625: 0.30, 0.03125: 0.35}


def priority_workload(load: float = 1.0) -> Instance:
    """§7.2-style instance: one resource, servers of size 1, types = priority x size.

    ``load`` is the mean total size of the jobs in the system per server (sum ρ_j s_j):
    above 1 the cluster cannot hold everything even when packed perfectly.
    """
    mean_size = sum(size * p for size, p in SIZE_MIX.items())
    names, demands, rewards, rho, prio = [], [], [], [], []
    for pr, (factor, p_pr) in enumerate(zip(PRIORITY_FACTORS, PRIORITY_MIX)):
        for size, p_size in SIZE_MIX.items():
            names.append(f"p{pr}-{size:g}")
            demands.append((size,))
            rewards.append(size * factor)
            rho.append(load * p_pr * p_size / mean_size)
            prio.append(pr)
    return Instance(f"priority-{load:g}", tuple(demands), (1.0,), tuple(rewards), tuple(rho),
                    tuple(names), dimensions=("size",), priorities=tuple(prio))
