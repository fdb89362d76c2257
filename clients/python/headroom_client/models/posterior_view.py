from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="PosteriorView")


@_attrs_define
class PosteriorView:
    """
    Attributes:
        mean (float):
        rate (float):
        shape (float):
        var (float):
    """

    mean: float
    rate: float
    shape: float
    var: float

    def to_dict(self) -> dict[str, Any]:
        mean = self.mean

        rate = self.rate

        shape = self.shape

        var = self.var

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "mean": mean,
                "rate": rate,
                "shape": shape,
                "var": var,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        mean = d.pop("mean")

        rate = d.pop("rate")

        shape = d.pop("shape")

        var = d.pop("var")

        posterior_view = cls(
            mean=mean,
            rate=rate,
            shape=shape,
            var=var,
        )

        return posterior_view
