"""The cluster and job mix the benchmarks use: VM types in the style of the DRA paper's Table 2.

Three small (2, 4, 8 vCPU) and three large (32, 64 vCPU) types, with memory per vCPU high
(8 GB), low (1-2 GB) or regular (4 GB); servers of 80 vCPU / 640 GB; reward 8 per vCPU + 1 per
GB (paper §7.1). Small types come first in the list.
"""

from __future__ import annotations

from typing import Any

# (name, vCPU, GB)
VM_TYPES = [
    ("s2-high", 2, 16), ("s4-low", 4, 4), ("s8-regular", 8, 32),
    ("l32-high", 32, 512), ("l64-low", 64, 128), ("l32-regular", 32, 128),
]


def cluster_spec(name: str, servers: int, policy: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": name,
        "dimensions": ["cpu", "memory"],
        "server_pools": [{"name": "s", "count": servers,
                          "capacity": {"cpu": 80, "memory": 640}}],
        "job_types": [{"name": n, "demand": {"cpu": c, "memory": m}, "reward": 8 * c + m}
                      for n, c, m in VM_TYPES],
        "policy": policy,
    }


def cluster_model(servers: int):  # noqa: ANN201 - avoids importing the engine layer at import
    """The same cluster as an engine-level ClusterModel, for in-process benchmarks."""
    from app.policies.model import cluster_model as model_of

    return model_of(cluster_spec("bench", servers, {}))
