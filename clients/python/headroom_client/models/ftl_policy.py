from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.no_params import NoParams


T = TypeVar("T", bound="FtlPolicy")


@_attrs_define
class FtlPolicy:
    """
    Attributes:
        kind (Literal['ftl']): Follow-the-leader: the ε-feasible quantile of all past demand.
        params (NoParams | Unset): Follow-the-leader takes no parameters.
    """

    kind: Literal["ftl"]
    params: NoParams | Unset = UNSET

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
        from ..models.no_params import NoParams  # noqa: PLC0415

        d = dict(src_dict)
        kind = cast(Literal["ftl"], d.pop("kind"))
        if kind != "ftl":
            raise ValueError(f"kind must match const 'ftl', got '{kind}'")

        _params = d.pop("params", UNSET)
        params: NoParams | Unset
        if isinstance(_params, Unset):
            params = UNSET
        else:
            params = NoParams.from_dict(_params)

        ftl_policy = cls(
            kind=kind,
            params=params,
        )

        return ftl_policy
