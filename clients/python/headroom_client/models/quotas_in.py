from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.tenant_in import TenantIn


T = TypeVar("T", bound="QuotasIn")


@_attrs_define
class QuotasIn:
    """
    Attributes:
        generation (int): The quotas' generation this change replaces (`tenancy.generation` in the state); another one
            is refused with 412, so two admins cannot undo each other unseen.
        tenants (list[TenantIn]):
        event_id (None | str | Unset): Idempotency key of the change, unique per cluster (or the Idempotency-Key
            header).
    """

    generation: int
    tenants: list[TenantIn]
    event_id: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        generation = self.generation

        tenants = []
        for tenants_item_data in self.tenants:
            tenants_item = tenants_item_data.to_dict()
            tenants.append(tenants_item)

        event_id: None | str | Unset
        if isinstance(self.event_id, Unset):
            event_id = UNSET
        else:
            event_id = self.event_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "generation": generation,
                "tenants": tenants,
            }
        )
        if event_id is not UNSET:
            field_dict["event_id"] = event_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.tenant_in import TenantIn  # noqa: PLC0415

        d = dict(src_dict)
        generation = d.pop("generation")

        tenants = []
        _tenants = d.pop("tenants")
        for tenants_item_data in _tenants:
            tenants_item = TenantIn.from_dict(tenants_item_data)

            tenants.append(tenants_item)

        def _parse_event_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        event_id = _parse_event_id(d.pop("event_id", UNSET))

        quotas_in = cls(
            generation=generation,
            tenants=tenants,
            event_id=event_id,
        )

        return quotas_in
