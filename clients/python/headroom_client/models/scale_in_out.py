from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ScaleInOut")


@_attrs_define
class ScaleInOut:
    """
    Attributes:
        active_cores (int):
        alive (bool):
        decision (Literal['released']):
        event_seq (int):
        replayed (bool):
    """

    active_cores: int
    alive: bool
    decision: Literal["released"]
    event_seq: int
    replayed: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        active_cores = self.active_cores

        alive = self.alive

        decision = self.decision

        event_seq = self.event_seq

        replayed = self.replayed

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "active_cores": active_cores,
                "alive": alive,
                "decision": decision,
                "event_seq": event_seq,
                "replayed": replayed,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        active_cores = d.pop("active_cores")

        alive = d.pop("alive")

        decision = cast(Literal["released"], d.pop("decision"))
        if decision != "released":
            raise ValueError(f"decision must match const 'released', got '{decision}'")

        event_seq = d.pop("event_seq")

        replayed = d.pop("replayed")

        scale_in_out = cls(
            active_cores=active_cores,
            alive=alive,
            decision=decision,
            event_seq=event_seq,
            replayed=replayed,
        )

        scale_in_out.additional_properties = d
        return scale_in_out

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
