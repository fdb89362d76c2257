"""What a policy family declares, and the registry derived from the declarations.

A family is one engine adapter (``app/policies``: its kinds, its events, build / apply /
dry run / describe / state), plus what the service and the API need to serve it: an optional
time hook, the routers it is served by, the pydantic models of its policies and answers, where
its clusters are created, whether an arrival can be accepted for later (202) and whether its
clusters need their creation time. The service looks families up in a ``FamilyRegistry``
built from the declarations (``app/families/__init__.py``), never in a list of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, Literal, Protocol, TypeVar

from fastapi import APIRouter
from pydantic import BaseModel

from app.policies.protocol import Decision, FamilyEngine

E = TypeVar("E", bound=FamilyEngine[Any])
E_contra = TypeVar("E_contra", bound=FamilyEngine[Any], contravariant=True)


@dataclass(frozen=True)
class NothingToDo:
    """A time hook's verdict on an event that would change nothing: it is answered with
    ``decision`` and neither applied nor logged."""

    decision: Decision


class TimeHook(Protocol[E_contra]):
    """Time kept by the service for a family whose engines take time as an input."""

    def prepare(self, engine: E_contra, created_at: datetime, event: dict[str, Any]
                ) -> dict[str, Any] | NothingToDo:
        """The event as the engine (and the log, for replay) will see it: its time filled in
        or checked, inside the event's transaction."""

    def describe(self, engine: E_contra, created_at: datetime) -> dict[str, Any]:
        """Fields of the state view that need the wall clock."""


@dataclass(frozen=True, eq=False)
class Family(Generic[E]):
    name: str
    engine: type[E]
    # Where its clusters are declared: "clusters" (/v1/clusters) or "reservations".
    collection: Literal["clusters", "reservations"]
    # Models of the declaration's ``policy`` (one per kind or group of kinds), for the create
    # body's discriminator.
    policy_models: tuple[type[BaseModel], ...]
    # The body POST /v1/<collection> takes for this family.
    create_model: type[BaseModel]
    # Routers that serve this family's own routes (a router may serve several families).
    routers: tuple[APIRouter, ...]
    # What each event kind answers, by model: routes serialise a decision with its family's.
    answers: Mapping[str, type[BaseModel]] = field(default_factory=dict)
    # What GET .../state answers for its kinds (app/api/schemas/state.py), each model told
    # apart by a ``policy`` literal: every kind in exactly one of them.
    state_models: tuple[type[BaseModel], ...] = ()
    time: TimeHook[E] | None = None
    # Decisions an arrival route answers with 202 Accepted (decided later) rather than 200.
    accepted: frozenset[str] = frozenset()
    # Whether the decision path needs the cluster's creation time (a wall clock's origin).
    needs_created_at: bool = False
    # Runs what the family's first decision would compile (numba), before /readyz says ready.
    warm: Callable[[], None] | None = None

    @property
    def kinds(self) -> tuple[str, ...]:
        return self.engine.kinds

    @property
    def event_kinds(self) -> frozenset[str]:
        return self.engine.event_kinds

    def build(self, spec: Mapping[str, Any]) -> E:
        return self.engine.build(spec)

    def restore(self, spec: Mapping[str, Any], state: Mapping[str, Any]) -> E:
        return self.engine.from_state(spec, state)

    def describe(self, engine: E, created_at: datetime | None) -> dict[str, Any]:
        view = engine.describe()
        if self.time is not None and created_at is not None:
            view.update(self.time.describe(engine, created_at))
        return view

    def __repr__(self) -> str:
        return f"Family({self.name!r})"


class FamilyRegistry:
    """Every declared family, and what derives from the declarations."""

    def __init__(self, families: Iterable[Family[Any]] = ()):
        self.families: tuple[Family[Any], ...] = tuple(families)
        self._by_kind: dict[str, Family[Any]] = {}
        self._by_endpoint: dict[Callable[..., Any], list[Family[Any]]] = {}
        for family in self.families:
            for kind in family.kinds:
                if kind in self._by_kind:
                    raise ValueError(f"policy kind {kind!r} declared by {family.name} and "
                                     f"{self._by_kind[kind].name}")
                self._by_kind[kind] = family
            for router in family.routers:
                for route in router.routes:
                    self._by_endpoint.setdefault(route.endpoint, []).append(family)

    def family_for(self, kind: str) -> Family[Any]:
        """The family of a stored cluster's kind. Every stored kind is declared: creation
        only accepts the kinds of the declared policy models."""
        return self._by_kind[kind]

    def in_collection(self, collection: str) -> tuple[Family[Any], ...]:
        return tuple(f for f in self.families if f.collection == collection)

    def kinds(self, collection: str) -> list[str]:
        return sorted(k for f in self.in_collection(collection) for k in f.kinds)

    def serving(self, endpoint: Callable[..., Any]) -> tuple[Family[Any], ...]:
        """The families whose declared routers hold this endpoint."""
        return tuple(self._by_endpoint.get(endpoint, ()))

    def routers(self) -> list[APIRouter]:
        """Every declared router once, in declaration order (the order they are mounted)."""
        out: list[APIRouter] = []
        for family in self.families:
            out += [r for r in family.routers if all(r is not o for o in out)]
        return out

    def routes_of(self, family: Family[Any]) -> list[str]:
        """``METHOD path`` of every route serving ``family``'s clusters, for a client that
        sent one of its clusters to another family's route."""
        return [f"{method} {route.path}" for router in family.routers for route in router.routes
                for method in sorted(getattr(route, "methods", ()) or ())]
