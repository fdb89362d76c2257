"""Refusals of the policy engines: ``HeadroomError``s (``app/errors.py``) whose code, status
and title come from the one table of codes, raised before the engine mutates anything.

Every family declares its own refusals in its errors module, as subclasses of ``PolicyError``;
those shared by every family (unknown job type, duplicate job, time going back...) live here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from app.errors import REFUSED, HeadroomError

T = TypeVar("T")


class PolicyError(HeadroomError, ValueError):
    """A request the engine refuses, before mutating anything: a ``ValueError`` (bad input to
    the simulator and the tests) with a code of the table. ``field``: the request field at
    fault, when one is."""


class UnknownJobType(PolicyError):
    code = "unknown_job_type"
    field = "job_type"

    def __init__(self, name: object):
        super().__init__(f"job type {name!r} is not declared by this cluster")


class UnknownJob(PolicyError):
    code = "unknown_job"
    field = "job_id"

    def __init__(self, job_id: object, detail: str = "is not running in this cluster"):
        super().__init__(f"job {job_id!r} {detail}")


class DuplicateJob(PolicyError):
    """One code for placement and queues: a job id the cluster already holds (running, or for
    a queue also waiting or recently finished). ``field``: the queues name ``job_id``."""

    code = "job_already_known"

    def __init__(self, job_id: str, detail: str = "is already running in this cluster",
                 field: str | None = None):
        super().__init__(f"job {job_id!r} {detail}", field=field)


class UnknownServer(PolicyError):
    code = "unknown_server"

    def __init__(self, server_id: str):
        super().__init__(f"server {server_id!r} does not exist in this cluster")


class TimeWentBackwards(PolicyError):
    code = "time_went_backwards"

    def __init__(self, field: str, detail: str):
        super().__init__(detail, field=field)


class NoDryRun(PolicyError):
    """The engine cannot decide this event without deciding it for real."""

    code = "dry_run_unsupported"


class InvalidDeclaration(PolicyError):
    """A declaration the schema admits but the engine's own checks, as it is built, refuse."""

    code = "validation_error"


def build_declared(build: Callable[[Any], T], spec: Any,
                   field: Callable[[Exception], str] = lambda exc: "policy") -> T:
    """``build(spec)`` for a new declaration. The engines check their parameters as they are
    built and refuse with a ``ValueError`` (a family's own errors are ``ValueError``s too),
    or overflow with an ``ArithmeticError``: here, where the declaration enters the engines,
    either becomes an ``InvalidDeclaration`` naming ``field(exc)``, and no cluster is made."""
    try:
        return build(spec)
    except (ValueError, ArithmeticError) as exc:
        raise InvalidDeclaration(str(exc), field=field(exc)) from exc


# How far one event may move a client-kept clock past the cluster's current time: ten years,
# in whatever unit the family's times are. No real cluster pauses that long between events;
# a timestamp in the wrong unit (milliseconds for seconds) or a typo (at = 1e12) does, and,
# since time never goes back, it would leave the cluster taking events at that time only.
MAX_CLOCK_JUMP_SECONDS = 10 * 365 * 86_400


class ClockJumpTooLarge(PolicyError):
    code = "clock_jump_too_large"

    def __init__(self, field_name: str, detail: str):
        super().__init__(f"{field_name}: {detail}", field=field_name)


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
    title = REFUSED

    def __init__(self, field_name: str, detail: str):
        super().__init__(f"{field_name}: {detail}", field=field_name)
