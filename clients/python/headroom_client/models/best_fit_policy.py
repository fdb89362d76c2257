from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="BestFitPolicy")


@_attrs_define
class BestFitPolicy:
    """
    Attributes:
        kind (Literal['best_fit']):
    """

    kind: Literal["best_fit"]

    def to_dict(self) -> dict[str, Any]:
        kind = self.kind

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "kind": kind,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        kind = cast(Literal["best_fit"], d.pop("kind"))
        if kind != "best_fit":
            raise ValueError(f"kind must match const 'best_fit', got '{kind}'")

        best_fit_policy = cls(
            kind=kind,
        )

        return best_fit_policy
