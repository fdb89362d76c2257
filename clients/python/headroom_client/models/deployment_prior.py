from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.gamma_priors import GammaPriors
    from ..models.prior_observations import PriorObservations


T = TypeVar("T", bound="DeploymentPrior")


@_attrs_define
class DeploymentPrior:
    """
    Attributes:
        gamma (GammaPriors | None | Unset):
        observations (None | PriorObservations | Unset):
    """

    gamma: GammaPriors | None | Unset = UNSET
    observations: None | PriorObservations | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.gamma_priors import GammaPriors  # noqa: PLC0415
        from ..models.prior_observations import PriorObservations  # noqa: PLC0415

        gamma: dict[str, Any] | None | Unset
        if isinstance(self.gamma, Unset):
            gamma = UNSET
        elif isinstance(self.gamma, GammaPriors):
            gamma = self.gamma.to_dict()
        else:
            gamma = self.gamma

        observations: dict[str, Any] | None | Unset
        if isinstance(self.observations, Unset):
            observations = UNSET
        elif isinstance(self.observations, PriorObservations):
            observations = self.observations.to_dict()
        else:
            observations = self.observations

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if gamma is not UNSET:
            field_dict["gamma"] = gamma
        if observations is not UNSET:
            field_dict["observations"] = observations

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.gamma_priors import GammaPriors  # noqa: PLC0415
        from ..models.prior_observations import PriorObservations  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_gamma(data: object) -> GammaPriors | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                gamma_type_0 = GammaPriors.from_dict(data)

                return gamma_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(GammaPriors | None | Unset, data)

        gamma = _parse_gamma(d.pop("gamma", UNSET))

        def _parse_observations(data: object) -> None | PriorObservations | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                observations_type_0 = PriorObservations.from_dict(data)

                return observations_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PriorObservations | Unset, data)

        observations = _parse_observations(d.pop("observations", UNSET))

        deployment_prior = cls(
            gamma=gamma,
            observations=observations,
        )

        return deployment_prior
