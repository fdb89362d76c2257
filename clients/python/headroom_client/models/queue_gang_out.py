from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.queue_gang_out_decision import QueueGangOutDecision
from ..models.queue_gang_out_reason import QueueGangOutReason
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.queue_gang_out_details import QueueGangOutDetails
    from ..models.queue_gang_out_members_item import QueueGangOutMembersItem
    from ..models.started_job import StartedJob


T = TypeVar("T", bound="QueueGangOut")


@_attrs_define
class QueueGangOut:
    """A gang on a queued cluster: all its members started together, or it waits whole.

    Attributes:
        at (float):
        decision (QueueGangOutDecision):
        details (QueueGangOutDetails): waiting_for_quota: `quota`, as for an arrival.
        event_seq (int | None): Position in the cluster's log; null on a dry run or an idle tick.
        gang_id (str):
        members (list[QueueGangOutMembersItem]): Each member's job id, type and server (null while waiting).
        position (int | None): Its place among the waiting gangs (0 = tried first); null when it started.
        reason (QueueGangOutReason): waiting_for_quota: its tenant's quota cannot take all its members;
            waiting_for_room: the servers have no room for all of them at once.
        replayed (bool): True when this answers a retry of a logged event.
        started (list[StartedJob]): Other jobs started up to this event.
        dry_run (bool | Unset):  Default: False.
        gangs_timed_out (list[str] | None | Unset): Queued clusters: gangs whose timeout passed up to this event,
            refused (their members withdrawn).
    """

    at: float
    decision: QueueGangOutDecision
    details: QueueGangOutDetails
    event_seq: int | None
    gang_id: str
    members: list[QueueGangOutMembersItem]
    position: int | None
    reason: QueueGangOutReason
    replayed: bool
    started: list[StartedJob]
    dry_run: bool | Unset = False
    gangs_timed_out: list[str] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        at = self.at

        decision = self.decision.value

        details = self.details.to_dict()

        event_seq: int | None
        event_seq = self.event_seq

        gang_id = self.gang_id

        members = []
        for members_item_data in self.members:
            members_item = members_item_data.to_dict()
            members.append(members_item)

        position: int | None
        position = self.position

        reason = self.reason.value

        replayed = self.replayed

        started = []
        for started_item_data in self.started:
            started_item = started_item_data.to_dict()
            started.append(started_item)

        dry_run = self.dry_run

        gangs_timed_out: list[str] | None | Unset
        if isinstance(self.gangs_timed_out, Unset):
            gangs_timed_out = UNSET
        elif isinstance(self.gangs_timed_out, list):
            gangs_timed_out = self.gangs_timed_out

        else:
            gangs_timed_out = self.gangs_timed_out

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "at": at,
                "decision": decision,
                "details": details,
                "event_seq": event_seq,
                "gang_id": gang_id,
                "members": members,
                "position": position,
                "reason": reason,
                "replayed": replayed,
                "started": started,
            }
        )
        if dry_run is not UNSET:
            field_dict["dry_run"] = dry_run
        if gangs_timed_out is not UNSET:
            field_dict["gangs_timed_out"] = gangs_timed_out

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.queue_gang_out_details import QueueGangOutDetails  # noqa: PLC0415
        from ..models.queue_gang_out_members_item import QueueGangOutMembersItem  # noqa: PLC0415
        from ..models.started_job import StartedJob  # noqa: PLC0415

        d = dict(src_dict)
        at = d.pop("at")

        decision = QueueGangOutDecision(d.pop("decision"))

        details = QueueGangOutDetails.from_dict(d.pop("details"))

        def _parse_event_seq(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        event_seq = _parse_event_seq(d.pop("event_seq"))

        gang_id = d.pop("gang_id")

        members = []
        _members = d.pop("members")
        for members_item_data in _members:
            members_item = QueueGangOutMembersItem.from_dict(members_item_data)

            members.append(members_item)

        def _parse_position(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        position = _parse_position(d.pop("position"))

        reason = QueueGangOutReason(d.pop("reason"))

        replayed = d.pop("replayed")

        started = []
        _started = d.pop("started")
        for started_item_data in _started:
            started_item = StartedJob.from_dict(started_item_data)

            started.append(started_item)

        dry_run = d.pop("dry_run", UNSET)

        def _parse_gangs_timed_out(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                gangs_timed_out_type_0 = cast(list[str], data)

                return gangs_timed_out_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        gangs_timed_out = _parse_gangs_timed_out(d.pop("gangs_timed_out", UNSET))

        queue_gang_out = cls(
            at=at,
            decision=decision,
            details=details,
            event_seq=event_seq,
            gang_id=gang_id,
            members=members,
            position=position,
            reason=reason,
            replayed=replayed,
            started=started,
            dry_run=dry_run,
            gangs_timed_out=gangs_timed_out,
        )

        queue_gang_out.additional_properties = d
        return queue_gang_out

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
