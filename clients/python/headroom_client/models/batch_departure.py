from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="BatchDeparture")


@_attrs_define
class BatchDeparture:
    """
    Attributes:
        event_id (str):
        job_id (str):
        kind (Literal['departure']):
        at (float | None | Unset): Clusters whose clients keep the clock only (queued clusters, DRA with a client-clock
            migration budget): when the event happened (time units, never decreasing). Other placement clusters and the wall
            clock refuse it.
    """

    event_id: str
    job_id: str
    kind: Literal["departure"]
    at: float | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        event_id = self.event_id

        job_id = self.job_id

        kind = self.kind

        at: float | None | Unset
        if isinstance(self.at, Unset):
            at = UNSET
        else:
            at = self.at

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "event_id": event_id,
                "job_id": job_id,
                "kind": kind,
            }
        )
        if at is not UNSET:
            field_dict["at"] = at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        event_id = d.pop("event_id")

        job_id = d.pop("job_id")

        kind = cast(Literal["departure"], d.pop("kind"))
        if kind != "departure":
            raise ValueError(f"kind must match const 'departure', got '{kind}'")

        def _parse_at(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        at = _parse_at(d.pop("at", UNSET))

        batch_departure = cls(
            event_id=event_id,
            job_id=job_id,
            kind=kind,
            at=at,
        )

        return batch_departure
