"""Refusals of the policy engines: each has a stable machine-readable ``code`` and a coarse
``category`` (what kind of refusal it is), which the service turns into an HTTP status with one
table (``app/errors.py``); ``title`` is the problem document's title.

Every family declares its own refusals in its errors module, as subclasses of ``PolicyError``;
those shared by every placement-like family (unknown job type, duplicate job...) live here.
"""

from __future__ import annotations

from typing import ClassVar, Literal

# invalid: the request is malformed for this engine; not_found: it names something the engine
# does not hold; conflict: it contradicts the engine's state (a duplicate, time going back);
# unsupported: the engine cannot do what is asked (a dry run of a queue).
Category = Literal["invalid", "not_found", "conflict", "unsupported"]


class PolicyError(Exception):
    """A request the engine refuses, before mutating anything."""

    code: ClassVar[str] = "policy_error"
    category: ClassVar[Category] = "invalid"
    title: ClassVar[str] = "Request refused by the policy"
    field: str | None = None  # the request field at fault, when one is

    def __init__(self, detail: str):
        super().__init__(detail)
        self.detail = detail


class UnknownJobType(PolicyError):
    code, category, title = "unknown_job_type", "not_found", "Unknown job type"
    field = "job_type"

    def __init__(self, name: object):
        super().__init__(f"job type {name!r} is not declared by this cluster")


class UnknownJob(PolicyError):
    code, category, title = "unknown_job", "not_found", "Unknown job"
    field = "job_id"

    def __init__(self, job_id: object):
        super().__init__(f"job {job_id!r} is not running in this cluster")


class DuplicateJob(PolicyError):
    """One code for placement and queues: a job id the cluster already holds (running, or for
    a queue also waiting or recently finished). Issue #13 unified ``job_already_running``
    (placement) and ``job_already_known`` (queues) under this one."""

    code, category, title = "job_already_known", "conflict", "Job already known"

    def __init__(self, job_id: str):
        super().__init__(f"job {job_id!r} is already running in this cluster")


class UnknownServer(PolicyError):
    code, category, title = "unknown_server", "not_found", "Unknown server"

    def __init__(self, server_id: str):
        super().__init__(f"server {server_id!r} does not exist in this cluster")


class NoDryRun(PolicyError):
    """The engine cannot decide this event without deciding it for real."""

    code, category, title = "dry_run_unsupported", "unsupported", "Dry run not supported"


# How far one event may move a client-kept clock past the cluster's current time: ten years,
# in whatever unit the family's times are. No real cluster pauses that long between events;
# a timestamp in the wrong unit (milliseconds for seconds) or a typo (at = 1e12) does, and,
# since time never goes back, it would leave the cluster taking events at that time only.
MAX_CLOCK_JUMP_SECONDS = 10 * 365 * 86_400


class ClockJumpTooLarge(PolicyError):
    code, category, title = "clock_jump_too_large", "invalid", "Event time too far ahead"

    def __init__(self, field_name: str, detail: str):
        super().__init__(f"{field_name}: {detail}")
        self.field = field_name


def check_clock_jump(field_name: str, t: float, now: float, unit_seconds: float,
                     unit: str) -> None:
    """Refuse a client time more than MAX_CLOCK_JUMP_SECONDS past ``now`` (both in units of
    ``unit_seconds``), unless the clock is still at its start, 0: the first event that moves
    it sets its origin (a webhook counting hours since 1970 starts near 500,000)."""
    bound = MAX_CLOCK_JUMP_SECONDS / unit_seconds
    if now != 0.0 and t - now > bound:
        raise ClockJumpTooLarge(field_name, f"{t:g} is {t - now:g} {unit} past the cluster's "
                                f"clock ({now:g}); one event may move it at most {bound:,.0f} "
                                f"{unit} (ten years), so that one bad timestamp cannot end "
                                "the cluster's time")


class ClockRefused(PolicyError):
    """``at``/``until`` given where the wall clock rules or where no time is taken, missing
    where clients keep time, or too far ahead for one event."""

    code = "validation_error"

    def __init__(self, field_name: str, detail: str):
        super().__init__(f"{field_name}: {detail}")
        self.field = field_name
