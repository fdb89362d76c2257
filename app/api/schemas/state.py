"""What the read views answer: a cluster's `/state`, one server, one deployment.

These are descriptions of the service's answers, not request bodies: every field an answer
carries is here (extra fields are refused, so tests/api/test_state_views.py fails when an
engine's describe() gains a field this file does not name), and the routes return the
engines' views as they are; the models are for the OpenAPI document and for checking. A
cluster's `/state` is told apart by `policy`: each family declares the models of its kinds
(`state_models`), and app/families/registry.py's state_view joins them.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from app.api.schemas.moments import MigrateAnswer
from app.api.schemas.tenants import TenancyView
from app.policies.best_fit import BestFit
from app.policies.dra.engine import DRAEngine
from app.policies.first_fit import FirstFit
from app.policies.moments.policies import POLICIES
from app.policies.power_of_d import PowerOfD
from app.policies.rms import GREEDY
from app.policies.rms.rms import RmsScheduler

PerType = dict[str, int]
PerHorizon = dict[str, float | None]  # keyed by horizon label: "3y", "1y", "1mo", "1w", "24h"


class View(BaseModel):
    model_config = ConfigDict(extra="forbid")


class StateHeader(View):
    cluster_id: str
    version: int = Field(description="Events applied to the cluster so far.")


# ---- placement clusters (DRA and the baselines) ---------------------------------------------
class PlacementState(StateHeader):
    servers: int
    jobs: int = Field(description="Jobs holding a slot.")
    jobs_per_type: PerType
    reward_rate: float = Field(description="Σ reward over the jobs in service.")
    tenancy: TenancyView | None = Field(None, description=(
        "Where the cluster declares tenants: each one's usage, quota, borrowing, preemptions "
        "and refusals, and the quotas' generation."))


class FitState(PlacementState):
    policy: Literal[FirstFit.kind, BestFit.kind]
    feasible_servers_per_type: PerType = Field(
        description="Servers with room for one more job of each type.")


class PowerOfDState(PlacementState):
    policy: Literal[PowerOfD.kind]
    d: int


class DraConfiguration(View):
    configuration: PerType = Field(description="Jobs per type a server of it holds.")
    reward: float
    gpa_position: int | None = Field(description="Its place in the greedy packing (null: not in it).")
    rank: int
    gpa_target_servers: int
    servers: int
    accept_group: int
    reject_group: int


class GpaRefresh(View):
    y_hat_in_use: dict[str, float] = Field(description="The load estimate the packing uses.")
    band: float | None = None
    every_events: int | None = None
    events_since_refresh: int | None = None


class MigrationTally(View):
    migrations: int
    departures: int
    migrations_per_departure: float | None
    migration_budget_tokens: float | None = None
    migrations_skipped_for_budget: int | None = None


class ConfigurationSearch(View):
    node_limit: int = Field(description="Branch-and-bound nodes one MaxReward search may "
                                        "visit (300,000 divided by the number of job types).")
    unproved_gpa_positions: list[int] = Field(
        description="GPA positions whose configuration is the best one found within the "
                    "node limit rather than the proven MaxReward (empty: all proven).")


class DraState(PlacementState):
    policy: Literal[DRAEngine.kind]
    g: float = Field(description="Reserved slots g(L) the policy keeps.")
    istar: int
    migrations: Literal["on", "off_no_drain", "off_drain"]
    preemption: Literal["off", "rebuild", "admit"]
    preemptions: int
    gpa_refresh: GpaRefresh
    migration_tally: MigrationTally
    configurations: list[DraConfiguration]
    configuration_search: ConfigurationSearch
    free_slots_in_accept_group: PerType


# ---- queued clusters (RMS and the greedy queues) --------------------------------------------
class QueueClockView(View):
    mode: Literal["client", "wall"]
    time_unit_seconds: float
    next_event_at: float | None = Field(description="When the scheduler next acts (null: nothing due).")
    behind: float | None = Field(description="Time units the clock trails the wall clock "
                                             "(null: a client clock, or not known).")


class QueueState(StateHeader):
    now: float
    servers: int
    queues: PerType = Field(description="Jobs waiting, per type.")
    running: PerType
    arrived: int
    finished: int
    withdrawn: int
    clock: QueueClockView
    tenancy: TenancyView | None = Field(None, description=(
        "Where the cluster declares tenants: each one's usage, quota, borrowing and jobs "
        "waiting for quota, and the quotas' generation."))
    waiting_for_quota: PerType | None = Field(None, description=(
        "Where the cluster declares tenants: jobs waiting for their tenant's quota, per type "
        "(not yet in `queues`)."))


class GreedyQueueState(QueueState):
    policy: Literal[tuple(GREEDY)]  # type: ignore[valid-type]


class RmsVariant(View):
    sampling: str
    adaptive: bool
    replace_dummies: bool


class RmsState(QueueState):
    policy: Literal[RmsScheduler.kind]
    weights: dict[str, float]
    dummies: PerType = Field(description="Dummy jobs holding reserved room, per type.")
    clock_rates: dict[str, float] = Field(description="The Poisson clocks' rates, per type.")
    next_tick: float | None = Field(description="When the next clock tick fires; null: never "
                                   "(a clock rate too small to fire within any float time).")
    max_jobs_per_server: int
    variant: RmsVariant


# ---- moment-admission clusters ---------------------------------------------------------------
class ClosedLoopView(View):
    sla: float
    lo: float = Field(description="The tightest threshold the loop may move to.")
    hi: float = Field(description="The loosest.")
    window_requests: int
    window_denied: int
    tightened: int
    loosened: int
    window_failure_rate_interval: list[float] = Field(description="Wilson 95% interval of the window's failure rate.")


class GammaView(View):
    lam: list[float] = Field(alias="lambda")
    mu: list[float]
    sigma: list[float]


class Adoption(View):
    at: float
    records: int
    prior: GammaView
    mean_factor: dict[str, float]
    likelihood_ratio: dict[str, float]
    cautious_start: str | None = None
    ended_cautious_start: str | None = None


class LearnerView(View):
    prior: GammaView = Field(description="The population prior an arrival gets now.")
    learnt: bool
    cautious_lambda_factor: float | None
    cautious_phase: Literal["held", "floor"] | None
    evidence: int
    next_estimate_at: float
    last_likelihood_ratio: dict[str, float]
    adoptions: list[Adoption]


class GrowthLadderView(View):
    steps: list[list[float]] = Field(description="[λ factor, threshold] pairs.")
    factor: float = Field(description="The step in use.")
    threshold: float


class GrowthCalibrationView(View):
    learnt_lambda_factor: float
    learnt_mu_factor: float
    calibrated_lambda_factors: list[float]
    ratio: float
    beyond_calibration: bool


class OutgrowingRow(View):
    deployment_id: str
    cores: int
    expected_peak_cores: float
    expected_share: float
    reason: Literal["outgrowing_cluster", "cluster_overflow"]


class OutgrowingView(View):
    share: float = Field(description="The share of the capacity at which one deployment is listed.")
    largest_expected_share: float = Field(description=(
        "The largest share of the capacity one live deployment is expected to need at some "
        "point of the grid (its moments as of the last admission decision), or holds now "
        "where that is half the cluster or more."))
    expected_cluster_share: float = Field(description="The cluster's expected cores at their peak over capacity.")
    overflow_sd: float | None = Field(None, description="policy.overflow_sd, where it is above 0.")
    overflow_line_share: float | None = Field(
        None, description="E + overflow_sd · sd of the cluster's cores at its peak, over capacity.")
    count: int
    deployments: list[OutgrowingRow] = Field(description="What each one's next scale-out will be told (`migrate`).")


class GridView(View):
    horizons_hours: list[float]
    steps: int


class CalibrationProgress(BaseModel):
    status: Literal["queued", "running", "done", "failed", "cancelled"]
    lives_done: int
    lives_total: int | None
    started_at: str | None = None
    eta: str | None = Field(None, description="ISO 8601, at the pace of its lives so far.")
    attempts: int | None = None
    error: str | None = None


class TypicalDeploymentView(View):
    cores: int = Field(description=(
        "A typical first deployment's size: 1 + E[σ] under the population prior in use, "
        "rounded (in the §2.1 model an arrival starts with 1 + Pois(σ) cores, as a scale-out "
        "adds)."))
    decision: Literal["admitted", "rejected"] = Field(
        description="What a dry run of it into the cluster as it is now answers.")
    reason: str = Field(description="That answer's reason, as a deployment's decision gives it.")
    overflow_bound: float = Field(description=(
        "The bound the cluster's rule reports for it (Cantelli's for second_moment, Markov's "
        "E/c for first_moment, active/c for threshold): the rule's bound, not a simulated "
        "probability of overflow."))


class AdmissibleView(View):
    """What the cluster can admit as it stands, from dry runs of deployments on the
    population prior (app/policies/moments/admissible.py)."""

    largest_first_deployment: int = Field(description=(
        "The most cores a deployment on the population prior can have and still be admitted "
        "into the cluster as it is now; 0 when not even 1 core is."))
    typical_first_deployment: TypicalDeploymentView
    admits_typical: bool
    summary: str = Field(description="The same in one line, e.g. \"admits first deployments of "
                                     "up to 3 cores; a typical one (6 cores) is rejected: ...\".")


class MomentState(StateHeader):
    policy: Literal[POLICIES]  # type: ignore[valid-type]
    utilization_now: float
    safe: bool = Field(description="The rule holds now, without any arrival.")
    overflow_bound_per_horizon: PerHorizon | None
    threshold: float | None = Field(description=(
        "t in cores (threshold, first_moment) or ρ (second_moment) as the closed loop and "
        "growth ladder left it; null while `gate` refuses every deployment."))
    gate: str | None = Field(description=(
        "Why every deployment is rejected whatever the rule says: threshold_calibrating "
        "(the declaration's threshold is being calibrated, nothing safe stands in), "
        "no_threshold_meets_sla (its calibration found none); null: the rule decides."))
    marginal: bool
    arrival_size_evidence: bool
    closed_loop: ClosedLoopView | None
    population_prior: LearnerView | None
    growth_ladder: GrowthLadderView | None
    growth_calibration: GrowthCalibrationView | None
    outgrowing: OutgrowingView | None
    capacity: int
    now: float
    active_cores: int
    deployments: int = Field(description="Live deployments.")
    admitted: int
    rejected: int
    scaleout_requests: int
    scaleouts_denied: int
    sla_failure_rate: float
    peak_expected_cores: PerHorizon
    grid: GridView
    sla: float | None
    tenancy: TenancyView | None = Field(None, description=(
        "Where the cluster declares tenants: each one's cores in use, quota and borrowing, "
        "and the quotas' generation."))
    # The declaration's policy.derivation as stored (ThresholdDerivation, in the create body's
    # schema); not that model here, whose wrap serializer would split the document's one
    # schema into -Input and -Output and rename the client's class.
    threshold_derivation: dict[str, Any] | None = Field(
        description="How the threshold was derived: the declaration's policy.derivation.")
    meets_sla: bool | None
    admissible: AdmissibleView = Field(description=(
        "What the cluster admits as it is now (the creation answer has the empty cluster's)."))
    calibration: CalibrationProgress | None = Field(None, description=(
        "While threshold_derivation.status is calibrating: the background calibration's "
        "status (queued, running, done, failed, cancelled), lives simulated of the most it "
        "can take, and when it expects to finish."))


# ---- one server, one deployment ---------------------------------------------------------------
class ServerView(View):
    server_id: str
    pool: str
    capacity: dict[str, float]
    used: dict[str, float]
    jobs: list[str]
    jobs_per_type: PerType
    configuration: PerType | None = Field(None, description="DRA: the server's configuration.")
    rank: int | None = None
    index: int | None = None
    group: Literal["accept", "reject"] | None = None


class PosteriorView(View):
    shape: float
    rate: float
    mean: float
    var: float


class DeploymentStatistics(View):
    core_deaths: float
    core_time: float
    shutdowns: float
    age_time: float
    scaleouts: float
    scaleout_time: float
    extra_cores: float
    sized_arrivals: float
    arrival_extra_cores: float


class DeploymentView(View):
    id: str
    alive: bool
    cores: int
    category: str | None
    born: float
    posterior: dict[Literal["lambda", "mu", "sigma"], PosteriorView]
    statistics: DeploymentStatistics
    migrate: MigrateAnswer | None = Field(description="What its next scale-out will be answered.")
    expected_cores: PerHorizon | None = Field(None, description="Live moment deployments only.")
    variance: PerHorizon | None = None
