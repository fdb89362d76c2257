from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="ReservationSlots")


@_attrs_define
class ReservationSlots:
    """
    Attributes:
        slots (float): A fixed number of reserved slots per type.
    """

    slots: float

    def to_dict(self) -> dict[str, Any]:
        slots = self.slots

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "slots": slots,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        slots = d.pop("slots")

        reservation_slots = cls(
            slots=slots,
        )

        return reservation_slots
