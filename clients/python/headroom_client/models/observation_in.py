from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.observation_in_demand import ObservationInDemand


T = TypeVar("T", bound="ObservationIn")


@_attrs_define
class ObservationIn:
    """
    Attributes:
        demand (ObservationInDemand): Observed demand per resource.
        period (int): Consecutive: 0 (or any start), then +1.
        event_id (None | str | Unset): Idempotency key (or the Idempotency-Key header).
    """

    demand: ObservationInDemand
    period: int
    event_id: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        demand = self.demand.to_dict()

        period = self.period

        event_id: None | str | Unset
        if isinstance(self.event_id, Unset):
            event_id = UNSET
        else:
            event_id = self.event_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "demand": demand,
                "period": period,
            }
        )
        if event_id is not UNSET:
            field_dict["event_id"] = event_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.observation_in_demand import ObservationInDemand  # noqa: PLC0415

        d = dict(src_dict)
        demand = ObservationInDemand.from_dict(d.pop("demand"))

        period = d.pop("period")

        def _parse_event_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        event_id = _parse_event_id(d.pop("event_id", UNSET))

        observation_in = cls(
            demand=demand,
            period=period,
            event_id=event_id,
        )

        return observation_in
