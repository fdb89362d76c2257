from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="GrowthCalibrationView")


@_attrs_define
class GrowthCalibrationView:
    """
    Attributes:
        beyond_calibration (bool):
        calibrated_lambda_factors (list[float]):
        learnt_lambda_factor (float):
        learnt_mu_factor (float):
        ratio (float):
    """

    beyond_calibration: bool
    calibrated_lambda_factors: list[float]
    learnt_lambda_factor: float
    learnt_mu_factor: float
    ratio: float

    def to_dict(self) -> dict[str, Any]:
        beyond_calibration = self.beyond_calibration

        calibrated_lambda_factors = self.calibrated_lambda_factors

        learnt_lambda_factor = self.learnt_lambda_factor

        learnt_mu_factor = self.learnt_mu_factor

        ratio = self.ratio

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "beyond_calibration": beyond_calibration,
                "calibrated_lambda_factors": calibrated_lambda_factors,
                "learnt_lambda_factor": learnt_lambda_factor,
                "learnt_mu_factor": learnt_mu_factor,
                "ratio": ratio,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        beyond_calibration = d.pop("beyond_calibration")

        calibrated_lambda_factors = cast(list[float], d.pop("calibrated_lambda_factors"))

        learnt_lambda_factor = d.pop("learnt_lambda_factor")

        learnt_mu_factor = d.pop("learnt_mu_factor")

        ratio = d.pop("ratio")

        growth_calibration_view = cls(
            beyond_calibration=beyond_calibration,
            calibrated_lambda_factors=calibrated_lambda_factors,
            learnt_lambda_factor=learnt_lambda_factor,
            learnt_mu_factor=learnt_mu_factor,
            ratio=ratio,
        )

        return growth_calibration_view
