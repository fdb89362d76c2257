from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="WhatIfProgress")


@_attrs_define
class WhatIfProgress:
    """
    Attributes:
        events_done (int):
        events_total (int):
    """

    events_done: int
    events_total: int

    def to_dict(self) -> dict[str, Any]:
        events_done = self.events_done

        events_total = self.events_total

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "events_done": events_done,
                "events_total": events_total,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        events_done = d.pop("events_done")

        events_total = d.pop("events_total")

        what_if_progress = cls(
            events_done=events_done,
            events_total=events_total,
        )

        return what_if_progress
