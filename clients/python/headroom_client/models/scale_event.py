from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="ScaleEvent")


@_attrs_define
class ScaleEvent:
    """
    Attributes:
        at (float): Event time in hours; never decreases per cluster.
        cores (int):
        event_id (None | str | Unset):
    """

    at: float
    cores: int
    event_id: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        at = self.at

        cores = self.cores

        event_id: None | str | Unset
        if isinstance(self.event_id, Unset):
            event_id = UNSET
        else:
            event_id = self.event_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "at": at,
                "cores": cores,
            }
        )
        if event_id is not UNSET:
            field_dict["event_id"] = event_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        at = d.pop("at")

        cores = d.pop("cores")

        def _parse_event_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        event_id = _parse_event_id(d.pop("event_id", UNSET))

        scale_event = cls(
            at=at,
            cores=cores,
            event_id=event_id,
        )

        return scale_event
