from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.cap_estimator_params import CapEstimatorParams
    from ..models.thor_policy_params_caps_type_0 import ThorPolicyParamsCapsType0


T = TypeVar("T", bound="ThorPolicyParams")


@_attrs_define
class ThorPolicyParams:
    """
    Attributes:
        v (float | None | Unset): Eq. (8)'s V; null: derived from queue_target per resource.
        alpha (float | None | Unset): Eq. (8)'s α; null: derived from queue_target and tracking_gain per resource.
        caps (None | ThorPolicyParamsCapsType0 | Unset): A known cap N(mean, sigma²) per declared resource instead of
            the learnt one (the paper's setting, where Theorem 1 applies).
        estimator (CapEstimatorParams | None | Unset): null: the defaults.
        initial_queue (float | None | Unset): Q(1); null: the equilibrium of the first period's cap.
        normalize (bool | Unset): Run eq. (8) in units of σ (V and α dimensionless); false needs V and alpha in demand
            units. Default: True.
        queue_target (float | Unset): Q*, the predictor queue's working level. Default: 5.0.
        tracking_gain (float | Unset): k: share of a standardised deviation corrected per period (below 2 for
            stability). Default: 0.5.
    """

    v: float | None | Unset = UNSET
    alpha: float | None | Unset = UNSET
    caps: None | ThorPolicyParamsCapsType0 | Unset = UNSET
    estimator: CapEstimatorParams | None | Unset = UNSET
    initial_queue: float | None | Unset = UNSET
    normalize: bool | Unset = True
    queue_target: float | Unset = 5.0
    tracking_gain: float | Unset = 0.5

    def to_dict(self) -> dict[str, Any]:
        from ..models.cap_estimator_params import CapEstimatorParams  # noqa: PLC0415
        from ..models.thor_policy_params_caps_type_0 import ThorPolicyParamsCapsType0  # noqa: PLC0415

        v: float | None | Unset
        if isinstance(self.v, Unset):
            v = UNSET
        else:
            v = self.v

        alpha: float | None | Unset
        if isinstance(self.alpha, Unset):
            alpha = UNSET
        else:
            alpha = self.alpha

        caps: dict[str, Any] | None | Unset
        if isinstance(self.caps, Unset):
            caps = UNSET
        elif isinstance(self.caps, ThorPolicyParamsCapsType0):
            caps = self.caps.to_dict()
        else:
            caps = self.caps

        estimator: dict[str, Any] | None | Unset
        if isinstance(self.estimator, Unset):
            estimator = UNSET
        elif isinstance(self.estimator, CapEstimatorParams):
            estimator = self.estimator.to_dict()
        else:
            estimator = self.estimator

        initial_queue: float | None | Unset
        if isinstance(self.initial_queue, Unset):
            initial_queue = UNSET
        else:
            initial_queue = self.initial_queue

        normalize = self.normalize

        queue_target = self.queue_target

        tracking_gain = self.tracking_gain

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if v is not UNSET:
            field_dict["V"] = v
        if alpha is not UNSET:
            field_dict["alpha"] = alpha
        if caps is not UNSET:
            field_dict["caps"] = caps
        if estimator is not UNSET:
            field_dict["estimator"] = estimator
        if initial_queue is not UNSET:
            field_dict["initial_queue"] = initial_queue
        if normalize is not UNSET:
            field_dict["normalize"] = normalize
        if queue_target is not UNSET:
            field_dict["queue_target"] = queue_target
        if tracking_gain is not UNSET:
            field_dict["tracking_gain"] = tracking_gain

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.cap_estimator_params import CapEstimatorParams  # noqa: PLC0415
        from ..models.thor_policy_params_caps_type_0 import ThorPolicyParamsCapsType0  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_v(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        v = _parse_v(d.pop("V", UNSET))

        def _parse_alpha(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        alpha = _parse_alpha(d.pop("alpha", UNSET))

        def _parse_caps(data: object) -> None | ThorPolicyParamsCapsType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                caps_type_0 = ThorPolicyParamsCapsType0.from_dict(data)

                return caps_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ThorPolicyParamsCapsType0 | Unset, data)

        caps = _parse_caps(d.pop("caps", UNSET))

        def _parse_estimator(data: object) -> CapEstimatorParams | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                estimator_type_0 = CapEstimatorParams.from_dict(data)

                return estimator_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CapEstimatorParams | None | Unset, data)

        estimator = _parse_estimator(d.pop("estimator", UNSET))

        def _parse_initial_queue(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        initial_queue = _parse_initial_queue(d.pop("initial_queue", UNSET))

        normalize = d.pop("normalize", UNSET)

        queue_target = d.pop("queue_target", UNSET)

        tracking_gain = d.pop("tracking_gain", UNSET)

        thor_policy_params = cls(
            v=v,
            alpha=alpha,
            caps=caps,
            estimator=estimator,
            initial_queue=initial_queue,
            normalize=normalize,
            queue_target=queue_target,
            tracking_gain=tracking_gain,
        )

        return thor_policy_params
