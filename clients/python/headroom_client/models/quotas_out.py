from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.quotas_out_tenants_item import QuotasOutTenantsItem


T = TypeVar("T", bound="QuotasOut")


@_attrs_define
class QuotasOut:
    """
    Attributes:
        decision (Literal['quotas_set']):
        event_seq (int | None): Position in the cluster's log; null on a dry run or an idle tick.
        generation (int): The new generation.
        replayed (bool): True when this answers a retry of a logged event.
        tenants (list[QuotasOutTenantsItem]):
        dry_run (bool | Unset):  Default: False.
    """

    decision: Literal["quotas_set"]
    event_seq: int | None
    generation: int
    replayed: bool
    tenants: list[QuotasOutTenantsItem]
    dry_run: bool | Unset = False
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        decision = self.decision

        event_seq: int | None
        event_seq = self.event_seq

        generation = self.generation

        replayed = self.replayed

        tenants = []
        for tenants_item_data in self.tenants:
            tenants_item = tenants_item_data.to_dict()
            tenants.append(tenants_item)

        dry_run = self.dry_run

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "decision": decision,
                "event_seq": event_seq,
                "generation": generation,
                "replayed": replayed,
                "tenants": tenants,
            }
        )
        if dry_run is not UNSET:
            field_dict["dry_run"] = dry_run

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.quotas_out_tenants_item import QuotasOutTenantsItem  # noqa: PLC0415

        d = dict(src_dict)
        decision = cast(Literal["quotas_set"], d.pop("decision"))
        if decision != "quotas_set":
            raise ValueError(f"decision must match const 'quotas_set', got '{decision}'")

        def _parse_event_seq(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        event_seq = _parse_event_seq(d.pop("event_seq"))

        generation = d.pop("generation")

        replayed = d.pop("replayed")

        tenants = []
        _tenants = d.pop("tenants")
        for tenants_item_data in _tenants:
            tenants_item = QuotasOutTenantsItem.from_dict(tenants_item_data)

            tenants.append(tenants_item)

        dry_run = d.pop("dry_run", UNSET)

        quotas_out = cls(
            decision=decision,
            event_seq=event_seq,
            generation=generation,
            replayed=replayed,
            tenants=tenants,
            dry_run=dry_run,
        )

        quotas_out.additional_properties = d
        return quotas_out

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
