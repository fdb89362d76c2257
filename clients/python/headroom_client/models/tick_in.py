from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="TickIn")


@_attrs_define
class TickIn:
    """
    Attributes:
        until (float | None | Unset): Client clock: fire every clock and dummy departure due before this time. Wall
            clock: leave out (the service uses now).
    """

    until: float | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        until: float | None | Unset
        if isinstance(self.until, Unset):
            until = UNSET
        else:
            until = self.until

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if until is not UNSET:
            field_dict["until"] = until

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_until(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        until = _parse_until(d.pop("until", UNSET))

        tick_in = cls(
            until=until,
        )

        return tick_in
