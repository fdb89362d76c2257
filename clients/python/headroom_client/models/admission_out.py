from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.admission_out_decision import AdmissionOutDecision
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.admission_out_details import AdmissionOutDetails


T = TypeVar("T", bound="AdmissionOut")


@_attrs_define
class AdmissionOut:
    """
    Attributes:
        decision (AdmissionOutDecision):
        details (AdmissionOutDetails):
        event_seq (int | None):
        reason (str):
        replayed (bool):
        dry_run (bool | Unset):  Default: False.
    """

    decision: AdmissionOutDecision
    details: AdmissionOutDetails
    event_seq: int | None
    reason: str
    replayed: bool
    dry_run: bool | Unset = False
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        decision = self.decision.value

        details = self.details.to_dict()

        event_seq: int | None
        event_seq = self.event_seq

        reason = self.reason

        replayed = self.replayed

        dry_run = self.dry_run

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "decision": decision,
                "details": details,
                "event_seq": event_seq,
                "reason": reason,
                "replayed": replayed,
            }
        )
        if dry_run is not UNSET:
            field_dict["dry_run"] = dry_run

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.admission_out_details import AdmissionOutDetails  # noqa: PLC0415

        d = dict(src_dict)
        decision = AdmissionOutDecision(d.pop("decision"))

        details = AdmissionOutDetails.from_dict(d.pop("details"))

        def _parse_event_seq(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        event_seq = _parse_event_seq(d.pop("event_seq"))

        reason = d.pop("reason")

        replayed = d.pop("replayed")

        dry_run = d.pop("dry_run", UNSET)

        admission_out = cls(
            decision=decision,
            details=details,
            event_seq=event_seq,
            reason=reason,
            replayed=replayed,
            dry_run=dry_run,
        )

        admission_out.additional_properties = d
        return admission_out

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
