"""Policy kinds the service and the simulator know, by the name clusters declare."""

from __future__ import annotations

from app.policies.base import PlacementEngine
from app.policies.best_fit import BestFit
from app.policies.dra.engine import DRAEngine
from app.policies.first_fit import FirstFit
from app.policies.power_of_d import PowerOfD

PLACEMENT_ENGINES: dict[str, type[PlacementEngine]] = {
    cls.kind: cls for cls in (DRAEngine, FirstFit, BestFit, PowerOfD)
}
