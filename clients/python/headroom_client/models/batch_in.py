from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.batch_arrival import BatchArrival
    from ..models.batch_departure import BatchDeparture
    from ..models.batch_gang import BatchGang


T = TypeVar("T", bound="BatchIn")


@_attrs_define
class BatchIn:
    """
    Attributes:
        events (list[BatchArrival | BatchDeparture | BatchGang]):
        dry_run (bool | Unset): Decide the events in order as the batch would, and commit nothing: what would happen
            (Nomad's job plan). Event ids are not checked against the log. Default: False.
    """

    events: list[BatchArrival | BatchDeparture | BatchGang]
    dry_run: bool | Unset = False

    def to_dict(self) -> dict[str, Any]:
        from ..models.batch_arrival import BatchArrival  # noqa: PLC0415
        from ..models.batch_departure import BatchDeparture  # noqa: PLC0415

        events = []
        for events_item_data in self.events:
            events_item: dict[str, Any]
            if isinstance(events_item_data, BatchArrival):
                events_item = events_item_data.to_dict()
            elif isinstance(events_item_data, BatchDeparture):
                events_item = events_item_data.to_dict()
            else:
                events_item = events_item_data.to_dict()

            events.append(events_item)

        dry_run = self.dry_run

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "events": events,
            }
        )
        if dry_run is not UNSET:
            field_dict["dry_run"] = dry_run

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.batch_arrival import BatchArrival  # noqa: PLC0415
        from ..models.batch_departure import BatchDeparture  # noqa: PLC0415
        from ..models.batch_gang import BatchGang  # noqa: PLC0415

        d = dict(src_dict)
        events = []
        _events = d.pop("events")
        for events_item_data in _events:

            def _parse_events_item(data: object) -> BatchArrival | BatchDeparture | BatchGang:
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    events_item_type_0 = BatchArrival.from_dict(data)

                    return events_item_type_0
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    events_item_type_1 = BatchDeparture.from_dict(data)

                    return events_item_type_1
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                if not isinstance(data, dict):
                    raise TypeError()
                events_item_type_2 = BatchGang.from_dict(data)

                return events_item_type_2

            events_item = _parse_events_item(events_item_data)

            events.append(events_item)

        dry_run = d.pop("dry_run", UNSET)

        batch_in = cls(
            events=events,
            dry_run=dry_run,
        )

        return batch_in
