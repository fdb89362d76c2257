"""Policy kinds the service and the simulator know, by the name clusters declare."""

from __future__ import annotations

from app.policies.base import PlacementEngine
from app.policies.first_fit import FirstFit

PLACEMENT_ENGINES: dict[str, type[PlacementEngine]] = {
    FirstFit.kind: FirstFit,
}
