from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.gang_member import GangMember


T = TypeVar("T", bound="GangIn")


@_attrs_define
class GangIn:
    """
    Attributes:
        gang_id (str): Printable ASCII without spaces or "/", not starting with ".", at most 200 characters: it is a
            path segment of later requests.
        members (list[GangMember]): Placed in this order, each by the cluster's policy; each departs on its own.
        at (float | None | Unset): When the gang arrived (never decreasing), where clients keep the cluster's time:
            queued clusters on the client clock, DRA with a client-clock migration budget. Other clusters refuse it.
        dry_run (bool | Unset): Decide without committing anything. Default: False.
        event_id (None | str | Unset): Idempotency key, unique per cluster (or the Idempotency-Key header).
        priority (int | Unset): Within its tenant: a job of higher priority may preempt the tenant's own jobs of lower
            priority (0 when not given). Default: 0.
        tenant (None | str | Unset): The tenant the job runs for; required where the cluster declares tenants.
        timeout (float | None | Unset): Queued clusters: refuse the gang (withdraw its members) if it has not started
            this many time units after it arrived; none: it waits until a member departs. Placement clusters decide at once
            and refuse it.
    """

    gang_id: str
    members: list[GangMember]
    at: float | None | Unset = UNSET
    dry_run: bool | Unset = False
    event_id: None | str | Unset = UNSET
    priority: int | Unset = 0
    tenant: None | str | Unset = UNSET
    timeout: float | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        gang_id = self.gang_id

        members = []
        for members_item_data in self.members:
            members_item = members_item_data.to_dict()
            members.append(members_item)

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

        priority = self.priority

        tenant: None | str | Unset
        if isinstance(self.tenant, Unset):
            tenant = UNSET
        else:
            tenant = self.tenant

        timeout: float | None | Unset
        if isinstance(self.timeout, Unset):
            timeout = UNSET
        else:
            timeout = self.timeout

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "gang_id": gang_id,
                "members": members,
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
        if timeout is not UNSET:
            field_dict["timeout"] = timeout

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.gang_member import GangMember  # noqa: PLC0415

        d = dict(src_dict)
        gang_id = d.pop("gang_id")

        members = []
        _members = d.pop("members")
        for members_item_data in _members:
            members_item = GangMember.from_dict(members_item_data)

            members.append(members_item)

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

        priority = d.pop("priority", UNSET)

        def _parse_tenant(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        tenant = _parse_tenant(d.pop("tenant", UNSET))

        def _parse_timeout(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        timeout = _parse_timeout(d.pop("timeout", UNSET))

        gang_in = cls(
            gang_id=gang_id,
            members=members,
            at=at,
            dry_run=dry_run,
            event_id=event_id,
            priority=priority,
            tenant=tenant,
            timeout=timeout,
        )

        return gang_in
