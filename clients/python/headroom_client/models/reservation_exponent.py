from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="ReservationExponent")


@_attrs_define
class ReservationExponent:
    """
    Attributes:
        b (float | Unset): g(L) = ln(L)^(1+b) reserved slots per type; b > 0 (Theorem 3 needs g(L) to grow faster than
            log L). Default: 0.5.
    """

    b: float | Unset = 0.5

    def to_dict(self) -> dict[str, Any]:
        b = self.b

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if b is not UNSET:
            field_dict["b"] = b

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        b = d.pop("b", UNSET)

        reservation_exponent = cls(
            b=b,
        )

        return reservation_exponent
