"""Every error Headroom answers with, each with a stable code (never change these strings).

The API turns these into RFC 9457 problem documents (application/problem+json) whose ``type``
is ``urn:headroom:problem:<code>`` and which also carry ``code`` for clients that switch on it.
"""

from __future__ import annotations

from typing import Any

from app.policies.base import DuplicateJob, PolicyError, UnknownJob, UnknownJobType, UnknownServer
from app.policies.rms import errors as rms


class HeadroomError(Exception):
    status: int = 500
    code: str = "internal_error"
    title: str = "Internal error"

    def __init__(self, detail: str, *, errors: list[dict[str, Any]] | None = None,
                 headers: dict[str, str] | None = None):
        super().__init__(detail)
        self.detail = detail
        self.errors = errors
        self.headers = headers


class Unauthorized(HeadroomError):
    status, code, title = 401, "unauthorized", "Missing or invalid API key"

    def __init__(self, detail: str):
        super().__init__(detail, headers={"WWW-Authenticate": 'Bearer realm="headroom"'})


class Forbidden(HeadroomError):
    status, code, title = 403, "forbidden", "Not allowed for this API key"


class NotFound(HeadroomError):
    status, code, title = 404, "not_found", "Not found"


class ClusterNotFound(NotFound):
    code = "cluster_not_found"
    title = "Cluster not found"


class ReservationNotFound(NotFound):
    code = "reservation_not_found"
    title = "Reservation not found"


class Conflict(HeadroomError):
    status, code, title = 409, "conflict", "Conflict"


class NameTaken(Conflict):
    code, title = "name_taken", "Name already in use"


class IdempotencyKeyReused(Conflict):
    code, title = "idempotency_key_reused", "Idempotency key reused with a different request"


class PreconditionFailed(HeadroomError):
    status, code, title = 412, "precondition_failed", "Precondition failed"


class Unprocessable(HeadroomError):
    status, code, title = 422, "validation_error", "Request is invalid"


class PayloadTooLarge(HeadroomError):
    status, code, title = 413, "payload_too_large", "Request body too large"


class Busy(HeadroomError):
    status, code, title = 503, "cluster_busy", "Cluster is busy, retry"


class StateDivergence(HeadroomError):
    """Replaying the log produced another decision than the one recorded: a bug, said loudly."""

    status, code, title = 500, "state_divergence", "Engine state diverged from the log"


# Engine refusals and the HTTP status each one means.
POLICY_ERROR_STATUS: dict[type[PolicyError], tuple[int, str]] = {
    UnknownJobType: (404, "Unknown job type"),
    UnknownJob: (404, "Unknown job"),
    UnknownServer: (404, "Unknown server"),
    DuplicateJob: (409, "Job already running"),
    rms.UnknownJobTypeError: (404, "Unknown job type"),
    rms.UnknownJobError: (404, "Unknown job"),
    rms.DuplicateJobError: (409, "Job already known"),
    rms.JobNotRunningError: (409, "Job is not running"),
    rms.TimeWentBackwardsError: (409, "Time went backwards"),
}


def from_policy_error(exc: PolicyError) -> HeadroomError:
    status, title = POLICY_ERROR_STATUS.get(type(exc), (422, "Request refused by the policy"))
    if exc.code == "period_conflict":
        status, title = 409, "Period out of order"
    status = getattr(exc, "status", status)
    field = getattr(exc, "field", None)
    err = HeadroomError(exc.detail, errors=[{"field": field, "message": exc.detail}]
                        if field else None)
    err.status, err.code, err.title = status, exc.code, title
    return err
