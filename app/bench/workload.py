"""The cluster and job mix the benchmarks use: the DRA paper's Table 2 style VM types.

Servers of 80 vCPU / 640 GB; reward 8 per vCPU + 1 per GB (paper §7.1). Three small and three
large GCP-like types, so configurations are rich enough to make the policies work.
"""

from __future__ import annotations

from typing import Any

# (name, vCPU, GB)
VM_TYPES = [
    ("n1-standard-1", 1, 3.75), ("n1-standard-2", 2, 7.5), ("n1-standard-4", 4, 15),
    ("n1-highmem-16", 16, 104), ("n1-highmem-32", 32, 208), ("n1-highcpu-64", 64, 57.6),
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
