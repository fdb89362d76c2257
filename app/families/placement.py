"""Placement clusters (DRA and the baselines): arrivals placed or rejected at once."""

from __future__ import annotations

from typing import Any

from app.api.routes import kubernetes
from app.api.routes import placement as jobs
from app.api.routes import tenants
from app.api.schemas.clusters import (
                                      BestFitPolicy,
                                      ClusterCreate,
                                      DraPolicy,
                                      FirstFitPolicy,
                                      PowerOfDPolicy,
)
from app.api.schemas.events import PlacementOut, ReleaseOut
from app.api.schemas.state import DraState, FitState, PowerOfDState
from app.api.schemas.tenants import GangOut, QuotasOut
from app.families.base import Family
from app.families.clocks import BudgetClock
from app.policies.placement import PlacementAdapter

def declare(body: ClusterCreate, _settings: Any) -> dict[str, Any]:
    """A cluster without tenants is stored as it was before tenants existed."""
    return body.model_dump(mode="json", exclude={"tenants"} if body.tenants is None else None)

PLACEMENT = Family(
    name="placement", adapter=PlacementAdapter, collection="clusters",
    policy_models=(DraPolicy, FirstFitPolicy, BestFitPolicy, PowerOfDPolicy),
    create_model=ClusterCreate, routers=(jobs.router, tenants.gangs_router, tenants.quotas_router,
             kubernetes.extender_router),
    answers={"arrival": PlacementOut, "departure": ReleaseOut, "gang": GangOut,
             "quotas": QuotasOut},
    state_models=(FitState, PowerOfDState, DraState),
    # Time only for DRA's migration budget (a no-op for every other placement cluster).
    time=BudgetClock(), needs_created_at=True, declare=declare)
