from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.hindsight_resource import HindsightResource


T = TypeVar("T", bound="Hindsight")


@_attrs_define
class Hindsight:
    """
    Attributes:
        reservation_id (str):
        resources (list[HindsightResource]):
    """

    reservation_id: str
    resources: list[HindsightResource]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        reservation_id = self.reservation_id

        resources = []
        for resources_item_data in self.resources:
            resources_item = resources_item_data.to_dict()
            resources.append(resources_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "reservation_id": reservation_id,
                "resources": resources,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.hindsight_resource import HindsightResource  # noqa: PLC0415

        d = dict(src_dict)
        reservation_id = d.pop("reservation_id")

        resources = []
        _resources = d.pop("resources")
        for resources_item_data in _resources:
            resources_item = HindsightResource.from_dict(resources_item_data)

            resources.append(resources_item)

        hindsight = cls(
            reservation_id=reservation_id,
            resources=resources,
        )

        hindsight.additional_properties = d
        return hindsight

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
