"""Validation errors: ValueError subclasses naming the offending field, raised before any mutation."""

from __future__ import annotations

import math
from typing import Any


class MomentsError(ValueError):
    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


class UnknownDeployment(MomentsError):
    pass


class DeadDeployment(MomentsError):
    pass


class DuplicateDeployment(MomentsError):
    pass


class TimeWentBackwards(MomentsError):
    pass


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
