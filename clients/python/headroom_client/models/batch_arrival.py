from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="BatchArrival")


@_attrs_define
class BatchArrival:
    """
    Attributes:
        event_id (str):
        job_id (str): Printable ASCII without spaces or "/", not starting with ".", at most 200 characters: it is a path
            segment of later requests.
        job_type (str):
        kind (Literal['arrival']):
        at (float | None | Unset): Clusters whose clients keep the clock only (queued clusters, DRA with a client-clock
            migration budget): when the event happened (time units, never decreasing). Other placement clusters and the wall
            clock refuse it.
        priority (int | None | Unset): Within its tenant: a job of higher priority may preempt the tenant's own jobs of
            lower priority (0 when not given).
        tenant (None | str | Unset): The tenant the job runs for; required where the cluster declares tenants.
    """

    event_id: str
    job_id: str
    job_type: str
    kind: Literal["arrival"]
    at: float | None | Unset = UNSET
    priority: int | None | Unset = UNSET
    tenant: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        event_id = self.event_id

        job_id = self.job_id

        job_type = self.job_type

        kind = self.kind

        at: float | None | Unset
        if isinstance(self.at, Unset):
            at = UNSET
        else:
            at = self.at

        priority: int | None | Unset
        if isinstance(self.priority, Unset):
            priority = UNSET
        else:
            priority = self.priority

        tenant: None | str | Unset
        if isinstance(self.tenant, Unset):
            tenant = UNSET
        else:
            tenant = self.tenant

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "event_id": event_id,
                "job_id": job_id,
                "job_type": job_type,
                "kind": kind,
            }
        )
        if at is not UNSET:
            field_dict["at"] = at
        if priority is not UNSET:
            field_dict["priority"] = priority
        if tenant is not UNSET:
            field_dict["tenant"] = tenant

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        event_id = d.pop("event_id")

        job_id = d.pop("job_id")

        job_type = d.pop("job_type")

        kind = cast(Literal["arrival"], d.pop("kind"))
        if kind != "arrival":
            raise ValueError(f"kind must match const 'arrival', got '{kind}'")

        def _parse_at(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        at = _parse_at(d.pop("at", UNSET))

        def _parse_priority(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        priority = _parse_priority(d.pop("priority", UNSET))

        def _parse_tenant(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        tenant = _parse_tenant(d.pop("tenant", UNSET))

        batch_arrival = cls(
            event_id=event_id,
            job_id=job_id,
            job_type=job_type,
            kind=kind,
            at=at,
            priority=priority,
            tenant=tenant,
        )

        return batch_arrival
