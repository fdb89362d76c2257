"""Every error Headroom answers with, each with a stable code (never change these strings).

The API turns these into RFC 9457 problem documents (application/problem+json) whose ``type``
is ``urn:headroom:problem:<code>`` and which also carry ``code`` for clients that switch on it.
"""

from __future__ import annotations

from typing import Any

from app.policies.errors import Category, PolicyError


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
        # RFC 9457 extension members this kind of problem adds to its document.
        self.extensions: dict[str, Any] | None = None


class Unauthorized(HeadroomError):
    status, code, title = 401, "unauthorized", "Missing or invalid API key"

    def __init__(self, detail: str):
        super().__init__(detail, headers={"WWW-Authenticate": 'Bearer realm="headroom"'})


class MetricsUnauthorized(Unauthorized):
    """/metrics without the scrape token (HEADROOM_METRICS_TOKEN)."""

    title = "Missing or invalid metrics token"

    def __init__(self, detail: str):
        HeadroomError.__init__(self, detail, headers={
            "WWW-Authenticate": 'Bearer realm="headroom-metrics"'})


class Forbidden(HeadroomError):
    status, code, title = 403, "forbidden", "Not allowed for this API key"


class NotFound(HeadroomError):
    status, code, title = 404, "not_found", "Not found"


class ClusterNotFound(NotFound):
    code = "cluster_not_found"
    title = "Cluster not found"


class Conflict(HeadroomError):
    status, code, title = 409, "conflict", "Conflict"


class NameTaken(Conflict):
    """``existing_id``, when known, names what holds the name (also in the problem document,
    so a client that lost a creation race, or retried without an Idempotency-Key, can go on
    with the existing one)."""

    code, title = "name_taken", "Name already in use"

    def __init__(self, detail: str, existing_id: str | None = None):
        super().__init__(detail)
        if existing_id is not None:
            self.extensions = {"existing_id": existing_id}


class WrongClusterKind(Conflict):
    """The id names a cluster (or reservation stream) of a family this route does not serve."""

    code, title = "wrong_cluster_kind", "Cluster of another kind"


class IdempotencyKeyReused(Conflict):
    code, title = "idempotency_key_reused", "Idempotency key reused with a different request"


class PreconditionFailed(HeadroomError):
    status, code, title = 412, "precondition_failed", "Precondition failed"


class Unprocessable(HeadroomError):
    status, code, title = 422, "validation_error", "Request is invalid"


class PayloadTooLarge(HeadroomError):
    status, code, title = 413, "payload_too_large", "Request body too large"


class RateLimited(HeadroomError):
    """A request limit refused the request before anything was done (docs/operations.md,
    "Request limits"): the same request may be sent again after ``Retry-After`` seconds."""

    status, code, title = 429, "rate_limited", "Too many requests"

    def __init__(self, detail: str, retry_after: int):
        super().__init__(detail, headers={"Retry-After": str(retry_after)})


class ConcurrencyLimited(RateLimited):
    """The owner has as many expensive requests in flight as a process allows."""

    code, title = "concurrency_limited", "Too many expensive requests in flight"


class Busy(HeadroomError):
    status, code, title = 503, "cluster_busy", "Cluster is busy, retry"


class ShuttingDown(HeadroomError):
    """The process stopped before this request was answered; whether its change committed,
    a retry with the same event id tells (another process, or this one restarted)."""

    status, code, title = 503, "shutting_down", "Server is shutting down, retry"


class StateDivergence(HeadroomError):
    """Replaying the log produced another decision than the one recorded: a bug, said loudly."""

    status, code, title = 500, "state_divergence", "Engine state diverged from the log"


# What each category of engine refusal means over HTTP: the one table (a refusal's code and
# title come from its class, app/policies/errors.py and each family's errors module).
CATEGORY_STATUS: dict[Category, int] = {
    "invalid": 422, "not_found": 404, "conflict": 409, "unsupported": 422}


def from_policy_error(exc: PolicyError) -> HeadroomError:
    field = exc.field
    err = HeadroomError(exc.detail, errors=[{"field": field, "message": exc.detail}]
                        if field else None)
    err.status, err.code, err.title = CATEGORY_STATUS[exc.category], exc.code, exc.title
    return err


def at_event(exc: HeadroomError, index: int, event_id: str) -> HeadroomError:
    """``exc`` refused event ``index`` of a batch: locate it as validation errors are located
    (``events[1].job_type``), so that a client knows which of its events to fix."""
    where = f"events[{index}]"
    exc.errors = [{**e, "field": f"{where}.{e['field']}" if e.get("field") else where}
                  for e in exc.errors] if exc.errors else [{"field": where,
                                                            "message": exc.detail}]
    exc.detail = f"{where} (event_id {event_id!r}): {exc.detail}"
    return exc
