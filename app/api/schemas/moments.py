"""Moment-based admission clusters: deployments that scale out later (Dierks, Kash & Seuken)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, model_serializer, model_validator

from app.api.schemas.common import AsGiven, ClientId, Name, SegmentId, StrictModel
from app.api.schemas.tenants import MAX_TENANTS, TENANT_DOC, TenantIn
from app.policies.moments.family import MAX_CORES
from app.policies.moments.policies import POLICIES
from app.policies.moments.priors import GAMMA_MAX, GAMMA_MIN, PSEUDO_MAX
from app.policies.moments.sla import OVERFLOW_SD_BY_DEFAULT
from app.policies.tenancy import tenant_errors

Cores = Annotated[int, Field(gt=0, le=MAX_CORES, strict=True)]
Hours = Annotated[float, Field(ge=0, le=1e9, allow_inf_nan=False,
                               description="Event time in hours; never decreases per cluster.")]


Threshold = Annotated[float, Field(gt=0, le=1e9, allow_inf_nan=False)]
Share = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]
Runs = Annotated[int, Field(ge=1, le=10_000_000)]


# Shape and rate share one range: where every moment formula stays finite (the reason is
# next to GAMMA_MIN in app/policies/moments/priors.py, which checks the same bounds again).
GammaParameter = Annotated[float, Field(ge=GAMMA_MIN, le=GAMMA_MAX, allow_inf_nan=False,
                                        strict=True)]
ShapeRate = Annotated[list[GammaParameter], Field(
    min_length=2, max_length=2, description="[shape, rate] of a Gamma belief, rates per hour.")]
PseudoObservation = Annotated[float, Field(ge=0, le=PSEUDO_MAX, allow_inf_nan=False,
                                           strict=True)]


class GammaPriors(StrictModel):
    """Gamma beliefs over a deployment's λ, μ, σ: a deployment's own (replacing the cluster's
    base prior, §6) or a cluster's population prior (replacing Table 1)."""

    lam: ShapeRate = Field(alias="lambda", description="Scale-out rate coefficient λ.")
    mu: ShapeRate = Field(description="Per-core death rate μ.")
    sigma: ShapeRate = Field(description="Extra cores per scale-out σ (size is 1 + Pois(σ)).")

    @model_serializer(mode="wrap")
    def _lambda_spelled_out(self, handler: Any) -> dict[str, Any]:
        """Stored and shown as "lambda" whether or not the dump asked for aliases (a cluster's
        declaration is stored by field name)."""
        out = handler(self)
        return {("lambda" if k == "lam" else k): v for k, v in out.items()}


class CalibratedAnchor(AsGiven):
    """A capacity of the service's calibration table (app/policies/moments/sla.py) that a
    table derivation drew on, as the service writes it."""

    capacity: Cores
    value: Threshold = Field(description="The threshold calibrated there: t / capacity for "
                                         "threshold and first_moment, ρ for second_moment.")
    runs: Runs = Field(description="Seeded lives of the §2.1 model behind it.")
    confidence: Share | None = Field(None, description="Confidence that the pooled failure "
                                                       "rate met the SLA there; null where "
                                                       "none was measured.")
    failure_rate: Share | None = Field(None, description="The pooled failure rate of those "
                                                         "lives.")
    ratio_to_table: Threshold | None = Field(
        None, description="A growth step's anchors: value over the Table 1 prior's value at "
                          "the same capacity.")


class CalibrationScale(AsGiven):
    """The simulated cluster of a calibration, as `headroom calibrate moment --json` writes
    it. The service checks capacity, steps, arrival_size_evidence and population_prior
    against the declaration; the rest is a record."""

    capacity: Cores | None = None
    years: float | None = Field(None, gt=0, le=1000, description="Simulated years per life.")
    arrival_rate: float | None = Field(None, gt=0, le=1e9, description="Deployments per hour.")
    observations: int | None = Field(None, ge=0, le=10**9, description=(
        "Prior pseudo-observations per process (§6)."))
    steps: int | None = Field(None, ge=1, le=1_000_000,
                              description="Steps per look-ahead horizon.")
    seed: int | None = Field(None, ge=0, le=2**63 - 1, description="The first life's seed.")
    iterations: int | None = Field(None, ge=1, le=1000, description="Binary-search steps.")
    between: list[Threshold] | None = Field(None, min_length=2, max_length=2, description=(
        "[lo, hi]: the bracket the search was narrowed to."))
    arrival_size_evidence: bool | None = None
    population_prior: GammaPriors | None = None

    @model_serializer(mode="wrap")
    def _as_given(self, handler: Any) -> dict[str, Any]:
        """As given, and a null as if not given (the checks read a missing key as "the
        same as the declaration")."""
        return {k: v for k, v in handler(self).items()
                if k in self.model_fields_set and v is not None}


class CalibrationRef(AsGiven):
    """A calibration by the service's recipe: its key (SHA-256 of `inputs`) and inputs."""

    key: str = Field(pattern=r"^[0-9a-f]{64}$")
    inputs: dict[str, Any]


class HeldOutTry(StrictModel):
    """One threshold the held-out check ran: its pooled failure rate on the held-out lives and
    the confidence they give that τ holds (null: no scale-out)."""

    threshold: Threshold
    failure_rate: Share
    confidence: Share | None = None


class HeldOutCheck(StrictModel):
    """The calibration's check of its search's answer on lives the search never saw: the
    answer, halved until those lives held τ at `target` confidence, is what is declared."""

    lives: int = Field(ge=1, le=10_000_000)
    seeds: list[int] = Field(min_length=2, max_length=2, description="[first, last] seed.")
    target: Share = Field(description="The confidence the held-out lives had to give.")
    met: bool = Field(description="false: no threshold tried held τ; nothing is declarable.")
    search_threshold: Threshold = Field(description="The search's own answer.")
    importance_sampled: bool = Field(False, description=(
        "true: the held-out lives were spread over badness buckets and weighted back "
        "(App. D), so that the rare lives that fail are in the sample."))
    tried: list[HeldOutTry] = Field(min_length=1, max_length=64,
                                    description="Each threshold run on the held-out lives.")


class GrowthStep(StrictModel):
    """The threshold calibrated for deployments that grow `lambda_factor` times as fast as the
    declared prior says (λ's prior mean × that factor, the engine told so)."""

    lambda_factor: float = Field(gt=1, le=100, allow_inf_nan=False)
    threshold: Threshold
    anchors: list[CalibratedAnchor] | None = Field(None, max_length=16)

    @model_serializer(mode="wrap")
    def _without_nulls(self, handler: Any) -> dict[str, Any]:
        return {k: v for k, v in handler(self).items() if v is not None}


class ThresholdDerivation(StrictModel):
    """Where a threshold came from. The service fills it in when the declaration gives no
    threshold; `headroom calibrate moment --json` prints one (inside its `policy`) that can be
    declared with the threshold it derived. Decisions use only `bounds`."""

    source: Literal["table", "calibration", "declared"]
    status: Literal["calibrating", "calibrated"] | None = Field(None, description=(
        "calibrating: the service is calibrating this declaration's threshold in the "
        "background (progress and ETA in GET .../state, `calibration`), and the cluster "
        "decides on `interim` meanwhile; calibrated: the threshold was derived for this "
        "declaration (a calibration's result, or the table's anchor for it). Set by the "
        "service, never declared."))
    interim: Literal["table_stricter_sla", "admit_nothing"] | None = Field(None, description=(
        "While calibrating, what the cluster decides on: table_stricter_sla, the table's "
        "threshold for this very declaration at τ = 1e-4, stricter than the declared τ; "
        "admit_nothing, every deployment rejected (reason threshold_calibrating) because no "
        "finished calibration is known to be as safe as τ here."))
    calibration: CalibrationRef | None = Field(None, description=(
        "The calibration this threshold comes from or waits for: its key and inputs."))
    cached: bool | None = Field(None, description=(
        "true: the calibration had finished for another declaration with the same inputs, "
        "and this one got its result at creation."))
    bounds: list[Threshold] | None = Field(
        None, min_length=2, max_length=2,
        description="[tightest, loosest] threshold the closed loop may move to; the "
                    "threshold must lie within. Absent only while nothing is admitted.")
    runs: int | None = Field(None, ge=1, le=10_000_000,
                             description="Seeded runs of the §2.1 model behind it.")
    confidence: float | None = Field(None, ge=0, le=1, description=(
        "Confidence that the failure rate stays within the SLA, where the runs give one: "
        "the rate pooled over every simulated cluster's scale-outs (a bootstrap over runs), "
        "not one cluster's own. Some runs' own rates exceed the SLA even where the pooled "
        "rate holds (docs/moments.md, \"One cluster's own rate\")."))
    sla: float | None = Field(None, gt=0, lt=1, description="The τ it was calibrated for.")
    failure_rate: float | None = Field(None, ge=0, le=1)
    utilization: float | None = Field(None, ge=0, le=1.5)
    table_sla: float | None = Field(None, gt=0, lt=1)
    anchors: list[CalibratedAnchor] | None = Field(None, max_length=16)
    scale: CalibrationScale | None = Field(None, description="The simulated cluster.")
    validation: HeldOutCheck | None = Field(None, description=(
        "The held-out check the threshold passed (runs and confidence above are then the "
        "held-out lives')."))
    by_growth: list[GrowthStep] | None = Field(
        None, max_length=8,
        description="A cluster that learns its population prior (policy.learn_prior) moves to "
                    "the step of the largest factor at or below its learnt λ factor, scaling "
                    "its threshold and the closed loop's bounds by the ratio of the steps "
                    "(docs/moments.md). The table fills it in where it has such calibrations.")

    @model_validator(mode="after")
    def _factors_rise(self) -> ThresholdDerivation:
        factors = [s.lambda_factor for s in self.by_growth or []]
        if factors != sorted(set(factors)):
            raise ValueError("derivation.by_growth: lambda_factor must rise from step to step")
        return self

    @model_serializer(mode="wrap")
    def _without_nulls(self, handler: Any) -> dict[str, Any]:
        """Stored and shown with only what the derivation states."""
        return {k: v for k, v in handler(self).items() if v is not None}


def _overflow_default_text() -> str:
    """policy.overflow_sd's default, as OVERFLOW_SD_BY_DEFAULT has it."""
    span = OVERFLOW_SD_BY_DEFAULT.get("second_moment")
    if span is None:
        return "0"
    return (f"{span[1]:g} for a second_moment cluster of {span[0]:,} cores or more that learns "
            "its prior, with the table's threshold and Table 1's priors (where it was "
            "measured); 0 otherwise")


class MomentPolicy(StrictModel):
    kind: Literal[POLICIES] = Field(  # type: ignore[valid-type]
        description="The rule: threshold (the zeroth moment, active cores), first_moment, "
                    "second_moment. second_moment is the one to declare: in simulations of "
                    "the paper's model at τ = 1e-4 it kept τ (or met it at the point estimate) "
                    "at every capacity measured from 500 to 100,000 cores, at 1.2-2.7× the "
                    "zeroth moment's utilisation; first_moment did not from 2,000 to 10,000 "
                    "cores (docs/moments.md, \"Which kind to declare\").")
    threshold: Threshold | None = Field(
        None,
        description="threshold / first_moment: t in cores; second_moment: the overflow bound "
                    "ρ. Default: derived for this declaration (capacity, SLA, kind, priors, "
                    "arrival rate) by calibrating the §2.1 model: at once where the shipped "
                    "table holds it, else in the background (derivation.status "
                    "calibrating, then calibrated). Give one as an expert override, e.g. "
                    "from `headroom calibrate moment`.")
    marginal: bool = Field(True, description="Advanced, a research knob: the marginal "
                                             "heuristic of §6.1 (false: the rule alone).")
    closed_loop: bool = Field(
        True, description="Tighten the threshold when the realized scale-out failure rate "
                          "is above the SLA with 95% confidence, loosen it (within "
                          "derivation.bounds) when far below; false keeps it fixed (the paper).")
    learn_prior: bool = Field(
        True, description="Learn the population prior from this cluster's deployments "
                          "(empirical Bayes on their scale-outs and core deaths; it leaves "
                          "Table 1's only when the evidence rejects it at 99.9%, and never "
                          "towards less demand): a leading signal where the failure-rate loop "
                          "lags. false keeps Table 1's prior (the paper). See docs/moments.md.")
    cautious_growth: float | None = Field(
        None, ge=1.0, le=100.0, allow_inf_nan=False,
        description="A cautious start: believe this cluster's deployments scale out this many "
                    "times as fast (λ) as the population prior says, at the declared "
                    "threshold, until the learnt prior's likelihood-ratio test rejects either "
                    "this growth in favour of slower (then the learnt prior takes over) or "
                    "the declared prior in favour of faster (then the learnt prior and its "
                    "growth-ladder step take over, with this growth kept as a floor until the "
                    "test rejects it in favour of slower). It guards against deployments "
                    "admitted before there is evidence, at some utilisation: see "
                    "docs/moments.md for where it helped and where it did not. Default: 2 "
                    "for a second_moment cluster that learns its prior, declared with the "
                    "table's threshold and Table 1's priors at a capacity where it was "
                    "measured to hold τ when the default without it did not (5,000 cores), "
                    "otherwise 1 (off); stored with the cluster. Above 1 needs learn_prior "
                    "and a first_moment or second_moment kind, and a declared value is refused "
                    "where the belief would refuse even a 1-core deployment into the empty "
                    "cluster (it would admit nothing, ever).")
    arrival_size_evidence: bool = Field(
        False, description="Advanced, a research knob: count each arriving deployment's "
                           "size as one observation of its "
                           "scale-out size σ (c − 1 ~ Pois(σ), as a scale-out's extra cores): "
                           "right where a deployment starts at the size it later scales out "
                           "by, as in the §2.1 simulator; the paper's engine does not. Its "
                           "thresholds are calibrated apart. No effect on the zeroth-moment "
                           "rule.")
    overflow_sd: float | None = Field(
        None, ge=0.0, le=3.0, allow_inf_nan=False,
        description="Where the scale-outs' `migrate` answer (reason cluster_overflow) starts: "
                    "once the cluster's expected cores plus this many standard deviations of "
                    "them reach its capacity at some point of the horizons, the deployment "
                    "with the largest expected peak is told to migrate. 0 waits for the "
                    "expected cores themselves; 1 is where Cantelli's bound, the one the "
                    "second moment rule uses, says overflow is as likely as not. Above 0 "
                    "needs second_moment (the only kind with variances). Default: "
                    f"{_overflow_default_text()}; stored with the cluster (docs/moments.md, "
                    "\"The overflow line\", has what each line did in simulation).")
    population_prior: GammaPriors | None = Field(
        None, description="The population prior deployments without their own start from, "
                          "instead of the paper's Table 1 (the learner, if on, starts from it "
                          "too). A declaration with its own prior is calibrated for it in "
                          "the background (derivation.status), like any declaration the "
                          "table does not hold.")
    arrival_rate: float | None = Field(
        None, gt=0, le=1e6, allow_inf_nan=False,
        description="Deployments arriving per hour, as the operator expects: the load the "
                    "threshold is calibrated for. Default: capacity_cores / 20,000 (the "
                    "paper's load, which fills ~92% of the cores under accept-all).")
    derivation: ThresholdDerivation | None = None

    @model_validator(mode="after")
    def _derivation_is_declarable(self) -> MomentPolicy:
        d = self.derivation
        if d is not None and (d.status == "calibrating" or d.interim is not None):
            raise ValueError("policy.derivation: a calibration still running is the "
                             "service's to declare: declare a finished derivation (one the "
                             "service shows once calibrated, or `headroom calibrate moment` "
                             "prints)")
        if d is not None and d.bounds is None:
            raise ValueError("policy.derivation needs bounds")
        return self


class MomentClusterCreate(StrictModel):
    model_config = {**StrictModel.model_config, "json_schema_extra": {"examples": [
        {"name": "paas-east", "capacity_cores": 20000, "sla": 0.0001,
         "policy": {"kind": "second_moment"}}]}}

    name: Name
    capacity_cores: Cores
    sla: float = Field(0.0001, gt=0, lt=1, allow_inf_nan=False,
                       description="Target scale-out failure rate τ: sets the derived threshold "
                                   "and the closed loop's target.")
    policy: MomentPolicy
    tenants: list[TenantIn] | None = Field(None, max_length=MAX_TENANTS, description=(
        "The tenants its deployments run for, with quotas in cores (every vector is "
        '{"cores": n}; docs/tenants.md); none: one anonymous stream of deployments.'))

    @model_validator(mode="after")
    def _tenants_are_in_cores(self) -> MomentClusterCreate:
        if self.tenants is not None:
            errors = tenant_errors([t.model_dump() for t in self.tenants], ["cores"])
            if errors:
                raise ValueError("; ".join(f"{e['field']}: {e['message']}" for e in errors))
        return self


class PriorObservations(StrictModel):
    """Pseudo-observations added to the deployment's statistics (§6 fn. 13)."""

    core_deaths: PseudoObservation = 0.0
    core_time: PseudoObservation = Field(0.0, description="Core-hours.")
    shutdowns: PseudoObservation = 0.0
    age_time: PseudoObservation = Field(0.0, description="Hours alive.")
    scaleouts: PseudoObservation = 0.0
    scaleout_time: PseudoObservation = Field(0.0, description="Hours of scale-out counting.")
    extra_cores: PseudoObservation = 0.0


class DeploymentPrior(StrictModel):
    gamma: GammaPriors | None = None
    observations: PriorObservations | None = None

    def engine_dict(self) -> dict[str, Any]:
        """The engine's (and the log's) form: only what the client gave, "lambda" spelled out."""
        return self.model_dump(by_alias=True, exclude_unset=True, exclude_none=True)


class DeploymentIn(StrictModel):
    model_config = {**StrictModel.model_config, "json_schema_extra": {"examples": [
        {"event_id": "d1", "deployment_id": "shop", "cores": 4, "at": 0}]}}

    event_id: ClientId | None = None
    deployment_id: SegmentId
    cores: Cores
    at: Hours
    category: Name | None = Field(None, description="User label; deployments with the same "
                                                    "label share a learnt prior (§7).")
    prior: DeploymentPrior | None = Field(
        None, description='{"gamma": {"lambda": [shape, rate], "mu": [...], "sigma": [...]}} '
                          'and/or {"observations": {...}} pseudo-observations (§6).')
    tenant: Name | None = Field(None, description=TENANT_DOC + " Its quota is in cores.")
    dry_run: bool = False


class ScaleEvent(StrictModel):
    model_config = {**StrictModel.model_config, "json_schema_extra": {"examples": [
        {"event_id": "s1", "cores": 2, "at": 3.5}]}}

    event_id: ClientId | None = None
    cores: Cores
    at: Hours


class AdmissionOut(BaseModel):
    decision: Literal["admitted", "rejected"]
    reason: str
    details: dict[str, Any]
    event_seq: int | None
    replayed: bool
    dry_run: bool = False


class MigrateAnswer(BaseModel):
    reason: Literal["outgrowing_cluster", "cluster_overflow"] = Field(description=(
        "outgrowing_cluster: this deployment alone is expected to need `share` of the cluster "
        "or more, or holds that much now. cluster_overflow: none is or does, but the "
        "cluster's expected cores (plus "
        "policy.overflow_sd standard deviations of them) reach its capacity "
        "(`expected_cluster_share` ≥ 1, or `overflow_line_share` ≥ 1 where that is given), "
        "and this is the deployment with the largest "
        "expected peak: moving it frees the most (one at a time; the next is told if the "
        "cluster is still expected to overflow without it)."))
    share: float = Field(description="The share of the capacity at which a deployment is told to migrate on its own.")
    expected_peak_cores: float = Field(description=(
        "The largest of its expected cores over the horizons (its moments as of the last "
        "admission decision), or the cores it holds now where that is more."))
    expected_share: float = Field(description="expected_peak_cores over the cluster's capacity.")
    expected_cluster_share: float | None = Field(None, description=(
        "The cluster's expected cores over its capacity, the largest over the horizons (null in "
        "answers logged before it was given)."))
    overflow_sd: float | None = Field(None, description=(
        "The cluster's policy.overflow_sd, where it is above 0 (null otherwise)."))
    overflow_line_share: float | None = Field(None, description=(
        "The cluster's expected cores plus overflow_sd standard deviations, over its capacity, "
        "the largest over the horizons: cluster_overflow is answered from 1 (null where "
        "overflow_sd is 0, whose line is expected_cluster_share)."))


class ScaleOutOut(BaseModel):
    decision: Literal["granted", "denied"]
    reason: Literal["quota_exceeded"] | None = Field(None, description=(
        "Where tenants' quotas refused it: the deployment's tenant would exceed its quota "
        "(`details.quota`); not counted as the cluster's scale-out failure."))
    details: dict[str, Any] | None = None
    active_cores: int
    sla_failure_rate: float
    migrate: MigrateAnswer | None = Field(None, description=(
        "Set when this deployment's own moments (as of the last admission) expect it to need "
        "`share` of the cluster or more, or it holds that much now, or when the cluster's "
        "expected cores (plus "
        "policy.overflow_sd standard deviations) reach its capacity and this deployment has "
        "the largest expected peak: move it to a larger "
        "cluster. No admission decision protects the SLA from deployments already admitted; "
        "this cluster will refuse their scale-outs once they have grown into the rest. The "
        "same deployments /state's outgrowing lists; null otherwise and for the zeroth moment."))
    event_seq: int
    replayed: bool


class ScaleInOut(BaseModel):
    decision: Literal["released"]
    active_cores: int
    alive: bool
    event_seq: int
    replayed: bool
