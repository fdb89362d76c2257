from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.percentile_policy_params import PercentilePolicyParams


T = TypeVar("T", bound="PercentilePolicy")


@_attrs_define
class PercentilePolicy:
    """
    Attributes:
        kind (Literal['percentile']): A VPA-style decaying histogram's percentile plus a margin.
        params (PercentilePolicyParams | Unset): Kubernetes VPA recommender's defaults.
    """

    kind: Literal["percentile"]
    params: PercentilePolicyParams | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        kind = self.kind

        params: dict[str, Any] | Unset = UNSET
        if not isinstance(self.params, Unset):
            params = self.params.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "kind": kind,
            }
        )
        if params is not UNSET:
            field_dict["params"] = params

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.percentile_policy_params import PercentilePolicyParams  # noqa: PLC0415

        d = dict(src_dict)
        kind = cast(Literal["percentile"], d.pop("kind"))
        if kind != "percentile":
            raise ValueError(f"kind must match const 'percentile', got '{kind}'")

        _params = d.pop("params", UNSET)
        params: PercentilePolicyParams | Unset
        if isinstance(_params, Unset):
            params = UNSET
        else:
            params = PercentilePolicyParams.from_dict(_params)

        percentile_policy = cls(
            kind=kind,
            params=params,
        )

        return percentile_policy
