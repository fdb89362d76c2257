"""Every error Headroom answers with: one table of stable codes and one exception hierarchy.

``CODES`` lists each code once with its HTTP status, its title and what it means; clients
switch on the code, so its string never changes. Every exception is a ``HeadroomError`` whose
class names one code of the table (an unknown code fails at import); the status and the title
come from the table. The API turns them into RFC 9457 problem documents (application/
problem+json) whose ``type`` is ``urn:headroom:problem:<code>`` and which also carry ``code``.

The policy engines' refusals (``app/policies/errors.py`` and each family's errors module) are
``HeadroomError``s too, so this module imports nothing of the application: every layer may
raise from it. ``python -m app.errors --markdown > docs/errors.md`` writes the page of codes.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any, ClassVar


@dataclass(frozen=True)
class ErrorCode:
    code: str
    status: int | None  # None: the status of the HTTP error the framework raised
    title: str
    meaning: str
    # Titles some refusals of this code carry instead (an engine's "Request refused by the
    # policy" where the request passed the schema but not the engine's own checks).
    other_titles: tuple[str, ...] = ()

    @property
    def titles(self) -> tuple[str, ...]:
        return (self.title, *self.other_titles)


REFUSED = "Request refused by the policy"

_TABLE = (
    # The request itself
    ErrorCode("malformed_json", 400, "Malformed JSON", "The body is not JSON (or not UTF-8)."),
    ErrorCode("validation_error", 422, "Request is invalid",
              "A field is missing, of the wrong type or out of range, or the engine refuses "
              "the value; `errors` names each offending field.", (REFUSED,)),
    ErrorCode("invalid_request", 422, REFUSED,
              "A queue scheduler refuses an argument (answered as one of its more precise "
              "codes, such as job_not_running)."),
    ErrorCode("bad_parameter", 422, REFUSED,
              "A queue policy's parameter is out of its range (a declaration sent to the API "
              "is answered validation_error on `policy`)."),
    ErrorCode("clock_jump_too_large", 422, "Event time too far ahead",
              "An event's time is more than ten years past the cluster's clock."),
    ErrorCode("dry_run_unsupported", 422, "Dry run not supported",
              "This engine cannot decide the event without deciding it for real."),
    ErrorCode("payload_too_large", 413, "Request body too large",
              "The body is over the size limit."),
    ErrorCode("method_not_allowed", 405, "Method not allowed",
              "The path does not serve this method; `Allow` lists those it serves."),
    ErrorCode("http_error", None, "HTTP error",
              "Any other error of the HTTP layer, with its own status."),
    # Who asks
    ErrorCode("unauthorized", 401, "Missing or invalid API key",
              "No API key, or one that is unknown or revoked (at /metrics: the scrape token).",
              ("Missing or invalid metrics token",)),
    ErrorCode("forbidden", 403, "Not allowed for this API key",
              "The key lacks the scope, or is a write key limited to other clusters."),
    # What is named
    ErrorCode("not_found", 404, "Not found", "No such path or resource."),
    ErrorCode("cluster_not_found", 404, "Cluster not found",
              "No such cluster or reservation stream, or another owner's."),
    ErrorCode("unknown_job_type", 404, "Unknown job type",
              "The cluster declares no job type of this name."),
    ErrorCode("unknown_job", 404, "Unknown job", "The cluster holds no job of this id."),
    ErrorCode("unknown_server", 404, "Unknown server", "The cluster has no server of this id."),
    ErrorCode("what_if_not_found", 404, "What-if run not found",
              "The cluster has no what-if run of this id."),
    ErrorCode("unknown_tenant", 404, "Unknown tenant",
              "The cluster declares no tenant of this name."),
    ErrorCode("unknown_deployment", 404, "Unknown deployment",
              "The moment cluster holds no live deployment of this id."),
    # What the state contradicts
    ErrorCode("conflict", 409, "Conflict",
              "The request contradicts the cluster's state or was overtaken by a concurrent "
              "change; retry."),
    ErrorCode("name_taken", 409, "Name already in use",
              "The owner has a cluster or stream of this name; `existing_id` names it."),
    ErrorCode("wrong_cluster_kind", 409, "Cluster of another kind",
              "The id names a cluster of a family this route does not serve."),
    ErrorCode("idempotency_key_reused", 409, "Idempotency key reused with a different request",
              "The event id or Idempotency-Key was used before with another body."),
    ErrorCode("job_already_known", 409, "Job already known",
              "The cluster already holds a job of this id (running, or for a queue also "
              "waiting or recently finished)."),
    ErrorCode("job_not_running", 409, "Job is not running",
              "The job finished or was withdrawn."),
    ErrorCode("deployment_exists", 409, "Deployment already exists",
              "The moment cluster already holds a deployment of this id."),
    ErrorCode("time_went_backwards", 409, "Time went backwards",
              "The event's time is before the cluster's clock."),
    ErrorCode("period_conflict", 409, "Period out of order",
              "A reservation stream's observation is not for the next period."),
    ErrorCode("too_many_what_ifs", 409, "Too many what-if runs open",
              "The cluster already has the most what-if runs queued or running at once; "
              "wait for one to finish, or cancel one."),
    ErrorCode("precondition_failed", 412, "Precondition failed",
              "If-Match does not match the current generation."),
    # Limits and availability
    ErrorCode("rate_limited", 429, "Too many requests",
              "Too many requests per second from this key or its owner; send it again after "
              "`Retry-After` seconds."),
    ErrorCode("concurrency_limited", 429, "Too many expensive requests in flight",
              "The owner has as many expensive requests in flight as a process allows; send "
              "it again after `Retry-After` seconds."),
    ErrorCode("cluster_busy", 503, "Cluster is busy, retry",
              "The cluster stayed locked by other requests too long; retrying with the same "
              "event id is safe."),
    ErrorCode("shutting_down", 503, "Server is shutting down, retry",
              "The process stopped before answering; a retry with the same event id tells "
              "whether the change committed."),
    ErrorCode("database_unavailable", 503, "Database unavailable",
              "The database could not be reached; retrying with the same event id is safe."),
    # Bugs, said loudly
    ErrorCode("state_divergence", 500, "Engine state diverged from the log",
              "Replaying the log gave another decision than the one recorded."),
    ErrorCode("database_went_backwards", 500, "Database went backwards",
              "The database holds an older version of the cluster than this process already "
              "saw committed (a failover or restore lost commits); nothing was decided."),
    ErrorCode("internal_error", 500, "Internal error",
              "The server failed to handle the request; it was logged."),
)

# Headroom's own codes (the page docs/errors.md lists, the set tests pin).
BUILT_IN: dict[str, ErrorCode] = {entry.code: entry for entry in _TABLE}
# Every code an error class may name: the built-in ones, and those families served from
# outside app/ add with ``define`` (create_app(families=...)).
CODES: dict[str, ErrorCode] = dict(BUILT_IN)


def define(entry: ErrorCode) -> ErrorCode:
    """Add a code of a family served from outside app/, before the class that names it is
    defined. Defining a code again is allowed only with the same fields: a code means one
    thing to every client."""
    known = CODES.setdefault(entry.code, entry)
    if known != entry:
        raise ValueError(f"error code {entry.code!r} is already defined as {known}")
    return entry


class HeadroomError(Exception):
    """An error with a code of the table. ``field``: the request field at fault, when one is
    (the document's ``errors`` then names it)."""

    code: ClassVar[str] = "internal_error"
    status: ClassVar[int] = 500
    title: ClassVar[str] = CODES["internal_error"].title
    field: str | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        entry = CODES[cls.code]  # a KeyError here: the code is missing from the table
        cls.status = entry.status or 500
        if "title" in cls.__dict__:
            if cls.title not in entry.titles:
                raise TypeError(f"{cls.__name__}: title {cls.title!r} is not one of "
                                f"{entry.code}'s in the table")
        elif "code" in cls.__dict__:
            cls.title = entry.title

    def __init__(self, detail: str, *, field: str | None = None,
                 errors: list[dict[str, Any]] | None = None,
                 headers: dict[str, str] | None = None):
        super().__init__(detail)
        self.detail = detail
        if field is not None:
            self.field = field
        if errors is None and self.field:
            errors = [{"field": self.field, "message": detail}]
        self.errors = errors
        self.headers = headers
        # RFC 9457 extension members this kind of problem adds to its document.
        self.extensions: dict[str, Any] | None = None


class Unauthorized(HeadroomError):
    code = "unauthorized"

    def __init__(self, detail: str):
        super().__init__(detail, headers={"WWW-Authenticate": 'Bearer realm="headroom"'})


class MetricsUnauthorized(Unauthorized):
    """/metrics without the scrape token (HEADROOM_METRICS_TOKEN)."""

    title = "Missing or invalid metrics token"

    def __init__(self, detail: str):
        HeadroomError.__init__(self, detail, headers={
            "WWW-Authenticate": 'Bearer realm="headroom-metrics"'})


class Forbidden(HeadroomError):
    code = "forbidden"


class NotFound(HeadroomError):
    code = "not_found"


class ClusterNotFound(NotFound):
    code = "cluster_not_found"


class Conflict(HeadroomError):
    code = "conflict"


class NameTaken(Conflict):
    """``existing_id``, when known, names what holds the name (also in the problem document,
    so a client that lost a creation race, or retried without an Idempotency-Key, can go on
    with the existing one)."""

    code = "name_taken"

    def __init__(self, detail: str, existing_id: str | None = None):
        super().__init__(detail)
        if existing_id is not None:
            self.extensions = {"existing_id": existing_id}


class WrongClusterKind(Conflict):
    """The id names a cluster (or reservation stream) of a family this route does not serve."""

    code = "wrong_cluster_kind"


class IdempotencyKeyReused(Conflict):
    code = "idempotency_key_reused"


class WhatIfNotFound(NotFound):
    code = "what_if_not_found"


class TooManyWhatIfs(Conflict):
    code = "too_many_what_ifs"


class PreconditionFailed(HeadroomError):
    code = "precondition_failed"


class Unprocessable(HeadroomError):
    code = "validation_error"


class PayloadTooLarge(HeadroomError):
    code = "payload_too_large"


class RateLimited(HeadroomError):
    """A request limit refused the request before anything was done (docs/operations.md,
    "Request limits"): the same request may be sent again after ``Retry-After`` seconds."""

    code = "rate_limited"

    def __init__(self, detail: str, retry_after: int):
        super().__init__(detail, headers={"Retry-After": str(retry_after)})


class ConcurrencyLimited(RateLimited):
    """The owner has as many expensive requests in flight as a process allows."""

    code = "concurrency_limited"


class Busy(HeadroomError):
    code = "cluster_busy"


class ShuttingDown(HeadroomError):
    """The process stopped before this request was answered; whether its change committed,
    a retry with the same event id tells (another process, or this one restarted)."""

    code = "shutting_down"


class StateDivergence(HeadroomError):
    """Replaying the log produced another decision than the one recorded: a bug, said loudly."""

    code = "state_divergence"


class DatabaseWentBackwards(HeadroomError):
    """The cluster's committed version in the database is below one this process saw: the
    database lost commits (an asynchronous replica promoted, a restored backup). Deciding on
    would fork the log, seq for seq, from the answers already given: refused, loudly."""

    code = "database_went_backwards"


def at_event(exc: HeadroomError, index: int, event_id: str) -> HeadroomError:
    """``exc`` refused event ``index`` of a batch: locate it as validation errors are located
    (``events[1].job_type``), so that a client knows which of its events to fix."""
    where = f"events[{index}]"
    exc.errors = [{**e, "field": f"{where}.{e['field']}" if e.get("field") else where}
                  for e in exc.errors] if exc.errors else [{"field": where,
                                                            "message": exc.detail}]
    exc.detail = f"{where} (event_id {event_id!r}): {exc.detail}"
    return exc


def markdown() -> str:
    """docs/errors.md: every code of the table."""
    def cell(text: str) -> str:
        return text.replace("|", "\\|")

    lines = [
        "# Error codes",
        "",
        "Every error is an RFC 9457 problem document (`application/problem+json`) with a "
        "stable `code`: its `type` is `urn:headroom:problem:<code>`; validation errors name "
        "each offending field in `errors` (`{\"field\": \"events[1].job_type\", \"message\": "
        "...}`). Clients switch on `code`: these strings do not change.",
        "",
        "This page is generated from the table in `app/errors.py`: "
        "`python -m app.errors --markdown > docs/errors.md`.",
        "",
        "| code | status | title | meaning |",
        "|---|---|---|---|",
    ]
    for e in _TABLE:
        status = "4xx/5xx" if e.status is None else str(e.status)
        title = " or ".join(f'"{cell(t)}"' for t in e.titles)
        lines.append(f"| `{e.code}` | {status} | {title} | {cell(e.meaning)} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    if sys.argv[1:] != ["--markdown"]:
        sys.exit("usage: python -m app.errors --markdown")
    sys.stdout.write(markdown())
