"""Refusals shared by the placement engines, each with a stable machine-readable ``code``."""

from __future__ import annotations

from typing import ClassVar


class PolicyError(Exception):
    """A request the engine refuses; carries a stable machine-readable code."""

    code: ClassVar[str] = "policy_error"

    def __init__(self, detail: str):
        super().__init__(detail)
        self.detail = detail


class UnknownJobType(PolicyError):
    code = "unknown_job_type"

    def __init__(self, name: str):
        super().__init__(f"job type {name!r} is not declared by this cluster")


class UnknownJob(PolicyError):
    code = "unknown_job"

    def __init__(self, job_id: str):
        super().__init__(f"job {job_id!r} is not running in this cluster")


class DuplicateJob(PolicyError):
    code = "job_already_running"

    def __init__(self, job_id: str):
        super().__init__(f"job {job_id!r} is already running in this cluster")


class UnknownServer(PolicyError):
    code = "unknown_server"

    def __init__(self, server_id: str):
        super().__init__(f"server {server_id!r} does not exist in this cluster")
