from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="GammaPriors")


@_attrs_define
class GammaPriors:
    """Gamma beliefs over a deployment's λ, μ, σ: a deployment's own (replacing the cluster's
    base prior, §6) or a cluster's population prior (replacing Table 1).

        Attributes:
            lambda_ (list[float]): Scale-out rate coefficient λ.
            mu (list[float]): Per-core death rate μ.
            sigma (list[float]): Extra cores per scale-out σ (size is 1 + Pois(σ)).
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

        gamma_priors = cls(
            lambda_=lambda_,
            mu=mu,
            sigma=sigma,
        )

        return gamma_priors
