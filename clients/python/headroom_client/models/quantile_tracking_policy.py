from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.quantile_tracking_params import QuantileTrackingParams


T = TypeVar("T", bound="QuantileTrackingPolicy")


@_attrs_define
class QuantileTrackingPolicy:
    """
    Attributes:
        kind (Literal['quantile_tracking'] | Unset): The default: holds the realised violation rate at epsilon by
            feeding violations back. Default: 'quantile_tracking'.
        params (QuantileTrackingParams | Unset):
    """

    kind: Literal["quantile_tracking"] | Unset = "quantile_tracking"
    params: QuantileTrackingParams | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        kind = self.kind

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
        from ..models.quantile_tracking_params import QuantileTrackingParams  # noqa: PLC0415

        d = dict(src_dict)
        kind = cast(Literal["quantile_tracking"] | Unset, d.pop("kind", UNSET))
        if kind != "quantile_tracking" and not isinstance(kind, Unset):
            raise ValueError(f"kind must match const 'quantile_tracking', got '{kind}'")

        _params = d.pop("params", UNSET)
        params: QuantileTrackingParams | Unset
        if isinstance(_params, Unset):
            params = UNSET
        else:
            params = QuantileTrackingParams.from_dict(_params)

        quantile_tracking_policy = cls(
            kind=kind,
            params=params,
        )

        return quantile_tracking_policy
