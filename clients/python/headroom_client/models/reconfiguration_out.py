from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.reconfiguration_out_configuration import ReconfigurationOutConfiguration


T = TypeVar("T", bound="ReconfigurationOut")


@_attrs_define
class ReconfigurationOut:
    """
    Attributes:
        configuration (ReconfigurationOutConfiguration):
        server_id (str):
    """

    configuration: ReconfigurationOutConfiguration
    server_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        configuration = self.configuration.to_dict()

        server_id = self.server_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "configuration": configuration,
                "server_id": server_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.reconfiguration_out_configuration import ReconfigurationOutConfiguration  # noqa: PLC0415

        d = dict(src_dict)
        configuration = ReconfigurationOutConfiguration.from_dict(d.pop("configuration"))

        server_id = d.pop("server_id")

        reconfiguration_out = cls(
            configuration=configuration,
            server_id=server_id,
        )

        reconfiguration_out.additional_properties = d
        return reconfiguration_out

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
