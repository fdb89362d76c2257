from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.scale_out_out_decision import ScaleOutOutDecision

T = TypeVar("T", bound="ScaleOutOut")


@_attrs_define
class ScaleOutOut:
    """
    Attributes:
        active_cores (int):
        decision (ScaleOutOutDecision):
        event_seq (int):
        replayed (bool):
        sla_failure_rate (float):
    """

    active_cores: int
    decision: ScaleOutOutDecision
    event_seq: int
    replayed: bool
    sla_failure_rate: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        active_cores = self.active_cores

        decision = self.decision.value

        event_seq = self.event_seq

        replayed = self.replayed

        sla_failure_rate = self.sla_failure_rate

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "active_cores": active_cores,
                "decision": decision,
                "event_seq": event_seq,
                "replayed": replayed,
                "sla_failure_rate": sla_failure_rate,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        active_cores = d.pop("active_cores")

        decision = ScaleOutOutDecision(d.pop("decision"))

        event_seq = d.pop("event_seq")

        replayed = d.pop("replayed")

        sla_failure_rate = d.pop("sla_failure_rate")

        scale_out_out = cls(
            active_cores=active_cores,
            decision=decision,
            event_seq=event_seq,
            replayed=replayed,
            sla_failure_rate=sla_failure_rate,
        )

        scale_out_out.additional_properties = d
        return scale_out_out

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
