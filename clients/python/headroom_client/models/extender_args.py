from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.node_list import NodeList
    from ..models.pod import Pod


T = TypeVar("T", bound="ExtenderArgs")


@_attrs_define
class ExtenderArgs:
    """Sent to filter and prioritize: the pod and its candidate nodes (full ``Nodes``, or
    only ``NodeNames`` when the extender is ``nodeCacheCapable``); one of the two is
    required.

        Attributes:
            pod (Pod):
            node_names (list[str] | None | Unset):
            nodes (NodeList | None | Unset):
    """

    pod: Pod
    node_names: list[str] | None | Unset = UNSET
    nodes: NodeList | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.node_list import NodeList  # noqa: PLC0415

        pod = self.pod.to_dict()

        node_names: list[str] | None | Unset
        if isinstance(self.node_names, Unset):
            node_names = UNSET
        elif isinstance(self.node_names, list):
            node_names = self.node_names

        else:
            node_names = self.node_names

        nodes: dict[str, Any] | None | Unset
        if isinstance(self.nodes, Unset):
            nodes = UNSET
        elif isinstance(self.nodes, NodeList):
            nodes = self.nodes.to_dict()
        else:
            nodes = self.nodes

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "Pod": pod,
            }
        )
        if node_names is not UNSET:
            field_dict["NodeNames"] = node_names
        if nodes is not UNSET:
            field_dict["Nodes"] = nodes

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.node_list import NodeList  # noqa: PLC0415
        from ..models.pod import Pod  # noqa: PLC0415

        d = dict(src_dict)
        pod = Pod.from_dict(d.pop("Pod"))

        def _parse_node_names(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                node_names_type_0 = cast(list[str], data)

                return node_names_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        node_names = _parse_node_names(d.pop("NodeNames", UNSET))

        def _parse_nodes(data: object) -> NodeList | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                nodes_type_0 = NodeList.from_dict(data)

                return nodes_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(NodeList | None | Unset, data)

        nodes = _parse_nodes(d.pop("Nodes", UNSET))

        extender_args = cls(
            pod=pod,
            node_names=node_names,
            nodes=nodes,
        )

        extender_args.additional_properties = d
        return extender_args

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
