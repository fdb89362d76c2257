"""Placement clusters (DRA and the baselines) as the service drives them: an arrival is placed
or rejected at once, a departure frees its slot."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self

import numpy as np

from app.policies.base import Placement, PlacementEngine, Release
from app.policies.errors import ClockRefused, DuplicateJob, NoDryRun
from app.policies.model import cluster_model
from app.policies.protocol import Event, FamilyEngine, Spec
from app.policies.registry import PLACEMENT_ENGINES


def _params(spec: Spec) -> dict[str, Any]:
    return {k: v for k, v in spec["policy"].items() if k != "kind"}


def _no_time(event: Event) -> None:
    if event.get("at") is not None:
        raise ClockRefused("at", "a placement cluster decides at once and takes no time")


class PlacementFamily(FamilyEngine[PlacementEngine]):
    kinds = tuple(PLACEMENT_ENGINES)
    event_kinds = frozenset({"arrival", "departure"})

    @classmethod
    def build(cls, spec: Spec) -> Self:
        engine_class = PLACEMENT_ENGINES[spec["policy"]["kind"]]
        return cls(engine_class(cluster_model(spec), _params(spec),
                                np.random.default_rng(spec["seed"])))

    @classmethod
    def from_state(cls, spec: Spec, state: Mapping[str, Any]) -> Self:
        engine_class = PLACEMENT_ENGINES[spec["policy"]["kind"]]
        return cls(engine_class.from_state(cluster_model(spec), _params(spec), dict(state)))

    def apply(self, event: Event) -> Placement | Release:
        _no_time(event)
        if event["kind"] == "arrival":
            return self.engine.arrive(event["job_id"], event["job_type"])
        return self.engine.depart(event["job_id"])

    def follow(self, event: Event, answer: Mapping[str, Any]) -> bool:
        if not self.engine.follows_answers:
            return False
        _no_time(event)
        if event["kind"] == "arrival":
            placed = answer.get("decision") == "placed"
            self.engine.follow_arrival(event["job_id"], event["job_type"],
                                       answer.get("server_id") if placed else None)
        else:  # a departure is the same bookkeeping whether decided or followed
            self.engine.depart(event["job_id"])
        return True

    def dry_run(self, event: Event) -> Placement:
        if event["kind"] != "arrival":
            raise NoDryRun("only arrivals can be dry-run")
        _no_time(event)
        if event["job_id"] in self.engine.jobs:
            raise DuplicateJob(event["job_id"])
        return self.engine.decide_arrival(event["job_type"])

    def describe(self) -> dict[str, Any]:
        return self.engine.describe()

    def to_state(self) -> dict[str, Any]:
        return self.engine.to_state()
