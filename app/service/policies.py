"""How the service drives a cluster's engine: build it from the stored spec, apply one event.

A *family* groups policy kinds that take the same events. Placement policies (DRA and the
baselines) take arrivals and departures; later families plug in here with their own events.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from app.policies.base import DuplicateJob, PlacementEngine
from app.policies.model import ClusterModel, JobType, ServerPool
from app.policies.registry import PLACEMENT_ENGINES


class Family(Protocol):
    event_kinds: frozenset[str]

    def build(self, spec: dict[str, Any]) -> Any: ...

    def restore(self, spec: dict[str, Any], state: dict[str, Any]) -> Any: ...

    def snapshot(self, engine: Any) -> dict[str, Any]: ...

    def apply(self, engine: Any, event: dict[str, Any]) -> dict[str, Any]: ...

    def dry_run(self, engine: Any, event: dict[str, Any]) -> dict[str, Any]: ...

    def describe(self, engine: Any) -> dict[str, Any]: ...


def cluster_model(spec: dict[str, Any]) -> ClusterModel:
    """The engine's view of a stored cluster spec: vectors ordered like ``dimensions``."""
    dims = tuple(spec["dimensions"])
    return ClusterModel(
        dimensions=dims,
        pools=tuple(ServerPool(p["name"], p["count"], tuple(float(p["capacity"][d]) for d in dims))
                    for p in spec["server_pools"]),
        job_types=tuple(JobType(t["name"], tuple(float(t["demand"][d]) for d in dims),
                                float(t["reward"]), int(t.get("priority", 0)))
                        for t in spec["job_types"]),
    )


class PlacementFamily:
    event_kinds = frozenset({"arrival", "departure"})

    def _engine_class(self, spec: dict[str, Any]) -> type[PlacementEngine]:
        return PLACEMENT_ENGINES[spec["policy"]["kind"]]

    @staticmethod
    def _params(spec: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in spec["policy"].items() if k != "kind"}

    def build(self, spec: dict[str, Any]) -> PlacementEngine:
        cls = self._engine_class(spec)
        return cls(cluster_model(spec), self._params(spec), np.random.default_rng(spec["seed"]))

    def restore(self, spec: dict[str, Any], state: dict[str, Any]) -> PlacementEngine:
        return self._engine_class(spec).from_state(cluster_model(spec), self._params(spec), state)

    def snapshot(self, engine: PlacementEngine) -> dict[str, Any]:
        return engine.to_state()

    def apply(self, engine: PlacementEngine, event: dict[str, Any]) -> dict[str, Any]:
        if event["kind"] == "arrival":
            return engine.arrive(event["job_id"], event["job_type"]).to_dict()
        return engine.depart(event["job_id"]).to_dict()

    def dry_run(self, engine: PlacementEngine, event: dict[str, Any]) -> dict[str, Any]:
        if event["kind"] != "arrival":
            raise ValueError("only arrivals can be dry-run")
        if event["job_id"] in engine.jobs:
            raise DuplicateJob(event["job_id"])
        return engine.decide_arrival(event["job_type"]).to_dict()

    def describe(self, engine: PlacementEngine) -> dict[str, Any]:
        return engine.describe()


PLACEMENT = PlacementFamily()


def family_for(kind: str) -> Family:
    if kind in PLACEMENT_ENGINES:
        return PLACEMENT
    raise KeyError(kind)


def known_kinds() -> list[str]:
    return sorted(PLACEMENT_ENGINES)
