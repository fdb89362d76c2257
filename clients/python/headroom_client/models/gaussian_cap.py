from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="GaussianCap")


@_attrs_define
class GaussianCap:
    """
    Attributes:
        mean (float):
        sigma (float): At least 1e-9, the learnt cap's smallest floor.
    """

    mean: float
    sigma: float

    def to_dict(self) -> dict[str, Any]:
        mean = self.mean

        sigma = self.sigma

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "mean": mean,
                "sigma": sigma,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        mean = d.pop("mean")

        sigma = d.pop("sigma")

        gaussian_cap = cls(
            mean=mean,
            sigma=sigma,
        )

        return gaussian_cap
