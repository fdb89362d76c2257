"""Moment-admission clusters: deployments admitted so that scale-outs keep their SLA."""

from __future__ import annotations

from app.api.routes import deployments, kubernetes
from app.api.schemas.moments import (
                                     AdmissionOut,
                                     MomentClusterCreate,
                                     MomentPolicy,
                                     ScaleInOut,
                                     ScaleOutOut,
)
from app.api.schemas.state import MomentState
from app.families.base import Family
from app.families.clocks import MomentClock
from app.policies.moments.family import MomentAdapter

MOMENTS = Family(
    name="moments", adapter=MomentAdapter, collection="clusters",
    policy_models=(MomentPolicy,), create_model=MomentClusterCreate,
    routers=(deployments.router, kubernetes.admission_router),
    answers={"deployment": AdmissionOut, "scale_out": ScaleOutOut, "scale_in": ScaleInOut,
             "shutdown": ScaleInOut},
    state_models=(MomentState,), time=MomentClock(), warm=MomentAdapter.warm_up)
