from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="ArrivalIn")


@_attrs_define
class ArrivalIn:
    """
    Attributes:
        job_id (str): Printable ASCII without spaces or "/", not starting with ".", at most 200 characters: it is a path
            segment of later requests.
        job_type (str):
        at (float | None | Unset): Clusters whose clients keep the clock only (queued clusters, DRA with a client-clock
            migration budget): when the event happened (time units, never decreasing). Other placement clusters and the wall
            clock refuse it.
        dry_run (bool | Unset): Decide without committing anything. Default: False.
        event_id (None | str | Unset): Idempotency key of this event, unique per cluster. A retry with the same id and
            body returns the stored decision; with another body it is a 409. May be given as the Idempotency-Key header
            instead.
        priority (int | None | Unset): Within its tenant: a job of higher priority may preempt the tenant's own jobs of
            lower priority (0 when not given).
        tenant (None | str | Unset): The tenant the job runs for; required where the cluster declares tenants.
    """

    job_id: str
    job_type: str
    at: float | None | Unset = UNSET
    dry_run: bool | Unset = False
    event_id: None | str | Unset = UNSET
    priority: int | None | Unset = UNSET
    tenant: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        job_id = self.job_id

        job_type = self.job_type

        at: float | None | Unset
        if isinstance(self.at, Unset):
            at = UNSET
        else:
            at = self.at

        dry_run = self.dry_run

        event_id: None | str | Unset
        if isinstance(self.event_id, Unset):
            event_id = UNSET
        else:
            event_id = self.event_id

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
                "job_id": job_id,
                "job_type": job_type,
            }
        )
        if at is not UNSET:
            field_dict["at"] = at
        if dry_run is not UNSET:
            field_dict["dry_run"] = dry_run
        if event_id is not UNSET:
            field_dict["event_id"] = event_id
        if priority is not UNSET:
            field_dict["priority"] = priority
        if tenant is not UNSET:
            field_dict["tenant"] = tenant

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        job_id = d.pop("job_id")

        job_type = d.pop("job_type")

        def _parse_at(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        at = _parse_at(d.pop("at", UNSET))

        dry_run = d.pop("dry_run", UNSET)

        def _parse_event_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        event_id = _parse_event_id(d.pop("event_id", UNSET))

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

        arrival_in = cls(
            job_id=job_id,
            job_type=job_type,
            at=at,
            dry_run=dry_run,
            event_id=event_id,
            priority=priority,
            tenant=tenant,
        )

        return arrival_in
