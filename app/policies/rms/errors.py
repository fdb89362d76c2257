"""Errors of the queueing (RMS) engines.

They are ``ValueError``s (the simulator and the tests treat them as bad input) and
``PolicyError``s (so the service can map them to a stable ``code`` like the other engines).
``field`` names the argument that was refused. Every one is raised before any mutation.
"""

from __future__ import annotations

from app.policies.errors import DuplicateJob, PolicyError


class RmsInputError(PolicyError, ValueError):
    code = "invalid_request"

    def __init__(self, detail: str, field: str):
        super().__init__(detail)
        self.field = field


class UnknownJobTypeError(RmsInputError):
    code, category, title = "unknown_job_type", "not_found", "Unknown job type"

    def __init__(self, name: object):
        super().__init__(f"job type {name!r} is not declared by this cluster", "job_type")


class UnknownJobError(RmsInputError):
    code, category, title = "unknown_job", "not_found", "Unknown job"

    def __init__(self, job_id: object):
        super().__init__(f"job {job_id!r} is not known to this scheduler", "job_id")


class JobNotRunningError(RmsInputError):
    code, category, title = "job_not_running", "conflict", "Job is not running"

    def __init__(self, job_id: str, status: str):
        super().__init__(f"job {job_id!r} is {status}, not running", "job_id")


class DuplicateJobError(RmsInputError):
    code, category, title = DuplicateJob.code, DuplicateJob.category, DuplicateJob.title

    def __init__(self, job_id: str):
        super().__init__(f"job {job_id!r} is already queued, running or recently finished",
                         "job_id")


class TimeWentBackwardsError(RmsInputError):
    code, category, title = "time_went_backwards", "conflict", "Time went backwards"

    def __init__(self, field: str, at: object, now: float):
        super().__init__(f"{field}={at!r} is before the scheduler's clock {now!r}", field)


class BadParameterError(RmsInputError):
    code = "bad_parameter"

    def __init__(self, name: str, detail: str):
        super().__init__(f"parameter {name!r}: {detail}", name)

