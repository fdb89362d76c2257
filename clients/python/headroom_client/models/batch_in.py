from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.batch_arrival import BatchArrival
    from ..models.batch_departure import BatchDeparture


T = TypeVar("T", bound="BatchIn")


@_attrs_define
class BatchIn:
    """
    Attributes:
        events (list[BatchArrival | BatchDeparture]):
    """

    events: list[BatchArrival | BatchDeparture]

    def to_dict(self) -> dict[str, Any]:
        from ..models.batch_arrival import BatchArrival  # noqa: PLC0415

        events = []
        for events_item_data in self.events:
            events_item: dict[str, Any]
            if isinstance(events_item_data, BatchArrival):
                events_item = events_item_data.to_dict()
            else:
                events_item = events_item_data.to_dict()

            events.append(events_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "events": events,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.batch_arrival import BatchArrival  # noqa: PLC0415
        from ..models.batch_departure import BatchDeparture  # noqa: PLC0415

        d = dict(src_dict)
        events = []
        _events = d.pop("events")
        for events_item_data in _events:

            def _parse_events_item(data: object) -> BatchArrival | BatchDeparture:
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    events_item_type_0 = BatchArrival.from_dict(data)

                    return events_item_type_0
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                if not isinstance(data, dict):
                    raise TypeError()
                events_item_type_1 = BatchDeparture.from_dict(data)

                return events_item_type_1

            events_item = _parse_events_item(events_item_data)

            events.append(events_item)

        batch_in = cls(
            events=events,
        )

        return batch_in
