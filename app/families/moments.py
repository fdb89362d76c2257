"""Moment-admission clusters: deployments admitted so that scale-outs keep their SLA."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from app.api.routes import deployments, kubernetes, tenants
from app.api.schemas.moments import (
    AdmissionOut,
    MomentClusterCreate,
    MomentPolicy,
    ScaleInOut,
    ScaleOutOut,
    ThresholdDerivation,
)
from app.api.schemas.state import MomentState
from app.api.schemas.tenants import QuotasOut
from app.families.base import Family
from app.families.clocks import MomentClock
from app.policies.errors import InvalidDeclaration
from app.policies.moments.declare import DeclarationError
from app.policies.moments.family import MomentAdapter
from app.policies.moments.recipe import DEFAULT_LIVES, Recipe
from app.config import Settings


def declare(body: MomentClusterCreate, settings: Settings | None = None) -> dict[str, Any]:
    """A new moment cluster as it is stored: the threshold the declaration implies (the
    table's, or a calibration by the recipe the settings name, which the service runs in the
    background) or the declared one, checked; the default cautious start and overflow line,
    resolved once by the adapter's declare step; a declaration that could never start is a
    422 on its policy."""
    p = body.policy
    recipe = Recipe(lives=(settings and settings.calibration_lives) or DEFAULT_LIVES)
    try:
        stored = MomentAdapter.declare(body.capacity_cores, body.sla, p.model_dump(mode="json"),
                                       recipe)
    except DeclarationError as exc:
        raise InvalidDeclaration(str(exc), field="policy") from exc
    declared = body.model_copy(deep=True)
    q = declared.policy
    q.cautious_growth, q.overflow_sd = stored["cautious_growth"], stored["overflow_sd"]
    try:  # what the threshold implies must itself be a valid derivation (bounds in range)
        derivation = ThresholdDerivation(**stored["derivation"])
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise InvalidDeclaration(f"policy.threshold: its derivation.{where}: {first['msg']}",
                                 field="policy.threshold") from exc
    q.threshold, q.derivation = stored["threshold"], derivation
    # A cluster without tenants is stored as it was before tenants existed.
    return declared.model_dump(mode="json",
                               exclude={"tenants"} if body.tenants is None else None)


MOMENTS = Family(
    name="moments", adapter=MomentAdapter, collection="clusters",
    policy_models=(MomentPolicy,), create_model=MomentClusterCreate,
    routers=(deployments.router, kubernetes.admission_router, tenants.quotas_router),
    answers={"deployment": AdmissionOut, "scale_out": ScaleOutOut, "scale_in": ScaleInOut,
             "shutdown": ScaleInOut, "quotas": QuotasOut},
    state_models=(MomentState,), time=MomentClock(), warm=MomentAdapter.warm_up,
    declare=declare)
