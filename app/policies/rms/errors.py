"""Errors of the queueing (RMS) engines that no other family raises; the shared ones (unknown
job type, unknown job, duplicate job, time going back) are app/policies/errors.py's.

They are ``PolicyError``s (a code of the table in app/errors.py, and ``ValueError``s: the
simulator and the tests treat them as bad input). ``field`` names the argument that was
refused. Every one is raised before any mutation.
"""

from __future__ import annotations

from app.errors import REFUSED
from app.policies.errors import PolicyError


class RmsInputError(PolicyError):
    code = "invalid_request"
    title = REFUSED

    def __init__(self, detail: str, field: str):
        super().__init__(detail, field=field)


class JobNotRunningError(RmsInputError):
    code = "job_not_running"

    def __init__(self, job_id: str, status: str):
        super().__init__(f"job {job_id!r} is {status}, not running", "job_id")


class BadParameterError(RmsInputError):
    code = "bad_parameter"

    def __init__(self, name: str, detail: str):
        super().__init__(f"parameter {name!r}: {detail}", name)
