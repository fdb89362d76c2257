"""What a policy family declares, and the registry derived from the declarations.

A family is one adapter (``app/policies``: its kinds, its events, build / apply / dry run /
describe / state / gauges, and the capabilities it inherits), plus what the service and the
API need to serve it: optional time and tick hooks, the routers it is served by, the pydantic
models of its policies and answers, where its clusters are created, whether an arrival can be
accepted for later (202) and whether its clusters need their creation time. The service looks
families up in a ``FamilyRegistry`` built from the declarations (``app/families/registry.py``,
or those an application is given), never in a list of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Annotated, Any, Generic, Literal, Protocol, TypeVar

from fastapi import APIRouter
from pydantic import BaseModel, Discriminator, Field, Tag

from app.policies.protocol import Decision, PolicyAdapter

E = TypeVar("E", bound=PolicyAdapter[Any])
E_contra = TypeVar("E_contra", bound=PolicyAdapter[Any], contravariant=True)


@dataclass(frozen=True)
class NothingToDo:
    """A time hook's verdict on an event that would change nothing: it is answered with
    ``decision`` and neither applied nor logged."""

    decision: Decision


class TimeHook(Protocol[E_contra]):
    """Time kept by the service for a family whose engines take time as an input."""

    def prepare(self, adapter: E_contra, created_at: datetime, event: dict[str, Any]
                ) -> dict[str, Any] | NothingToDo:
        """The event as the engine (and the log, for replay) will see it: its time filled in
        or checked, inside the event's transaction."""

    def describe(self, adapter: E_contra, created_at: datetime) -> dict[str, Any]:
        """Fields of the state view that need the wall clock."""


class TickHook(Protocol[E_contra]):
    """Time that moves between events: the service's background loop (app/service/ticker.py)
    sends a ``tick`` event to each of the family's clusters whose declaration says
    ``policy.clock`` is "wall", unless the hook says it can wait."""

    def can_wait(self, adapter: E_contra, created_at: datetime) -> bool:
        """Whether ticking this cluster now can wait for a later pass (nothing a client could
        see is due)."""


@dataclass(frozen=True, eq=False)
class Family(Generic[E]):
    name: str
    adapter: type[E]
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
    # Clusters the background loop ticks (their engines' clocks fire between events).
    tick: TickHook[E] | None = None
    # Decisions an arrival route answers with 202 Accepted (decided later) rather than 200.
    accepted: frozenset[str] = frozenset()
    # Whether the decision path needs the cluster's creation time (a wall clock's origin).
    needs_created_at: bool = False
    # Runs what the family's first decision would compile (numba), before /readyz says ready.
    warm: Callable[[], None] | None = None
    # The stored form of a new declaration's validated body, where the family resolves
    # defaults once, at creation (so later releases never change an existing cluster);
    # refuses with an InvalidDeclaration. Given the service's settings (a moment cluster's
    # calibration recipe reads them). None: the body as validated is the declaration.
    declare: Callable[[Any, Any], dict[str, Any]] | None = None

    def declaration(self, body: BaseModel, settings: Any) -> dict[str, Any]:
        """What a new cluster's spec is stored as."""
        return (body.model_dump(mode="json") if self.declare is None
                else self.declare(body, settings))

    @property
    def kinds(self) -> tuple[str, ...]:
        return self.adapter.kinds

    @property
    def event_kinds(self) -> frozenset[str]:
        return self.adapter.event_kinds

    def build(self, spec: Mapping[str, Any]) -> E:
        return self.adapter.build(spec)

    def restore(self, spec: Mapping[str, Any], state: Mapping[str, Any]) -> E:
        return self.adapter.from_state(spec, state)

    def has(self, capability: type) -> bool:
        """Whether this family's adapter offers ``capability`` (app/policies/capabilities.py)."""
        return issubclass(self.adapter, capability)

    def describe(self, adapter: E, created_at: datetime | None) -> dict[str, Any]:
        view = adapter.describe()
        if self.time is not None and created_at is not None:
            view.update(self.time.describe(adapter, created_at))
        return view

    def __repr__(self) -> str:
        return f"Family({self.name!r})"


class FamilyRegistry:
    """Every declared family, and what derives from the declarations."""

    def __init__(self, families: Iterable[Family[Any]] = ()):
        self.families: tuple[Family[Any], ...] = tuple(families)
        self._by_kind: dict[str, Family[Any]] = {}
        self._by_endpoint: dict[Callable[..., Any], list[Family[Any]]] = {}
        self._ticked = {kind: f for f in self.families if f.tick is not None
                        for kind in f.kinds}
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

    def ticked(self) -> dict[str, Family[Any]]:
        """The families the background loop ticks, by policy kind."""
        return self._ticked

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

    def create_body(self, collection: str) -> Any:
        """The body POST /v1/<collection> takes: the create models of the collection's families,
        told apart by ``policy.kind``. An unknown kind goes to the first model, whose ``kind``
        refuses it with a 422 naming ``policy.kind``."""
        models: list[Any] = []
        for family in self.in_collection(collection):
            if family.create_model not in models:
                models.append(family.create_model)
        tags = {kind: f.create_model.__name__ for f in self.in_collection(collection)
                for kind in f.kinds}

        def tag(body: Any) -> str:
            policy = body.get("policy") if isinstance(body, dict) else getattr(body, "policy", None)
            kind = policy.get("kind") if isinstance(policy, dict) else getattr(policy, "kind", None)
            return tags.get(kind, models[0].__name__) if isinstance(kind, str) else \
                models[0].__name__

        if len(models) == 1:
            return models[0]
        union = Annotated[models[0], Tag(models[0].__name__)]
        for m in models[1:]:
            union = union | Annotated[m, Tag(m.__name__)]
        return Annotated[union, Discriminator(tag)]

    def state_view(self, collection: str) -> Any:
        """What GET .../state answers for the collection's clusters: the families' state models,
        told apart by ``policy`` (the cluster's kind)."""
        models = [m for f in self.in_collection(collection) for m in f.state_models]
        if not models:  # nothing declared: an untyped object (tests/families/test_families.py asks for them)
            return dict[str, Any]
        union = models[0]
        for m in models[1:]:
            union = union | m
        return Annotated[union, Field(discriminator="policy")] if len(models) > 1 else union
