from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.queue_clock_view_mode import QueueClockViewMode

T = TypeVar("T", bound="QueueClockView")


@_attrs_define
class QueueClockView:
    """
    Attributes:
        behind (float | None): Time units the clock trails the wall clock (null: a client clock, or not known).
        mode (QueueClockViewMode):
        next_event_at (float | None): When the scheduler next acts (null: nothing due).
        time_unit_seconds (float):
    """

    behind: float | None
    mode: QueueClockViewMode
    next_event_at: float | None
    time_unit_seconds: float

    def to_dict(self) -> dict[str, Any]:
        behind: float | None
        behind = self.behind

        mode = self.mode.value

        next_event_at: float | None
        next_event_at = self.next_event_at

        time_unit_seconds = self.time_unit_seconds

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "behind": behind,
                "mode": mode,
                "next_event_at": next_event_at,
                "time_unit_seconds": time_unit_seconds,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_behind(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        behind = _parse_behind(d.pop("behind"))

        mode = QueueClockViewMode(d.pop("mode"))

        def _parse_next_event_at(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        next_event_at = _parse_next_event_at(d.pop("next_event_at"))

        time_unit_seconds = d.pop("time_unit_seconds")

        queue_clock_view = cls(
            behind=behind,
            mode=mode,
            next_event_at=next_event_at,
            time_unit_seconds=time_unit_seconds,
        )

        return queue_clock_view
