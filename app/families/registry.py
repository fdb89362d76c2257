"""Every declared family, in the order their routers are mounted."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Discriminator, Field, Tag

from app.families.base import FamilyRegistry
from app.families.moments import MOMENTS
from app.families.placement import PLACEMENT
from app.families.queues import QUEUES
from app.families.reservations import RESERVATIONS

REGISTRY = FamilyRegistry((PLACEMENT, QUEUES, MOMENTS, RESERVATIONS))


def create_body(registry: FamilyRegistry, collection: str) -> Any:
    """The body POST /v1/<collection> takes: the create models of the collection's families,
    told apart by ``policy.kind``. An unknown kind goes to the first model, whose ``kind``
    refuses it with a 422 naming ``policy.kind``."""
    models: list[Any] = []
    for family in registry.in_collection(collection):
        if family.create_model not in models:
            models.append(family.create_model)
    tags = {kind: f.create_model.__name__ for f in registry.in_collection(collection)
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


def state_view(registry: FamilyRegistry, collection: str) -> Any:
    """What GET .../state answers for the collection's clusters: the families' state models,
    told apart by ``policy`` (the cluster's kind)."""
    models = [m for f in registry.in_collection(collection) for m in f.state_models]
    if not models:  # nothing declared: an untyped object (tests/test_families.py asks for them)
        return dict[str, Any]
    union = models[0]
    for m in models[1:]:
        union = union | m
    return Annotated[union, Field(discriminator="policy")] if len(models) > 1 else union
