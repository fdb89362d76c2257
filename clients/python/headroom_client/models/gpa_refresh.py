from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.gpa_refresh_y_hat_in_use import GpaRefreshYHatInUse


T = TypeVar("T", bound="GpaRefresh")


@_attrs_define
class GpaRefresh:
    """
    Attributes:
        y_hat_in_use (GpaRefreshYHatInUse): The load estimate the packing uses.
        band (float | None | Unset):
        events_since_refresh (int | None | Unset):
        every_events (int | None | Unset):
    """

    y_hat_in_use: GpaRefreshYHatInUse
    band: float | None | Unset = UNSET
    events_since_refresh: int | None | Unset = UNSET
    every_events: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        y_hat_in_use = self.y_hat_in_use.to_dict()

        band: float | None | Unset
        if isinstance(self.band, Unset):
            band = UNSET
        else:
            band = self.band

        events_since_refresh: int | None | Unset
        if isinstance(self.events_since_refresh, Unset):
            events_since_refresh = UNSET
        else:
            events_since_refresh = self.events_since_refresh

        every_events: int | None | Unset
        if isinstance(self.every_events, Unset):
            every_events = UNSET
        else:
            every_events = self.every_events

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "y_hat_in_use": y_hat_in_use,
            }
        )
        if band is not UNSET:
            field_dict["band"] = band
        if events_since_refresh is not UNSET:
            field_dict["events_since_refresh"] = events_since_refresh
        if every_events is not UNSET:
            field_dict["every_events"] = every_events

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.gpa_refresh_y_hat_in_use import GpaRefreshYHatInUse  # noqa: PLC0415

        d = dict(src_dict)
        y_hat_in_use = GpaRefreshYHatInUse.from_dict(d.pop("y_hat_in_use"))

        def _parse_band(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        band = _parse_band(d.pop("band", UNSET))

        def _parse_events_since_refresh(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        events_since_refresh = _parse_events_since_refresh(d.pop("events_since_refresh", UNSET))

        def _parse_every_events(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        every_events = _parse_every_events(d.pop("every_events", UNSET))

        gpa_refresh = cls(
            y_hat_in_use=y_hat_in_use,
            band=band,
            events_since_refresh=events_since_refresh,
            every_events=every_events,
        )

        return gpa_refresh
