from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.gang_out_decision import GangOutDecision
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.failed_member import FailedMember
    from ..models.gang_out_details import GangOutDetails
    from ..models.placed_member import PlacedMember
    from ..models.preemption_out import PreemptionOut


T = TypeVar("T", bound="GangOut")


@_attrs_define
class GangOut:
    """
    Attributes:
        decision (GangOutDecision):
        event_seq (int | None): Position in the cluster's log; null on a dry run or an idle tick.
        gang_id (str):
        members (list[PlacedMember]): Where each member runs; empty if none.
        reason (str): all_placed, quota_exceeded, or the refused member's.
        replayed (bool): True when this answers a retry of a logged event.
        details (GangOutDetails | Unset): quota_exceeded: `quota` (the tenant's usage, nominal and borrowed, what is
            short and which limit, and who holds the cohort's borrowed share).
        dry_run (bool | Unset):  Default: False.
        failed (FailedMember | None | Unset): The member the cluster could not place; null when the quota refused the
            gang.
        preempted (list[PreemptionOut] | Unset):
    """

    decision: GangOutDecision
    event_seq: int | None
    gang_id: str
    members: list[PlacedMember]
    reason: str
    replayed: bool
    details: GangOutDetails | Unset = UNSET
    dry_run: bool | Unset = False
    failed: FailedMember | None | Unset = UNSET
    preempted: list[PreemptionOut] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.failed_member import FailedMember  # noqa: PLC0415

        decision = self.decision.value

        event_seq: int | None
        event_seq = self.event_seq

        gang_id = self.gang_id

        members = []
        for members_item_data in self.members:
            members_item = members_item_data.to_dict()
            members.append(members_item)

        reason = self.reason

        replayed = self.replayed

        details: dict[str, Any] | Unset = UNSET
        if not isinstance(self.details, Unset):
            details = self.details.to_dict()

        dry_run = self.dry_run

        failed: dict[str, Any] | None | Unset
        if isinstance(self.failed, Unset):
            failed = UNSET
        elif isinstance(self.failed, FailedMember):
            failed = self.failed.to_dict()
        else:
            failed = self.failed

        preempted: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.preempted, Unset):
            preempted = []
            for preempted_item_data in self.preempted:
                preempted_item = preempted_item_data.to_dict()
                preempted.append(preempted_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "decision": decision,
                "event_seq": event_seq,
                "gang_id": gang_id,
                "members": members,
                "reason": reason,
                "replayed": replayed,
            }
        )
        if details is not UNSET:
            field_dict["details"] = details
        if dry_run is not UNSET:
            field_dict["dry_run"] = dry_run
        if failed is not UNSET:
            field_dict["failed"] = failed
        if preempted is not UNSET:
            field_dict["preempted"] = preempted

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.failed_member import FailedMember  # noqa: PLC0415
        from ..models.gang_out_details import GangOutDetails  # noqa: PLC0415
        from ..models.placed_member import PlacedMember  # noqa: PLC0415
        from ..models.preemption_out import PreemptionOut  # noqa: PLC0415

        d = dict(src_dict)
        decision = GangOutDecision(d.pop("decision"))

        def _parse_event_seq(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        event_seq = _parse_event_seq(d.pop("event_seq"))

        gang_id = d.pop("gang_id")

        members = []
        _members = d.pop("members")
        for members_item_data in _members:
            members_item = PlacedMember.from_dict(members_item_data)

            members.append(members_item)

        reason = d.pop("reason")

        replayed = d.pop("replayed")

        _details = d.pop("details", UNSET)
        details: GangOutDetails | Unset
        if isinstance(_details, Unset):
            details = UNSET
        else:
            details = GangOutDetails.from_dict(_details)

        dry_run = d.pop("dry_run", UNSET)

        def _parse_failed(data: object) -> FailedMember | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                failed_type_0 = FailedMember.from_dict(data)

                return failed_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(FailedMember | None | Unset, data)

        failed = _parse_failed(d.pop("failed", UNSET))

        _preempted = d.pop("preempted", UNSET)
        preempted: list[PreemptionOut] | Unset = UNSET
        if _preempted is not UNSET:
            preempted = []
            for preempted_item_data in _preempted:
                preempted_item = PreemptionOut.from_dict(preempted_item_data)

                preempted.append(preempted_item)

        gang_out = cls(
            decision=decision,
            event_seq=event_seq,
            gang_id=gang_id,
            members=members,
            reason=reason,
            replayed=replayed,
            details=details,
            dry_run=dry_run,
            failed=failed,
            preempted=preempted,
        )

        gang_out.additional_properties = d
        return gang_out

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
