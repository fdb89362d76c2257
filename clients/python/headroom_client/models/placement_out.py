from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.placement_out_decision import PlacementOutDecision
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.placement_out_details import PlacementOutDetails
    from ..models.preemption_out import PreemptionOut
    from ..models.reconfiguration_out import ReconfigurationOut


T = TypeVar("T", bound="PlacementOut")


@_attrs_define
class PlacementOut:
    """
    Attributes:
        decision (PlacementOutDecision):
        details (PlacementOutDetails):
        event_seq (int | None): Position in the cluster's log; null on a dry run or an idle tick.
        reason (str):
        replayed (bool): True when this answers a retry of a logged event.
        server_id (None | str):
        dry_run (bool | Unset):  Default: False.
        preempted (list[PreemptionOut] | Unset): Jobs removed to make room (DRA with preemption); they are gone.
        reconfigured (list[ReconfigurationOut] | Unset): Empty servers given a new configuration while deciding (DRA).
    """

    decision: PlacementOutDecision
    details: PlacementOutDetails
    event_seq: int | None
    reason: str
    replayed: bool
    server_id: None | str
    dry_run: bool | Unset = False
    preempted: list[PreemptionOut] | Unset = UNSET
    reconfigured: list[ReconfigurationOut] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        decision = self.decision.value

        details = self.details.to_dict()

        event_seq: int | None
        event_seq = self.event_seq

        reason = self.reason

        replayed = self.replayed

        server_id: None | str
        server_id = self.server_id

        dry_run = self.dry_run

        preempted: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.preempted, Unset):
            preempted = []
            for preempted_item_data in self.preempted:
                preempted_item = preempted_item_data.to_dict()
                preempted.append(preempted_item)

        reconfigured: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.reconfigured, Unset):
            reconfigured = []
            for reconfigured_item_data in self.reconfigured:
                reconfigured_item = reconfigured_item_data.to_dict()
                reconfigured.append(reconfigured_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "decision": decision,
                "details": details,
                "event_seq": event_seq,
                "reason": reason,
                "replayed": replayed,
                "server_id": server_id,
            }
        )
        if dry_run is not UNSET:
            field_dict["dry_run"] = dry_run
        if preempted is not UNSET:
            field_dict["preempted"] = preempted
        if reconfigured is not UNSET:
            field_dict["reconfigured"] = reconfigured

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.placement_out_details import PlacementOutDetails  # noqa: PLC0415
        from ..models.preemption_out import PreemptionOut  # noqa: PLC0415
        from ..models.reconfiguration_out import ReconfigurationOut  # noqa: PLC0415

        d = dict(src_dict)
        decision = PlacementOutDecision(d.pop("decision"))

        details = PlacementOutDetails.from_dict(d.pop("details"))

        def _parse_event_seq(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        event_seq = _parse_event_seq(d.pop("event_seq"))

        reason = d.pop("reason")

        replayed = d.pop("replayed")

        def _parse_server_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        server_id = _parse_server_id(d.pop("server_id"))

        dry_run = d.pop("dry_run", UNSET)

        _preempted = d.pop("preempted", UNSET)
        preempted: list[PreemptionOut] | Unset = UNSET
        if _preempted is not UNSET:
            preempted = []
            for preempted_item_data in _preempted:
                preempted_item = PreemptionOut.from_dict(preempted_item_data)

                preempted.append(preempted_item)

        _reconfigured = d.pop("reconfigured", UNSET)
        reconfigured: list[ReconfigurationOut] | Unset = UNSET
        if _reconfigured is not UNSET:
            reconfigured = []
            for reconfigured_item_data in _reconfigured:
                reconfigured_item = ReconfigurationOut.from_dict(reconfigured_item_data)

                reconfigured.append(reconfigured_item)

        placement_out = cls(
            decision=decision,
            details=details,
            event_seq=event_seq,
            reason=reason,
            replayed=replayed,
            server_id=server_id,
            dry_run=dry_run,
            preempted=preempted,
            reconfigured=reconfigured,
        )

        placement_out.additional_properties = d
        return placement_out

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
