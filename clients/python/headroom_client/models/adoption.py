from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.adoption_likelihood_ratio import AdoptionLikelihoodRatio
    from ..models.adoption_mean_factor import AdoptionMeanFactor
    from ..models.gamma_view import GammaView


T = TypeVar("T", bound="Adoption")


@_attrs_define
class Adoption:
    """
    Attributes:
        at (float):
        likelihood_ratio (AdoptionLikelihoodRatio):
        mean_factor (AdoptionMeanFactor):
        prior (GammaView):
        records (int):
        cautious_start (None | str | Unset):
        ended_cautious_start (None | str | Unset):
    """

    at: float
    likelihood_ratio: AdoptionLikelihoodRatio
    mean_factor: AdoptionMeanFactor
    prior: GammaView
    records: int
    cautious_start: None | str | Unset = UNSET
    ended_cautious_start: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        at = self.at

        likelihood_ratio = self.likelihood_ratio.to_dict()

        mean_factor = self.mean_factor.to_dict()

        prior = self.prior.to_dict()

        records = self.records

        cautious_start: None | str | Unset
        if isinstance(self.cautious_start, Unset):
            cautious_start = UNSET
        else:
            cautious_start = self.cautious_start

        ended_cautious_start: None | str | Unset
        if isinstance(self.ended_cautious_start, Unset):
            ended_cautious_start = UNSET
        else:
            ended_cautious_start = self.ended_cautious_start

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "at": at,
                "likelihood_ratio": likelihood_ratio,
                "mean_factor": mean_factor,
                "prior": prior,
                "records": records,
            }
        )
        if cautious_start is not UNSET:
            field_dict["cautious_start"] = cautious_start
        if ended_cautious_start is not UNSET:
            field_dict["ended_cautious_start"] = ended_cautious_start

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.adoption_likelihood_ratio import AdoptionLikelihoodRatio  # noqa: PLC0415
        from ..models.adoption_mean_factor import AdoptionMeanFactor  # noqa: PLC0415
        from ..models.gamma_view import GammaView  # noqa: PLC0415

        d = dict(src_dict)
        at = d.pop("at")

        likelihood_ratio = AdoptionLikelihoodRatio.from_dict(d.pop("likelihood_ratio"))

        mean_factor = AdoptionMeanFactor.from_dict(d.pop("mean_factor"))

        prior = GammaView.from_dict(d.pop("prior"))

        records = d.pop("records")

        def _parse_cautious_start(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        cautious_start = _parse_cautious_start(d.pop("cautious_start", UNSET))

        def _parse_ended_cautious_start(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        ended_cautious_start = _parse_ended_cautious_start(d.pop("ended_cautious_start", UNSET))

        adoption = cls(
            at=at,
            likelihood_ratio=likelihood_ratio,
            mean_factor=mean_factor,
            prior=prior,
            records=records,
            cautious_start=cautious_start,
            ended_cautious_start=ended_cautious_start,
        )

        return adoption
