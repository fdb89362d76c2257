"""Validation errors: ValueError subclasses naming the offending field, raised before any mutation."""

from __future__ import annotations


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
