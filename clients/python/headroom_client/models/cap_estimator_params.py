from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="CapEstimatorParams")


@_attrs_define
class CapEstimatorParams:
    """The online Gaussian N(μ, σ²) that forecasts the next period's demand (estimator.py).

    Attributes:
        initial_spread (float | Unset): The first demand λ seeds the spread with (initial_spread · λ)². Default: 0.1.
        level_weight (float | Unset): β: weight of the newest demand in the level μ (an exponentially weighted mean).
            Default: 0.5.
        sigma_floor (float | Unset): σ is at least this share of the level |μ|. Default: 0.01.
        sigma_floor_abs (float | Unset): σ is at least this, in demand units. Default: 0.001.
        spread_weight (float | Unset): γ: weight of the newest squared one-step forecast error in the spread. Default:
            0.05.
        tail_factor (float | Unset): κ: σ is κ times the root mean square of the one-step forecast errors. Default: 1.6.
    """

    initial_spread: float | Unset = 0.1
    level_weight: float | Unset = 0.5
    sigma_floor: float | Unset = 0.01
    sigma_floor_abs: float | Unset = 0.001
    spread_weight: float | Unset = 0.05
    tail_factor: float | Unset = 1.6

    def to_dict(self) -> dict[str, Any]:
        initial_spread = self.initial_spread

        level_weight = self.level_weight

        sigma_floor = self.sigma_floor

        sigma_floor_abs = self.sigma_floor_abs

        spread_weight = self.spread_weight

        tail_factor = self.tail_factor

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if initial_spread is not UNSET:
            field_dict["initial_spread"] = initial_spread
        if level_weight is not UNSET:
            field_dict["level_weight"] = level_weight
        if sigma_floor is not UNSET:
            field_dict["sigma_floor"] = sigma_floor
        if sigma_floor_abs is not UNSET:
            field_dict["sigma_floor_abs"] = sigma_floor_abs
        if spread_weight is not UNSET:
            field_dict["spread_weight"] = spread_weight
        if tail_factor is not UNSET:
            field_dict["tail_factor"] = tail_factor

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        initial_spread = d.pop("initial_spread", UNSET)

        level_weight = d.pop("level_weight", UNSET)

        sigma_floor = d.pop("sigma_floor", UNSET)

        sigma_floor_abs = d.pop("sigma_floor_abs", UNSET)

        spread_weight = d.pop("spread_weight", UNSET)

        tail_factor = d.pop("tail_factor", UNSET)

        cap_estimator_params = cls(
            initial_spread=initial_spread,
            level_weight=level_weight,
            sigma_floor=sigma_floor,
            sigma_floor_abs=sigma_floor_abs,
            spread_weight=spread_weight,
            tail_factor=tail_factor,
        )

        return cap_estimator_params
