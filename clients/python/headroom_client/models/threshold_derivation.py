from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.threshold_derivation_interim_type_0 import ThresholdDerivationInterimType0
from ..models.threshold_derivation_source import ThresholdDerivationSource
from ..models.threshold_derivation_status_type_0 import ThresholdDerivationStatusType0
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.calibrated_anchor import CalibratedAnchor
    from ..models.calibration_ref import CalibrationRef
    from ..models.calibration_scale import CalibrationScale
    from ..models.growth_step import GrowthStep
    from ..models.held_out_check import HeldOutCheck


T = TypeVar("T", bound="ThresholdDerivation")


@_attrs_define
class ThresholdDerivation:
    """Where a threshold came from. The service fills it in when the declaration gives no
    threshold; `headroom calibrate moment --json` prints one (inside its `policy`) that can be
    declared with the threshold it derived. Decisions use only `bounds`.

        Attributes:
            source (ThresholdDerivationSource):
            anchors (list[CalibratedAnchor] | None | Unset):
            bounds (list[float] | None | Unset): [tightest, loosest] threshold the closed loop may move to; the threshold
                must lie within. Absent only while nothing is admitted.
            by_growth (list[GrowthStep] | None | Unset): A cluster that learns its population prior (policy.learn_prior)
                moves to the step of the largest factor at or below its learnt λ factor, scaling its threshold and the closed
                loop's bounds by the ratio of the steps (docs/moments.md). The table fills it in where it has such calibrations.
            cached (bool | None | Unset): true: the calibration had finished for another declaration with the same inputs,
                and this one got its result at creation.
            calibration (CalibrationRef | None | Unset): The calibration this threshold comes from or waits for: its key and
                inputs.
            confidence (float | None | Unset): Confidence that the failure rate stays within the SLA, where the runs give
                one: the rate pooled over every simulated cluster's scale-outs (a bootstrap over runs), not one cluster's own.
                Some runs' own rates exceed the SLA even where the pooled rate holds (docs/moments.md, "One cluster's own
                rate").
            failure_rate (float | None | Unset):
            interim (None | ThresholdDerivationInterimType0 | Unset): While calibrating, what the cluster decides on:
                table_stricter_sla, the table's threshold for this very declaration at τ = 1e-4, stricter than the declared τ;
                admit_nothing, every deployment rejected (reason threshold_calibrating) because no finished calibration is known
                to be as safe as τ here.
            runs (int | None | Unset): Seeded runs of the §2.1 model behind it.
            scale (CalibrationScale | None | Unset): The simulated cluster.
            sla (float | None | Unset): The τ it was calibrated for.
            status (None | ThresholdDerivationStatusType0 | Unset): calibrating: the service is calibrating this
                declaration's threshold in the background (progress and ETA in GET .../state, `calibration`), and the cluster
                decides on `interim` meanwhile; calibrated: the threshold was derived for this declaration (a calibration's
                result, or the table's anchor for it). Set by the service, never declared.
            table_sla (float | None | Unset):
            utilization (float | None | Unset):
            validation (HeldOutCheck | None | Unset): The held-out check the threshold passed (runs and confidence above are
                then the held-out lives').
    """

    source: ThresholdDerivationSource
    anchors: list[CalibratedAnchor] | None | Unset = UNSET
    bounds: list[float] | None | Unset = UNSET
    by_growth: list[GrowthStep] | None | Unset = UNSET
    cached: bool | None | Unset = UNSET
    calibration: CalibrationRef | None | Unset = UNSET
    confidence: float | None | Unset = UNSET
    failure_rate: float | None | Unset = UNSET
    interim: None | ThresholdDerivationInterimType0 | Unset = UNSET
    runs: int | None | Unset = UNSET
    scale: CalibrationScale | None | Unset = UNSET
    sla: float | None | Unset = UNSET
    status: None | ThresholdDerivationStatusType0 | Unset = UNSET
    table_sla: float | None | Unset = UNSET
    utilization: float | None | Unset = UNSET
    validation: HeldOutCheck | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.calibration_ref import CalibrationRef  # noqa: PLC0415
        from ..models.calibration_scale import CalibrationScale  # noqa: PLC0415
        from ..models.held_out_check import HeldOutCheck  # noqa: PLC0415

        source = self.source.value

        anchors: list[dict[str, Any]] | None | Unset
        if isinstance(self.anchors, Unset):
            anchors = UNSET
        elif isinstance(self.anchors, list):
            anchors = []
            for anchors_type_0_item_data in self.anchors:
                anchors_type_0_item = anchors_type_0_item_data.to_dict()
                anchors.append(anchors_type_0_item)

        else:
            anchors = self.anchors

        bounds: list[float] | None | Unset
        if isinstance(self.bounds, Unset):
            bounds = UNSET
        elif isinstance(self.bounds, list):
            bounds = self.bounds

        else:
            bounds = self.bounds

        by_growth: list[dict[str, Any]] | None | Unset
        if isinstance(self.by_growth, Unset):
            by_growth = UNSET
        elif isinstance(self.by_growth, list):
            by_growth = []
            for by_growth_type_0_item_data in self.by_growth:
                by_growth_type_0_item = by_growth_type_0_item_data.to_dict()
                by_growth.append(by_growth_type_0_item)

        else:
            by_growth = self.by_growth

        cached: bool | None | Unset
        if isinstance(self.cached, Unset):
            cached = UNSET
        else:
            cached = self.cached

        calibration: dict[str, Any] | None | Unset
        if isinstance(self.calibration, Unset):
            calibration = UNSET
        elif isinstance(self.calibration, CalibrationRef):
            calibration = self.calibration.to_dict()
        else:
            calibration = self.calibration

        confidence: float | None | Unset
        if isinstance(self.confidence, Unset):
            confidence = UNSET
        else:
            confidence = self.confidence

        failure_rate: float | None | Unset
        if isinstance(self.failure_rate, Unset):
            failure_rate = UNSET
        else:
            failure_rate = self.failure_rate

        interim: None | str | Unset
        if isinstance(self.interim, Unset):
            interim = UNSET
        elif isinstance(self.interim, ThresholdDerivationInterimType0):
            interim = self.interim.value
        else:
            interim = self.interim

        runs: int | None | Unset
        if isinstance(self.runs, Unset):
            runs = UNSET
        else:
            runs = self.runs

        scale: dict[str, Any] | None | Unset
        if isinstance(self.scale, Unset):
            scale = UNSET
        elif isinstance(self.scale, CalibrationScale):
            scale = self.scale.to_dict()
        else:
            scale = self.scale

        sla: float | None | Unset
        if isinstance(self.sla, Unset):
            sla = UNSET
        else:
            sla = self.sla

        status: None | str | Unset
        if isinstance(self.status, Unset):
            status = UNSET
        elif isinstance(self.status, ThresholdDerivationStatusType0):
            status = self.status.value
        else:
            status = self.status

        table_sla: float | None | Unset
        if isinstance(self.table_sla, Unset):
            table_sla = UNSET
        else:
            table_sla = self.table_sla

        utilization: float | None | Unset
        if isinstance(self.utilization, Unset):
            utilization = UNSET
        else:
            utilization = self.utilization

        validation: dict[str, Any] | None | Unset
        if isinstance(self.validation, Unset):
            validation = UNSET
        elif isinstance(self.validation, HeldOutCheck):
            validation = self.validation.to_dict()
        else:
            validation = self.validation

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "source": source,
            }
        )
        if anchors is not UNSET:
            field_dict["anchors"] = anchors
        if bounds is not UNSET:
            field_dict["bounds"] = bounds
        if by_growth is not UNSET:
            field_dict["by_growth"] = by_growth
        if cached is not UNSET:
            field_dict["cached"] = cached
        if calibration is not UNSET:
            field_dict["calibration"] = calibration
        if confidence is not UNSET:
            field_dict["confidence"] = confidence
        if failure_rate is not UNSET:
            field_dict["failure_rate"] = failure_rate
        if interim is not UNSET:
            field_dict["interim"] = interim
        if runs is not UNSET:
            field_dict["runs"] = runs
        if scale is not UNSET:
            field_dict["scale"] = scale
        if sla is not UNSET:
            field_dict["sla"] = sla
        if status is not UNSET:
            field_dict["status"] = status
        if table_sla is not UNSET:
            field_dict["table_sla"] = table_sla
        if utilization is not UNSET:
            field_dict["utilization"] = utilization
        if validation is not UNSET:
            field_dict["validation"] = validation

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.calibrated_anchor import CalibratedAnchor  # noqa: PLC0415
        from ..models.calibration_ref import CalibrationRef  # noqa: PLC0415
        from ..models.calibration_scale import CalibrationScale  # noqa: PLC0415
        from ..models.growth_step import GrowthStep  # noqa: PLC0415
        from ..models.held_out_check import HeldOutCheck  # noqa: PLC0415

        d = dict(src_dict)
        source = ThresholdDerivationSource(d.pop("source"))

        def _parse_anchors(data: object) -> list[CalibratedAnchor] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                anchors_type_0 = []
                _anchors_type_0 = data
                for anchors_type_0_item_data in _anchors_type_0:
                    anchors_type_0_item = CalibratedAnchor.from_dict(anchors_type_0_item_data)

                    anchors_type_0.append(anchors_type_0_item)

                return anchors_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[CalibratedAnchor] | None | Unset, data)

        anchors = _parse_anchors(d.pop("anchors", UNSET))

        def _parse_bounds(data: object) -> list[float] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                bounds_type_0 = cast(list[float], data)

                return bounds_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[float] | None | Unset, data)

        bounds = _parse_bounds(d.pop("bounds", UNSET))

        def _parse_by_growth(data: object) -> list[GrowthStep] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                by_growth_type_0 = []
                _by_growth_type_0 = data
                for by_growth_type_0_item_data in _by_growth_type_0:
                    by_growth_type_0_item = GrowthStep.from_dict(by_growth_type_0_item_data)

                    by_growth_type_0.append(by_growth_type_0_item)

                return by_growth_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[GrowthStep] | None | Unset, data)

        by_growth = _parse_by_growth(d.pop("by_growth", UNSET))

        def _parse_cached(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        cached = _parse_cached(d.pop("cached", UNSET))

        def _parse_calibration(data: object) -> CalibrationRef | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                calibration_type_0 = CalibrationRef.from_dict(data)

                return calibration_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CalibrationRef | None | Unset, data)

        calibration = _parse_calibration(d.pop("calibration", UNSET))

        def _parse_confidence(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        confidence = _parse_confidence(d.pop("confidence", UNSET))

        def _parse_failure_rate(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        failure_rate = _parse_failure_rate(d.pop("failure_rate", UNSET))

        def _parse_interim(data: object) -> None | ThresholdDerivationInterimType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                interim_type_0 = ThresholdDerivationInterimType0(data)

                return interim_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ThresholdDerivationInterimType0 | Unset, data)

        interim = _parse_interim(d.pop("interim", UNSET))

        def _parse_runs(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        runs = _parse_runs(d.pop("runs", UNSET))

        def _parse_scale(data: object) -> CalibrationScale | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                scale_type_0 = CalibrationScale.from_dict(data)

                return scale_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CalibrationScale | None | Unset, data)

        scale = _parse_scale(d.pop("scale", UNSET))

        def _parse_sla(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        sla = _parse_sla(d.pop("sla", UNSET))

        def _parse_status(data: object) -> None | ThresholdDerivationStatusType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                status_type_0 = ThresholdDerivationStatusType0(data)

                return status_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ThresholdDerivationStatusType0 | Unset, data)

        status = _parse_status(d.pop("status", UNSET))

        def _parse_table_sla(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        table_sla = _parse_table_sla(d.pop("table_sla", UNSET))

        def _parse_utilization(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        utilization = _parse_utilization(d.pop("utilization", UNSET))

        def _parse_validation(data: object) -> HeldOutCheck | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                validation_type_0 = HeldOutCheck.from_dict(data)

                return validation_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(HeldOutCheck | None | Unset, data)

        validation = _parse_validation(d.pop("validation", UNSET))

        threshold_derivation = cls(
            source=source,
            anchors=anchors,
            bounds=bounds,
            by_growth=by_growth,
            cached=cached,
            calibration=calibration,
            confidence=confidence,
            failure_rate=failure_rate,
            interim=interim,
            runs=runs,
            scale=scale,
            sla=sla,
            status=status,
            table_sla=table_sla,
            utilization=utilization,
            validation=validation,
        )

        return threshold_derivation
