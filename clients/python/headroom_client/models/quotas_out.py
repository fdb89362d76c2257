from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.quotas_out_started_type_0_item import QuotasOutStartedType0Item
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
        gangs_timed_out (list[str] | None | Unset): Queued clusters: gangs whose timeout passed up to this event,
            refused (their members withdrawn).
        started (list[QuotasOutStartedType0Item] | None | Unset): Queued clusters: jobs that waited for quota and
            started at once under the new quotas.
    """

    decision: Literal["quotas_set"]
    event_seq: int | None
    generation: int
    replayed: bool
    tenants: list[QuotasOutTenantsItem]
    dry_run: bool | Unset = False
    gangs_timed_out: list[str] | None | Unset = UNSET
    started: list[QuotasOutStartedType0Item] | None | Unset = UNSET
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

        gangs_timed_out: list[str] | None | Unset
        if isinstance(self.gangs_timed_out, Unset):
            gangs_timed_out = UNSET
        elif isinstance(self.gangs_timed_out, list):
            gangs_timed_out = self.gangs_timed_out

        else:
            gangs_timed_out = self.gangs_timed_out

        started: list[dict[str, Any]] | None | Unset
        if isinstance(self.started, Unset):
            started = UNSET
        elif isinstance(self.started, list):
            started = []
            for started_type_0_item_data in self.started:
                started_type_0_item = started_type_0_item_data.to_dict()
                started.append(started_type_0_item)

        else:
            started = self.started

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
        if gangs_timed_out is not UNSET:
            field_dict["gangs_timed_out"] = gangs_timed_out
        if started is not UNSET:
            field_dict["started"] = started

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.quotas_out_started_type_0_item import QuotasOutStartedType0Item  # noqa: PLC0415
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

        def _parse_started(data: object) -> list[QuotasOutStartedType0Item] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                started_type_0 = []
                _started_type_0 = data
                for started_type_0_item_data in _started_type_0:
                    started_type_0_item = QuotasOutStartedType0Item.from_dict(started_type_0_item_data)

                    started_type_0.append(started_type_0_item)

                return started_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[QuotasOutStartedType0Item] | None | Unset, data)

        started = _parse_started(d.pop("started", UNSET))

        quotas_out = cls(
            decision=decision,
            event_seq=event_seq,
            generation=generation,
            replayed=replayed,
            tenants=tenants,
            dry_run=dry_run,
            gangs_timed_out=gangs_timed_out,
            started=started,
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
