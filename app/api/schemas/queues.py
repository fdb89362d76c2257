"""Queued clusters (the RMS paper): policies, and what their events take and answer.

A queued cluster never rejects: an arrival that cannot start waits in its type's queue until
the scheduler starts it (a Poisson clock tick, a departure, or at once for the greedy
baselines). Time is either the wall clock (the service stamps every event and a background
loop fires the clocks) or the clients' (every event carries ``at``; ticks are explicit).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from app.api.schemas.common import Delivery, Instant, StrictModel
from app.api.schemas.tenants import GANGS_TIMED_OUT_DOC
from app.families.clocks import MAX_WALL_TICKS_PER_SECOND
from app.policies.rms import GREEDY
from app.policies.rms.rms import RmsScheduler

Rate = Annotated[float, Field(gt=0, le=1e9, allow_inf_nan=False)]

CLOCK_DOC = ("wall: the service stamps each event with the time since the cluster was created "
             "(in time units) and a background loop fires the scheduler's clocks; events must "
             "not carry `at`. client: every event carries `at` (and ticks `until`), which never "
             "decreases; nothing happens between events unless a client ticks.")


class QueueClock(StrictModel):
    clock: Literal["wall", "client"] = Field("wall", description=CLOCK_DOC)
    # At least a millisecond: stamps are floats of units since creation and instants are capped
    # at 1e12 units, which is 31 years of milliseconds but only 11.6 days of microseconds; a
    # subnormal unit (5e-324) made every stamp infinite and every arrival fail. At most a day:
    # rates are per unit, and a clock that moves less than once a day is a misconfiguration,
    # not a policy (the RMS paper's rates are jobs per mean job duration).
    time_unit_seconds: float = Field(
        1.0, ge=1e-3, le=86_400, allow_inf_nan=False,
        description="Seconds per time unit on the wall clock (1 ms to 1 day); rates are per "
        "time unit.")
    finished_history: int = Field(
        1000, ge=0, le=1_000_000,
        description="Finished jobs kept for GET .../jobs/{job_id} (oldest forgotten first).")


class RmsPolicy(QueueClock):
    """Randomized Multi-resource Scheduling, Algorithm 1 (centralized queues) with the §VI
    variants; ``routing`` switches to Algorithm 2 (a queue per server and type)."""

    kind: Literal[RmsScheduler.kind]
    routing: Literal["central", "jsq", "po2"] = Field(
        "central", description="central: one queue per job type (Algorithm 1). jsq / po2: a "
        "queue per server and type, an arrival joins the shortest of all (JSQ) or of two "
        "sampled servers' queues (Algorithm 2, Remark 4); clock_rate is then split evenly "
        "over the servers.")
    sampling: Literal["uniform", "rf", "bf"] = Field(
        "uniform", description="Server tried on a clock tick: uniform (Algorithm 1), rf "
        "(Random-Fit among those it fits in) or bf (Best-Fit), §VI.")
    adaptive: bool = Field(False, description="RMS-AD: one clock of the total rate; a tick "
                           "picks queue j with probability proportional to exp(w_j).")
    replace_dummies: bool = Field(False, description="Remark 2: an arriving job takes the slot "
                                  "of a dummy job of its type instead of queueing.")
    clock_rate: Rate | dict[str, Rate] | None = Field(
        None, description="Poisson clock rate r_j per time unit: one number, or one per job "
        "type. Default: the number of servers. On the wall clock the clocks together may fire "
        f"at most {MAX_WALL_TICKS_PER_SECOND:,} times per second (sum of r_j / "
        "time_unit_seconds): raise time_unit_seconds or lower the rates beyond that.")
    mu: Rate | dict[str, Rate] = Field(
        1.0, description="Service rate of the real jobs per time unit (1 / mean duration): "
        "dummy jobs hold their slot for an exponential time of this rate.")
    epsilon: float = Field(0.5, gt=0, lt=1, description="ε in the weight floor ε/(8M)·f(Q_max).")
    b: float = Field(0.0, ge=0, lt=1, description="f(x) = log(1+x)^(1-b).")
    max_jobs_rule: Literal["configurations", "one_type"] = Field(
        "configurations", description="M in the weight floor: configurations = the most jobs "
        "of all types together a server holds (the paper's M, §II; computed exactly, or a safe "
        "upper bound when there are too many configurations to enumerate); one_type = the most "
        "jobs of a single type, the rule of clusters created before it was corrected (stored "
        "clusters without this field keep it).")


    def wall_rate_errors(self, servers: int, job_types: int) -> list[dict[str, str]]:
        """Rates the wall clock would fire faster than one process fires clock ticks (see
        ``MAX_WALL_TICKS_PER_SECOND``); each error names its field."""
        if self.clock != "wall":  # clients move the clock; one event is bounded on its own
            return []
        unit, limit = self.time_unit_seconds, MAX_WALL_TICKS_PER_SECOND
        rate = self.clock_rate if self.clock_rate is not None else float(servers)
        total = sum(rate.values()) if isinstance(rate, dict) else rate * job_types
        errors = []
        if total / unit > limit:
            errors.append({"field": "policy.clock_rate", "message":
                           f"the clocks would fire {total / unit:,.0f} times per second "
                           f"(sum of clock_rate / time_unit_seconds); at most {limit:,} on the "
                           "wall clock: raise time_unit_seconds or lower clock_rate"})
        # A dummy job's slot cannot turn over faster than the clocks may fire; what dummies
        # cost together is capped per loop pass (app/service/ticker.py).
        # An empty or partial per-type dict is refused by the engine (it must name every type).
        mu = max(self.mu.values(), default=0.0) if isinstance(self.mu, dict) else self.mu
        if mu / unit > limit:
            errors.append({"field": "policy.mu", "message":
                           f"dummy jobs would end {mu / unit:,.0f} times per second per slot; "
                           f"at most {limit:,} on the wall clock"})
        return errors


class GreedyQueuePolicy(QueueClock):
    """Work-conserving baselines (§III): start an arrival at once if a server has room (chosen
    by the rule), otherwise queue it; a departure starts the waiting jobs that fit."""

    kind: Literal[tuple(GREEDY)]  # type: ignore[valid-type]
    order: Literal["fifo", "small_first", "large_first"] = Field(
        "fifo", description="Which waiting job a freed server takes first.")


class TickIn(StrictModel):
    # Empty: the default wall clock takes no `until` (a client-clock cluster would send one).
    model_config = {**StrictModel.model_config, "json_schema_extra": {"examples": [{}]}}

    until: Instant | None = Field(
        None, description="Client clock: fire every clock and dummy departure due before this "
        "time. Wall clock: leave out (the service uses now).")


class StartedJob(BaseModel):
    job_id: str
    job_type: str
    server_id: str
    at: float = Field(description="When it started (time units).")
    queued_at: float


class QueueArrivalOut(Delivery):
    decision: Literal["queued", "started"]
    job_id: str
    position: int | None = Field(description="Place in its type's queue (0 = next), or for "
                                 "a job waiting for quota among its tenant's waiting jobs; "
                                 "null when it started at once.")
    server_id: str | None = None
    reason: Literal["waiting_for_quota"] | None = Field(None, description=(
        "Where tenants' quotas hold it back: it waits for its tenant's quota (docs/tenants.md) "
        "before the scheduler's queue."))
    details: dict[str, Any] | None = Field(None, description=(
        "waiting_for_quota: `quota`, whose quota, which limit, what is short, and who holds "
        "the cohort's borrowed share."))
    gangs_timed_out: list[str] | None = Field(None, description=GANGS_TIMED_OUT_DOC)
    at: float
    started: list[StartedJob] = Field(
        description="Queued jobs the scheduler started up to this event (before it).")


class QueueReleaseOut(Delivery):
    decision: Literal["released", "withdrawn"] = Field(
        description="released: the job was running and its slot is free. withdrawn: it was "
        "still waiting at `at` (e.g. cancelled before it started) and left its queue without "
        "running; no slot is freed.")
    job_id: str
    server_id: str | None = Field(description="Where it ran (released), or for a withdrawn job "
                                  "the server whose queue it waited in (distributed RMS queues; "
                                  "null for central queues).")
    gang_id: str | None = Field(None, description=(
        "withdrawn: the waiting gang it belonged to, withdrawn whole (none of it started)."))
    at: float
    started: list[StartedJob] = Field(
        description="Jobs started up to and at this departure, e.g. into the freed slot.")
    gangs_timed_out: list[str] | None = Field(None, description=GANGS_TIMED_OUT_DOC)


class TickOut(Delivery):
    decision: Literal["advanced", "idle"] = Field(
        description="idle: nothing was due, nothing changed and nothing was logged.")
    now: float = Field(description="The scheduler's clock after the tick. Below `until` when "
                       "the jump was too long for one call (about 100,000 clock ticks): tick "
                       "again.")
    started: list[StartedJob]
    gangs_timed_out: list[str] | None = Field(None, description=GANGS_TIMED_OUT_DOC)


class QueueGangOut(Delivery):
    """A gang on a queued cluster: all its members started together, or it waits whole."""

    decision: Literal["started", "queued"]
    gang_id: str
    reason: Literal["all_started", "waiting_for_quota", "waiting_for_room"] = Field(
        description="waiting_for_quota: its tenant's quota cannot take all its members; "
        "waiting_for_room: the servers have no room for all of them at once.")
    position: int | None = Field(description="Its place among the waiting gangs (0 = tried "
                                 "first); null when it started.")
    members: list[dict[str, Any]] = Field(description="Each member's job id, type and server "
                                          "(null while waiting).")
    details: dict[str, Any] = Field(description="waiting_for_quota: `quota`, as for an "
                                    "arrival.")
    at: float
    started: list[StartedJob] = Field(description="Other jobs started up to this event.")
    gangs_timed_out: list[str] | None = Field(None, description=GANGS_TIMED_OUT_DOC)


class StartForecast(BaseModel):
    """When a waiting job is expected to start, in the cluster's time units (as ``queued_at``),
    from simulating the queue forward from its state as of its last event, with the lifetimes
    of its finished jobs and the arrival rates of the jobs it remembers (docs/what-if.md,
    "When will my job start?"). A field that is None is left out of the answer."""

    median: float | None = Field(
        None, description="The median start over the samples (absent: no forecast, see reason).")
    low: float | None = Field(None, description="The interval's lower end (10th percentile).")
    high: float | None = Field(
        None, description="Its upper end (90th percentile); absent: beyond the horizon in more "
        "than a tenth of the samples.")
    level: float = Field(description="The interval's level: 0.8.")
    samples: int = Field(description="Futures simulated.")
    started: int = Field(description="Samples in which the job started within the horizon.")
    horizon: float | None = Field(None, description="How far the samples looked (time units).")
    finished_jobs: int | None = Field(None, description="Finished jobs whose lifetimes were "
                                      "drawn from.")
    reason: str | None = Field(None, description="Why there is no forecast, where there is none.")


class JobOut(BaseModel):
    job_id: str
    job_type: str
    status: Literal["queued", "running", "finished", "withdrawn"]
    position: int | None = None
    server_id: str | None = None
    queued_at: float
    started_at: float | None = None
    finished_at: float | None = None
    withdrawn_at: float | None = Field(None, description="withdrawn: when it left its queue "
                                       "without running.")
    forecast: StartForecast | None = Field(None, description="queued: when it is expected to "
                                           "start.")
    reason: Literal["waiting_for_quota", "waiting_for_gang"] | None = Field(None, description=(
        "queued, not yet in the scheduler's queue: waiting_for_quota, for its tenant's quota; "
        "waiting_for_gang, for room for its whole gang."))
    gang_id: str | None = Field(None, description="waiting_for_gang: its gang.")
    tenant: str | None = Field(None, description="The tenant it runs for, where the cluster "
                               "declares tenants.")
