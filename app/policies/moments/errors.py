"""The moment engine's refusals: ``PolicyError``s (a code of the table in app/errors.py, and
``ValueError``s) naming the offending field, raised before any mutation. Time going back is
the shared ``TimeWentBackwards``."""

from __future__ import annotations

import math
from typing import Any

from app.errors import REFUSED
from app.policies.errors import PolicyError, TimeWentBackwards

__all__ = ["DeadDeployment", "DuplicateDeployment", "InvalidCores", "InvalidPrior",
           "MomentsError", "TimeWentBackwards", "UnknownDeployment", "check_cores",
           "check_time"]


class MomentsError(PolicyError):
    code = "validation_error"
    title = REFUSED

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message, field=field)


class UnknownDeployment(MomentsError):
    code = "unknown_deployment"


class DeadDeployment(UnknownDeployment):
    """A deployment that shut down: as unknown as one that never came."""


class DuplicateDeployment(MomentsError):
    code = "deployment_exists"


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
