from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.moment_state_policy import MomentStatePolicy
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.admissible_view import AdmissibleView
    from ..models.calibration_progress import CalibrationProgress
    from ..models.closed_loop_view import ClosedLoopView
    from ..models.grid_view import GridView
    from ..models.growth_calibration_view import GrowthCalibrationView
    from ..models.growth_ladder_view import GrowthLadderView
    from ..models.learner_view import LearnerView
    from ..models.moment_state_overflow_bound_per_horizon_type_0 import MomentStateOverflowBoundPerHorizonType0
    from ..models.moment_state_peak_expected_cores import MomentStatePeakExpectedCores
    from ..models.moment_state_threshold_derivation_type_0 import MomentStateThresholdDerivationType0
    from ..models.outgrowing_view import OutgrowingView
    from ..models.tenancy_view import TenancyView


T = TypeVar("T", bound="MomentState")


@_attrs_define
class MomentState:
    """
    Attributes:
        active_cores (int):
        admissible (AdmissibleView): What the cluster can admit as it stands, from dry runs of deployments on the
            population prior (app/policies/moments/admissible.py).
        admitted (int):
        arrival_size_evidence (bool):
        capacity (int):
        closed_loop (ClosedLoopView | None):
        cluster_id (str):
        deployments (int): Live deployments.
        gate (None | str): Why every deployment is rejected whatever the rule says: threshold_calibrating (the
            declaration's threshold is being calibrated, nothing safe stands in), no_threshold_meets_sla (its calibration
            found none); null: the rule decides.
        grid (GridView):
        growth_calibration (GrowthCalibrationView | None):
        growth_ladder (GrowthLadderView | None):
        marginal (bool):
        meets_sla (bool | None):
        now (float):
        outgrowing (None | OutgrowingView):
        overflow_bound_per_horizon (MomentStateOverflowBoundPerHorizonType0 | None):
        peak_expected_cores (MomentStatePeakExpectedCores):
        policy (MomentStatePolicy):
        population_prior (LearnerView | None):
        rejected (int):
        safe (bool): The rule holds now, without any arrival.
        scaleout_requests (int):
        scaleouts_denied (int):
        sla (float | None):
        sla_failure_rate (float):
        threshold (float | None): t in cores (threshold, first_moment) or ρ (second_moment) as the closed loop and
            growth ladder left it; null while `gate` refuses every deployment.
        threshold_derivation (MomentStateThresholdDerivationType0 | None): How the threshold was derived: the
            declaration's policy.derivation.
        utilization_now (float):
        version (int): Events applied to the cluster so far.
        calibration (CalibrationProgress | None | Unset): While threshold_derivation.status is calibrating: the
            background calibration's status (queued, running, done, failed, cancelled), lives simulated of the most it can
            take, and when it expects to finish.
        tenancy (None | TenancyView | Unset): Where the cluster declares tenants: each one's cores in use, quota and
            borrowing, and the quotas' generation.
    """

    active_cores: int
    admissible: AdmissibleView
    admitted: int
    arrival_size_evidence: bool
    capacity: int
    closed_loop: ClosedLoopView | None
    cluster_id: str
    deployments: int
    gate: None | str
    grid: GridView
    growth_calibration: GrowthCalibrationView | None
    growth_ladder: GrowthLadderView | None
    marginal: bool
    meets_sla: bool | None
    now: float
    outgrowing: None | OutgrowingView
    overflow_bound_per_horizon: MomentStateOverflowBoundPerHorizonType0 | None
    peak_expected_cores: MomentStatePeakExpectedCores
    policy: MomentStatePolicy
    population_prior: LearnerView | None
    rejected: int
    safe: bool
    scaleout_requests: int
    scaleouts_denied: int
    sla: float | None
    sla_failure_rate: float
    threshold: float | None
    threshold_derivation: MomentStateThresholdDerivationType0 | None
    utilization_now: float
    version: int
    calibration: CalibrationProgress | None | Unset = UNSET
    tenancy: None | TenancyView | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.calibration_progress import CalibrationProgress  # noqa: PLC0415
        from ..models.closed_loop_view import ClosedLoopView  # noqa: PLC0415
        from ..models.growth_calibration_view import GrowthCalibrationView  # noqa: PLC0415
        from ..models.growth_ladder_view import GrowthLadderView  # noqa: PLC0415
        from ..models.learner_view import LearnerView  # noqa: PLC0415
        from ..models.moment_state_overflow_bound_per_horizon_type_0 import MomentStateOverflowBoundPerHorizonType0  # noqa: PLC0415
        from ..models.moment_state_threshold_derivation_type_0 import MomentStateThresholdDerivationType0  # noqa: PLC0415
        from ..models.outgrowing_view import OutgrowingView  # noqa: PLC0415
        from ..models.tenancy_view import TenancyView  # noqa: PLC0415

        active_cores = self.active_cores

        admissible = self.admissible.to_dict()

        admitted = self.admitted

        arrival_size_evidence = self.arrival_size_evidence

        capacity = self.capacity

        closed_loop: dict[str, Any] | None
        if isinstance(self.closed_loop, ClosedLoopView):
            closed_loop = self.closed_loop.to_dict()
        else:
            closed_loop = self.closed_loop

        cluster_id = self.cluster_id

        deployments = self.deployments

        gate: None | str
        gate = self.gate

        grid = self.grid.to_dict()

        growth_calibration: dict[str, Any] | None
        if isinstance(self.growth_calibration, GrowthCalibrationView):
            growth_calibration = self.growth_calibration.to_dict()
        else:
            growth_calibration = self.growth_calibration

        growth_ladder: dict[str, Any] | None
        if isinstance(self.growth_ladder, GrowthLadderView):
            growth_ladder = self.growth_ladder.to_dict()
        else:
            growth_ladder = self.growth_ladder

        marginal = self.marginal

        meets_sla: bool | None
        meets_sla = self.meets_sla

        now = self.now

        outgrowing: dict[str, Any] | None
        if isinstance(self.outgrowing, OutgrowingView):
            outgrowing = self.outgrowing.to_dict()
        else:
            outgrowing = self.outgrowing

        overflow_bound_per_horizon: dict[str, Any] | None
        if isinstance(self.overflow_bound_per_horizon, MomentStateOverflowBoundPerHorizonType0):
            overflow_bound_per_horizon = self.overflow_bound_per_horizon.to_dict()
        else:
            overflow_bound_per_horizon = self.overflow_bound_per_horizon

        peak_expected_cores = self.peak_expected_cores.to_dict()

        policy = self.policy.value

        population_prior: dict[str, Any] | None
        if isinstance(self.population_prior, LearnerView):
            population_prior = self.population_prior.to_dict()
        else:
            population_prior = self.population_prior

        rejected = self.rejected

        safe = self.safe

        scaleout_requests = self.scaleout_requests

        scaleouts_denied = self.scaleouts_denied

        sla: float | None
        sla = self.sla

        sla_failure_rate = self.sla_failure_rate

        threshold: float | None
        threshold = self.threshold

        threshold_derivation: dict[str, Any] | None
        if isinstance(self.threshold_derivation, MomentStateThresholdDerivationType0):
            threshold_derivation = self.threshold_derivation.to_dict()
        else:
            threshold_derivation = self.threshold_derivation

        utilization_now = self.utilization_now

        version = self.version

        calibration: dict[str, Any] | None | Unset
        if isinstance(self.calibration, Unset):
            calibration = UNSET
        elif isinstance(self.calibration, CalibrationProgress):
            calibration = self.calibration.to_dict()
        else:
            calibration = self.calibration

        tenancy: dict[str, Any] | None | Unset
        if isinstance(self.tenancy, Unset):
            tenancy = UNSET
        elif isinstance(self.tenancy, TenancyView):
            tenancy = self.tenancy.to_dict()
        else:
            tenancy = self.tenancy

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "active_cores": active_cores,
                "admissible": admissible,
                "admitted": admitted,
                "arrival_size_evidence": arrival_size_evidence,
                "capacity": capacity,
                "closed_loop": closed_loop,
                "cluster_id": cluster_id,
                "deployments": deployments,
                "gate": gate,
                "grid": grid,
                "growth_calibration": growth_calibration,
                "growth_ladder": growth_ladder,
                "marginal": marginal,
                "meets_sla": meets_sla,
                "now": now,
                "outgrowing": outgrowing,
                "overflow_bound_per_horizon": overflow_bound_per_horizon,
                "peak_expected_cores": peak_expected_cores,
                "policy": policy,
                "population_prior": population_prior,
                "rejected": rejected,
                "safe": safe,
                "scaleout_requests": scaleout_requests,
                "scaleouts_denied": scaleouts_denied,
                "sla": sla,
                "sla_failure_rate": sla_failure_rate,
                "threshold": threshold,
                "threshold_derivation": threshold_derivation,
                "utilization_now": utilization_now,
                "version": version,
            }
        )
        if calibration is not UNSET:
            field_dict["calibration"] = calibration
        if tenancy is not UNSET:
            field_dict["tenancy"] = tenancy

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.admissible_view import AdmissibleView  # noqa: PLC0415
        from ..models.calibration_progress import CalibrationProgress  # noqa: PLC0415
        from ..models.closed_loop_view import ClosedLoopView  # noqa: PLC0415
        from ..models.grid_view import GridView  # noqa: PLC0415
        from ..models.growth_calibration_view import GrowthCalibrationView  # noqa: PLC0415
        from ..models.growth_ladder_view import GrowthLadderView  # noqa: PLC0415
        from ..models.learner_view import LearnerView  # noqa: PLC0415
        from ..models.moment_state_overflow_bound_per_horizon_type_0 import MomentStateOverflowBoundPerHorizonType0  # noqa: PLC0415
        from ..models.moment_state_peak_expected_cores import MomentStatePeakExpectedCores  # noqa: PLC0415
        from ..models.moment_state_threshold_derivation_type_0 import MomentStateThresholdDerivationType0  # noqa: PLC0415
        from ..models.outgrowing_view import OutgrowingView  # noqa: PLC0415
        from ..models.tenancy_view import TenancyView  # noqa: PLC0415

        d = dict(src_dict)
        active_cores = d.pop("active_cores")

        admissible = AdmissibleView.from_dict(d.pop("admissible"))

        admitted = d.pop("admitted")

        arrival_size_evidence = d.pop("arrival_size_evidence")

        capacity = d.pop("capacity")

        def _parse_closed_loop(data: object) -> ClosedLoopView | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                closed_loop_type_0 = ClosedLoopView.from_dict(data)

                return closed_loop_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ClosedLoopView | None, data)

        closed_loop = _parse_closed_loop(d.pop("closed_loop"))

        cluster_id = d.pop("cluster_id")

        deployments = d.pop("deployments")

        def _parse_gate(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        gate = _parse_gate(d.pop("gate"))

        grid = GridView.from_dict(d.pop("grid"))

        def _parse_growth_calibration(data: object) -> GrowthCalibrationView | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                growth_calibration_type_0 = GrowthCalibrationView.from_dict(data)

                return growth_calibration_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(GrowthCalibrationView | None, data)

        growth_calibration = _parse_growth_calibration(d.pop("growth_calibration"))

        def _parse_growth_ladder(data: object) -> GrowthLadderView | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                growth_ladder_type_0 = GrowthLadderView.from_dict(data)

                return growth_ladder_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(GrowthLadderView | None, data)

        growth_ladder = _parse_growth_ladder(d.pop("growth_ladder"))

        marginal = d.pop("marginal")

        def _parse_meets_sla(data: object) -> bool | None:
            if data is None:
                return data
            return cast(bool | None, data)

        meets_sla = _parse_meets_sla(d.pop("meets_sla"))

        now = d.pop("now")

        def _parse_outgrowing(data: object) -> None | OutgrowingView:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                outgrowing_type_0 = OutgrowingView.from_dict(data)

                return outgrowing_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | OutgrowingView, data)

        outgrowing = _parse_outgrowing(d.pop("outgrowing"))

        def _parse_overflow_bound_per_horizon(data: object) -> MomentStateOverflowBoundPerHorizonType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                overflow_bound_per_horizon_type_0 = MomentStateOverflowBoundPerHorizonType0.from_dict(data)

                return overflow_bound_per_horizon_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MomentStateOverflowBoundPerHorizonType0 | None, data)

        overflow_bound_per_horizon = _parse_overflow_bound_per_horizon(d.pop("overflow_bound_per_horizon"))

        peak_expected_cores = MomentStatePeakExpectedCores.from_dict(d.pop("peak_expected_cores"))

        policy = MomentStatePolicy(d.pop("policy"))

        def _parse_population_prior(data: object) -> LearnerView | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                population_prior_type_0 = LearnerView.from_dict(data)

                return population_prior_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(LearnerView | None, data)

        population_prior = _parse_population_prior(d.pop("population_prior"))

        rejected = d.pop("rejected")

        safe = d.pop("safe")

        scaleout_requests = d.pop("scaleout_requests")

        scaleouts_denied = d.pop("scaleouts_denied")

        def _parse_sla(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        sla = _parse_sla(d.pop("sla"))

        sla_failure_rate = d.pop("sla_failure_rate")

        def _parse_threshold(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        threshold = _parse_threshold(d.pop("threshold"))

        def _parse_threshold_derivation(data: object) -> MomentStateThresholdDerivationType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                threshold_derivation_type_0 = MomentStateThresholdDerivationType0.from_dict(data)

                return threshold_derivation_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MomentStateThresholdDerivationType0 | None, data)

        threshold_derivation = _parse_threshold_derivation(d.pop("threshold_derivation"))

        utilization_now = d.pop("utilization_now")

        version = d.pop("version")

        def _parse_calibration(data: object) -> CalibrationProgress | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                calibration_type_0 = CalibrationProgress.from_dict(data)

                return calibration_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CalibrationProgress | None | Unset, data)

        calibration = _parse_calibration(d.pop("calibration", UNSET))

        def _parse_tenancy(data: object) -> None | TenancyView | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                tenancy_type_0 = TenancyView.from_dict(data)

                return tenancy_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TenancyView | Unset, data)

        tenancy = _parse_tenancy(d.pop("tenancy", UNSET))

        moment_state = cls(
            active_cores=active_cores,
            admissible=admissible,
            admitted=admitted,
            arrival_size_evidence=arrival_size_evidence,
            capacity=capacity,
            closed_loop=closed_loop,
            cluster_id=cluster_id,
            deployments=deployments,
            gate=gate,
            grid=grid,
            growth_calibration=growth_calibration,
            growth_ladder=growth_ladder,
            marginal=marginal,
            meets_sla=meets_sla,
            now=now,
            outgrowing=outgrowing,
            overflow_bound_per_horizon=overflow_bound_per_horizon,
            peak_expected_cores=peak_expected_cores,
            policy=policy,
            population_prior=population_prior,
            rejected=rejected,
            safe=safe,
            scaleout_requests=scaleout_requests,
            scaleouts_denied=scaleouts_denied,
            sla=sla,
            sla_failure_rate=sla_failure_rate,
            threshold=threshold,
            threshold_derivation=threshold_derivation,
            utilization_now=utilization_now,
            version=version,
            calibration=calibration,
            tenancy=tenancy,
        )

        return moment_state
