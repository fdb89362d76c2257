from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.tracking_estimator_params import TrackingEstimatorParams


T = TypeVar("T", bound="QuantileTrackingParams")


@_attrs_define
class QuantileTrackingParams:
    """
    Attributes:
        estimator (None | TrackingEstimatorParams | Unset): null: the defaults.
        initial_offset (float | None | Unset): q_1, the starting offset in forecast errors; null: the Gaussian z_ε.
        step (float | Unset): η: how far one period's violation (or its absence) moves the offset, in forecast errors.
            Default: 1.0.
    """

    estimator: None | TrackingEstimatorParams | Unset = UNSET
    initial_offset: float | None | Unset = UNSET
    step: float | Unset = 1.0

    def to_dict(self) -> dict[str, Any]:
        from ..models.tracking_estimator_params import TrackingEstimatorParams  # noqa: PLC0415

        estimator: dict[str, Any] | None | Unset
        if isinstance(self.estimator, Unset):
            estimator = UNSET
        elif isinstance(self.estimator, TrackingEstimatorParams):
            estimator = self.estimator.to_dict()
        else:
            estimator = self.estimator

        initial_offset: float | None | Unset
        if isinstance(self.initial_offset, Unset):
            initial_offset = UNSET
        else:
            initial_offset = self.initial_offset

        step = self.step

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if estimator is not UNSET:
            field_dict["estimator"] = estimator
        if initial_offset is not UNSET:
            field_dict["initial_offset"] = initial_offset
        if step is not UNSET:
            field_dict["step"] = step

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.tracking_estimator_params import TrackingEstimatorParams  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_estimator(data: object) -> None | TrackingEstimatorParams | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                estimator_type_0 = TrackingEstimatorParams.from_dict(data)

                return estimator_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TrackingEstimatorParams | Unset, data)

        estimator = _parse_estimator(d.pop("estimator", UNSET))

        def _parse_initial_offset(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        initial_offset = _parse_initial_offset(d.pop("initial_offset", UNSET))

        step = d.pop("step", UNSET)

        quantile_tracking_params = cls(
            estimator=estimator,
            initial_offset=initial_offset,
            step=step,
        )

        return quantile_tracking_params
