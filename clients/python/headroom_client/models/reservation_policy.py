from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..models.reservation_policy_kind import ReservationPolicyKind
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.reservation_policy_params import ReservationPolicyParams


T = TypeVar("T", bound="ReservationPolicy")


@_attrs_define
class ReservationPolicy:
    """
    Attributes:
        kind (ReservationPolicyKind | Unset): quantile_tracking (default) holds the realised violation rate at epsilon
            by feeding violations back; thor is the paper's policy, whose queue holds its Gaussian model's violation
            probability at epsilon. Default: ReservationPolicyKind.QUANTILE_TRACKING.
        params (ReservationPolicyParams | Unset): Policy parameters; see docs/reproduction/thor.md (quantile_tracking:
            step, initial_offset, estimator; thor: queue_target, tracking_gain, estimator...). Checked by the policy.
    """

    kind: ReservationPolicyKind | Unset = ReservationPolicyKind.QUANTILE_TRACKING
    params: ReservationPolicyParams | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        kind: str | Unset = UNSET
        if not isinstance(self.kind, Unset):
            kind = self.kind.value

        params: dict[str, Any] | Unset = UNSET
        if not isinstance(self.params, Unset):
            params = self.params.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if kind is not UNSET:
            field_dict["kind"] = kind
        if params is not UNSET:
            field_dict["params"] = params

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.reservation_policy_params import ReservationPolicyParams  # noqa: PLC0415

        d = dict(src_dict)
        _kind = d.pop("kind", UNSET)
        kind: ReservationPolicyKind | Unset
        if isinstance(_kind, Unset):
            kind = UNSET
        else:
            kind = ReservationPolicyKind(_kind)

        _params = d.pop("params", UNSET)
        params: ReservationPolicyParams | Unset
        if isinstance(_params, Unset):
            params = UNSET
        else:
            params = ReservationPolicyParams.from_dict(_params)

        reservation_policy = cls(
            kind=kind,
            params=params,
        )

        return reservation_policy
