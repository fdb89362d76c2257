from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ExtenderBindingArgs")


@_attrs_define
class ExtenderBindingArgs:
    """
    Attributes:
        node (str):
        pod_name (str):
        pod_namespace (str):
        pod_uid (str): The pod's UID: Headroom's event id and job id.
    """

    node: str
    pod_name: str
    pod_namespace: str
    pod_uid: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        node = self.node

        pod_name = self.pod_name

        pod_namespace = self.pod_namespace

        pod_uid = self.pod_uid

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "Node": node,
                "PodName": pod_name,
                "PodNamespace": pod_namespace,
                "PodUID": pod_uid,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        node = d.pop("Node")

        pod_name = d.pop("PodName")

        pod_namespace = d.pop("PodNamespace")

        pod_uid = d.pop("PodUID")

        extender_binding_args = cls(
            node=node,
            pod_name=pod_name,
            pod_namespace=pod_namespace,
            pod_uid=pod_uid,
        )

        extender_binding_args.additional_properties = d
        return extender_binding_args

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
