from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.learner_view_cautious_phase_type_0 import LearnerViewCautiousPhaseType0

if TYPE_CHECKING:
    from ..models.adoption import Adoption
    from ..models.gamma_view import GammaView
    from ..models.learner_view_last_likelihood_ratio import LearnerViewLastLikelihoodRatio


T = TypeVar("T", bound="LearnerView")


@_attrs_define
class LearnerView:
    """
    Attributes:
        adoptions (list[Adoption]):
        cautious_lambda_factor (float | None):
        cautious_phase (LearnerViewCautiousPhaseType0 | None):
        evidence (int):
        last_likelihood_ratio (LearnerViewLastLikelihoodRatio):
        learnt (bool):
        next_estimate_at (float):
        prior (GammaView):
    """

    adoptions: list[Adoption]
    cautious_lambda_factor: float | None
    cautious_phase: LearnerViewCautiousPhaseType0 | None
    evidence: int
    last_likelihood_ratio: LearnerViewLastLikelihoodRatio
    learnt: bool
    next_estimate_at: float
    prior: GammaView

    def to_dict(self) -> dict[str, Any]:
        adoptions = []
        for adoptions_item_data in self.adoptions:
            adoptions_item = adoptions_item_data.to_dict()
            adoptions.append(adoptions_item)

        cautious_lambda_factor: float | None
        cautious_lambda_factor = self.cautious_lambda_factor

        cautious_phase: None | str
        if isinstance(self.cautious_phase, LearnerViewCautiousPhaseType0):
            cautious_phase = self.cautious_phase.value
        else:
            cautious_phase = self.cautious_phase

        evidence = self.evidence

        last_likelihood_ratio = self.last_likelihood_ratio.to_dict()

        learnt = self.learnt

        next_estimate_at = self.next_estimate_at

        prior = self.prior.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "adoptions": adoptions,
                "cautious_lambda_factor": cautious_lambda_factor,
                "cautious_phase": cautious_phase,
                "evidence": evidence,
                "last_likelihood_ratio": last_likelihood_ratio,
                "learnt": learnt,
                "next_estimate_at": next_estimate_at,
                "prior": prior,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.adoption import Adoption  # noqa: PLC0415
        from ..models.gamma_view import GammaView  # noqa: PLC0415
        from ..models.learner_view_last_likelihood_ratio import LearnerViewLastLikelihoodRatio  # noqa: PLC0415

        d = dict(src_dict)
        adoptions = []
        _adoptions = d.pop("adoptions")
        for adoptions_item_data in _adoptions:
            adoptions_item = Adoption.from_dict(adoptions_item_data)

            adoptions.append(adoptions_item)

        def _parse_cautious_lambda_factor(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        cautious_lambda_factor = _parse_cautious_lambda_factor(d.pop("cautious_lambda_factor"))

        def _parse_cautious_phase(data: object) -> LearnerViewCautiousPhaseType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                cautious_phase_type_0 = LearnerViewCautiousPhaseType0(data)

                return cautious_phase_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(LearnerViewCautiousPhaseType0 | None, data)

        cautious_phase = _parse_cautious_phase(d.pop("cautious_phase"))

        evidence = d.pop("evidence")

        last_likelihood_ratio = LearnerViewLastLikelihoodRatio.from_dict(d.pop("last_likelihood_ratio"))

        learnt = d.pop("learnt")

        next_estimate_at = d.pop("next_estimate_at")

        prior = GammaView.from_dict(d.pop("prior"))

        learner_view = cls(
            adoptions=adoptions,
            cautious_lambda_factor=cautious_lambda_factor,
            cautious_phase=cautious_phase,
            evidence=evidence,
            last_likelihood_ratio=last_likelihood_ratio,
            learnt=learnt,
            next_estimate_at=next_estimate_at,
            prior=prior,
        )

        return learner_view
