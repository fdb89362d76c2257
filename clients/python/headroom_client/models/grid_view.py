from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="GridView")


@_attrs_define
class GridView:
    """
    Attributes:
        horizons_hours (list[float]):
        steps (int):
    """

    horizons_hours: list[float]
    steps: int

    def to_dict(self) -> dict[str, Any]:
        horizons_hours = self.horizons_hours

        steps = self.steps

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "horizons_hours": horizons_hours,
                "steps": steps,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        horizons_hours = cast(list[float], d.pop("horizons_hours"))

        steps = d.pop("steps")

        grid_view = cls(
            horizons_hours=horizons_hours,
            steps=steps,
        )

        return grid_view
