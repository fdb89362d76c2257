from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.history_item_demand import HistoryItemDemand
    from ..models.history_item_next_reservation import HistoryItemNextReservation
    from ..models.history_item_reserved import HistoryItemReserved
    from ..models.history_item_violated import HistoryItemViolated


T = TypeVar("T", bound="HistoryItem")


@_attrs_define
class HistoryItem:
    """
    Attributes:
        created_at (datetime.datetime):
        demand (HistoryItemDemand):
        event_id (str):
        next_reservation (HistoryItemNextReservation):
        period (int):
        reserved (HistoryItemReserved):
        violated (HistoryItemViolated):
    """

    created_at: datetime.datetime
    demand: HistoryItemDemand
    event_id: str
    next_reservation: HistoryItemNextReservation
    period: int
    reserved: HistoryItemReserved
    violated: HistoryItemViolated
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        demand = self.demand.to_dict()

        event_id = self.event_id

        next_reservation = self.next_reservation.to_dict()

        period = self.period

        reserved = self.reserved.to_dict()

        violated = self.violated.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "demand": demand,
                "event_id": event_id,
                "next_reservation": next_reservation,
                "period": period,
                "reserved": reserved,
                "violated": violated,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.history_item_demand import HistoryItemDemand  # noqa: PLC0415
        from ..models.history_item_next_reservation import HistoryItemNextReservation  # noqa: PLC0415
        from ..models.history_item_reserved import HistoryItemReserved  # noqa: PLC0415
        from ..models.history_item_violated import HistoryItemViolated  # noqa: PLC0415

        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        demand = HistoryItemDemand.from_dict(d.pop("demand"))

        event_id = d.pop("event_id")

        next_reservation = HistoryItemNextReservation.from_dict(d.pop("next_reservation"))

        period = d.pop("period")

        reserved = HistoryItemReserved.from_dict(d.pop("reserved"))

        violated = HistoryItemViolated.from_dict(d.pop("violated"))

        history_item = cls(
            created_at=created_at,
            demand=demand,
            event_id=event_id,
            next_reservation=next_reservation,
            period=period,
            reserved=reserved,
            violated=violated,
        )

        history_item.additional_properties = d
        return history_item

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
