from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.thor_policy_params import ThorPolicyParams


T = TypeVar("T", bound="ThorPolicy")


@_attrs_define
class ThorPolicy:
    """
    Attributes:
        kind (Literal['thor']): The paper's policy, whose queue holds its Gaussian model's violation probability at
            epsilon.
        params (ThorPolicyParams | Unset):
    """

    kind: Literal["thor"]
    params: ThorPolicyParams | Unset = UNSET

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
        from ..models.thor_policy_params import ThorPolicyParams  # noqa: PLC0415

        d = dict(src_dict)
        kind = cast(Literal["thor"], d.pop("kind"))
        if kind != "thor":
            raise ValueError(f"kind must match const 'thor', got '{kind}'")

        _params = d.pop("params", UNSET)
        params: ThorPolicyParams | Unset
        if isinstance(_params, Unset):
            params = UNSET
        else:
            params = ThorPolicyParams.from_dict(_params)

        thor_policy = cls(
            kind=kind,
            params=params,
        )

        return thor_policy
