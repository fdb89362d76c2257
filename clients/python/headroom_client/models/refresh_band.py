from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="RefreshBand")


@_attrs_define
class RefreshBand:
    """
    Attributes:
        band (float): Refresh GPA's targets when some type's jobs in system plus g(L) differ from the targets' input by
            more than band times g(L) (below 1, or a type whose slots are full never grows).
    """

    band: float

    def to_dict(self) -> dict[str, Any]:
        band = self.band

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "band": band,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        band = d.pop("band")

        refresh_band = cls(
            band=band,
        )

        return refresh_band
