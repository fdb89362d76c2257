from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="GammaView")


@_attrs_define
class GammaView:
    """
    Attributes:
        lambda_ (list[float]):
        mu (list[float]):
        sigma (list[float]):
    """

    lambda_: list[float]
    mu: list[float]
    sigma: list[float]

    def to_dict(self) -> dict[str, Any]:
        lambda_ = self.lambda_

        mu = self.mu

        sigma = self.sigma

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "lambda": lambda_,
                "mu": mu,
                "sigma": sigma,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        lambda_ = cast(list[float], d.pop("lambda"))

        mu = cast(list[float], d.pop("mu"))

        sigma = cast(list[float], d.pop("sigma"))

        gamma_view = cls(
            lambda_=lambda_,
            mu=mu,
            sigma=sigma,
        )

        return gamma_view
