from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="RefreshEvery")


@_attrs_define
class RefreshEvery:
    """
    Attributes:
        every_events (int): Refresh GPA's targets after every n-th admission or departure.
    """

    every_events: int

    def to_dict(self) -> dict[str, Any]:
        every_events = self.every_events

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "every_events": every_events,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        every_events = d.pop("every_events")

        refresh_every = cls(
            every_events=every_events,
        )

        return refresh_every
