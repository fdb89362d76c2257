"""The moment engine's refusals: ``PolicyError``s (stable code, category) that are also
``ValueError``s naming the offending field, raised before any mutation."""

from __future__ import annotations

import math
from typing import Any

from app.policies.errors import PolicyError


class MomentsError(PolicyError, ValueError):
    code = "validation_error"

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


class UnknownDeployment(MomentsError):
    code, category, title = "unknown_deployment", "not_found", "Unknown deployment"


class DeadDeployment(UnknownDeployment):
    """A deployment that shut down: as unknown as one that never came."""


class DuplicateDeployment(MomentsError):
    code, category, title = "deployment_exists", "conflict", "Deployment already exists"


class TimeWentBackwards(MomentsError):
    code, category, title = "time_went_backwards", "conflict", "Time went backwards"


class InvalidCores(MomentsError):
    pass


class InvalidPrior(MomentsError):
    pass


def check_time(now: float, at: Any) -> float:
    at = float(at)
    if not math.isfinite(at) or at < now:
        raise TimeWentBackwards("at", f"time {at} is before the engine's time {now}")
    return at


def check_cores(cores: Any) -> int:
    import numpy as np

    if isinstance(cores, bool) or not isinstance(cores, (int, np.integer)) or cores <= 0:
        raise InvalidCores("cores", "cores must be a positive integer")
    return int(cores)
