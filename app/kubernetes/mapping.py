"""From Kubernetes names to Headroom's: a pod's requests to a job type, a node to a server.

Job type: each cluster dimension is the Kubernetes resource of the same name, with ":" in a
dimension name standing for the "/" a dimension name cannot hold (``nvidia.com:gpu`` is
``nvidia.com/gpu``); units as ``resources.in_headroom_units``. A pod is the *smallest*
declared type whose demand covers its requests in every dimension: smallest by the sum over
dimensions of demand / the largest capacity any pool has there (so "small" means "takes the
least of a server"), ties broken by declaration order. A pod that requests a resource the
cluster has no dimension for is refused: Headroom cannot account for what it cannot see.

Server: a node's name *is* its server id (``<pool>-<i>``, the ids every Headroom answer uses).
Bind requests carry only the node name, and kube-scheduler with ``nodeCacheCapable`` sends
only names, so the map has to be computable from the name alone; naming nodes after their
server (kubelet ``--hostname-override``, or node pools named like Headroom's pools) is the
one rule that needs no extra state. A node whose name is no server id is not Headroom's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from app.kubernetes.objects import PodSpec
from app.kubernetes.resources import in_headroom_units
from app.policies.model import FIT_TOLERANCE, ClusterModel


@dataclass(frozen=True)
class NoJobType:
    """The pod fits no declared job type; ``reason`` says which resource is too big."""

    reason: str
    details: dict[str, object]


def dimension_resource(dimension: str) -> str:
    return dimension.replace(":", "/")


def requests_of(spec: PodSpec | None) -> dict[str, float]:
    """A pod spec's effective requests (``PodSpec.requests``) in Headroom's units."""
    if spec is None:
        return {}
    return {name: in_headroom_units(name, v) for name, v in spec.requests().items()}


def job_type_for(model: ClusterModel, requests: Mapping[str, float]) -> str | NoJobType:
    resources = [dimension_resource(d) for d in model.dimensions]
    unknown = sorted(r for r, v in requests.items() if v > 0 and r not in resources)
    if unknown:
        return NoJobType("resource_not_modelled", {
            "requests": dict(requests), "unknown_resources": unknown,
            "dimensions": list(model.dimensions)})
    wanted = [requests.get(r, 0.0) for r in resources]
    scale = [max(p.capacity[d] for p in model.pools) or 1.0 for d in range(len(resources))]
    best: tuple[float, int] | None = None
    for i, t in enumerate(model.job_types):
        if all(w <= x + FIT_TOLERANCE for w, x in zip(wanted, t.demand)):
            size = sum(x / s for x, s in zip(t.demand, scale))
            if best is None or size < best[0]:
                best = (size, i)
    if best is None:
        largest = {t.name: dict(zip(resources, t.demand)) for t in model.job_types}
        return NoJobType("no_job_type_covers_requests", {
            "requests": dict(zip(resources, wanted)), "job_types": largest})
    return model.job_types[best[1]].name


def server_of(model: ClusterModel, node_name: str) -> int | None:
    """The server number of a node, or None when the node is not one of the cluster's."""
    return model.server_numbers.get(node_name)
