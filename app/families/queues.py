"""Queued clusters (RMS and the greedy queue baselines): arrivals wait for the scheduler.

They take the job routes of placement clusters plus their own (ticks, job views), answer
202 for an arrival that waits, and keep time with the service's clock hook, whose wall clock
starts at the cluster's creation; the service's background loop ticks their wall-clock
clusters (``tick``)."""

from __future__ import annotations

from app.api.routes import kubernetes
from app.api.routes import placement as jobs
from app.api.routes import queues as routes
from app.api.routes import tenants
from app.api.schemas.clusters import ClusterCreate
from app.api.schemas.queues import (
                                    GreedyQueuePolicy,
                                    QueueArrivalOut,
                                    QueueGangOut,
                                    QueueReleaseOut,
                                    RmsPolicy,
                                    TickOut,
)
from app.api.schemas.state import GreedyQueueState, RmsState
from app.families.base import Family
from app.api.schemas.tenants import QuotasOut
from app.families.clocks import QueueClock
from app.families.placement import declare
from app.policies.rms.family import QueueAdapter

CLOCK = QueueClock()
QUEUES = Family(
    name="queues", adapter=QueueAdapter, collection="clusters",
    policy_models=(RmsPolicy, GreedyQueuePolicy), create_model=ClusterCreate,
    routers=(jobs.router, routes.router, tenants.gangs_router, tenants.quotas_router,
             kubernetes.extender_router),
    answers={"arrival": QueueArrivalOut, "departure": QueueReleaseOut, "tick": TickOut,
             "quotas": QuotasOut, "gang": QueueGangOut},
    state_models=(GreedyQueueState, RmsState),
    time=CLOCK, tick=CLOCK, accepted=frozenset({"queued"}), needs_created_at=True,
    declare=declare)
