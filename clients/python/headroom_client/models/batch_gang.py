from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.gang_member import GangMember


T = TypeVar("T", bound="BatchGang")


@_attrs_define
class BatchGang:
    """
    Attributes:
        event_id (str):
        gang_id (str): Printable ASCII without spaces or "/", not starting with ".", at most 200 characters: it is a
            path segment of later requests.
        kind (Literal['gang']):
        members (list[GangMember]):
        at (float | None | Unset): Clusters whose clients keep the clock only (queued clusters, DRA with a client-clock
            migration budget): when the event happened (time units, never decreasing). Other placement clusters and the wall
            clock refuse it.
        priority (int | Unset): Within its tenant: a job of higher priority may preempt the tenant's own jobs of lower
            priority (0 when not given). Default: 0.
        tenant (None | str | Unset): The tenant the job runs for; required where the cluster declares tenants.
        timeout (float | None | Unset): Queued clusters: refuse the gang (withdraw its members) if it has not started
            this many time units after it arrived; none: it waits until a member departs. Placement clusters decide at once
            and refuse it.
    """

    event_id: str
    gang_id: str
    kind: Literal["gang"]
    members: list[GangMember]
    at: float | None | Unset = UNSET
    priority: int | Unset = 0
    tenant: None | str | Unset = UNSET
    timeout: float | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        event_id = self.event_id

        gang_id = self.gang_id

        kind = self.kind

        members = []
        for members_item_data in self.members:
            members_item = members_item_data.to_dict()
            members.append(members_item)

        at: float | None | Unset
        if isinstance(self.at, Unset):
            at = UNSET
        else:
            at = self.at

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
                "event_id": event_id,
                "gang_id": gang_id,
                "kind": kind,
                "members": members,
            }
        )
        if at is not UNSET:
            field_dict["at"] = at
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
        event_id = d.pop("event_id")

        gang_id = d.pop("gang_id")

        kind = cast(Literal["gang"], d.pop("kind"))
        if kind != "gang":
            raise ValueError(f"kind must match const 'gang', got '{kind}'")

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

        batch_gang = cls(
            event_id=event_id,
            gang_id=gang_id,
            kind=kind,
            members=members,
            at=at,
            priority=priority,
            tenant=tenant,
            timeout=timeout,
        )

        return batch_gang
