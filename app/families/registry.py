"""Every declared family, in the order their routers are mounted."""

from __future__ import annotations

from app.families.base import FamilyRegistry
from app.families.moments import MOMENTS
from app.families.placement import PLACEMENT
from app.families.queues import QUEUES
from app.families.reservations import RESERVATIONS

REGISTRY = FamilyRegistry((PLACEMENT, QUEUES, MOMENTS, RESERVATIONS))
