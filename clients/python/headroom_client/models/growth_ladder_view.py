from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="GrowthLadderView")


@_attrs_define
class GrowthLadderView:
    """
    Attributes:
        factor (float): The step in use.
        steps (list[list[float]]): [λ factor, threshold] pairs.
        threshold (float):
    """

    factor: float
    steps: list[list[float]]
    threshold: float

    def to_dict(self) -> dict[str, Any]:
        factor = self.factor

        steps = []
        for steps_item_data in self.steps:
            steps_item = steps_item_data

            steps.append(steps_item)

        threshold = self.threshold

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "factor": factor,
                "steps": steps,
                "threshold": threshold,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        factor = d.pop("factor")

        steps = []
        _steps = d.pop("steps")
        for steps_item_data in _steps:
            steps_item = cast(list[float], steps_item_data)

            steps.append(steps_item)

        threshold = d.pop("threshold")

        growth_ladder_view = cls(
            factor=factor,
            steps=steps,
            threshold=threshold,
        )

        return growth_ladder_view
