from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.container import Container
    from ..models.pod_spec_overhead_type_0 import PodSpecOverheadType0


T = TypeVar("T", bound="PodSpec")


@_attrs_define
class PodSpec:
    """
    Attributes:
        containers (list[Container] | None | Unset):
        init_containers (list[Container] | None | Unset):
        overhead (None | PodSpecOverheadType0 | Unset):
    """

    containers: list[Container] | None | Unset = UNSET
    init_containers: list[Container] | None | Unset = UNSET
    overhead: None | PodSpecOverheadType0 | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.pod_spec_overhead_type_0 import PodSpecOverheadType0  # noqa: PLC0415

        containers: list[dict[str, Any]] | None | Unset
        if isinstance(self.containers, Unset):
            containers = UNSET
        elif isinstance(self.containers, list):
            containers = []
            for containers_type_0_item_data in self.containers:
                containers_type_0_item = containers_type_0_item_data.to_dict()
                containers.append(containers_type_0_item)

        else:
            containers = self.containers

        init_containers: list[dict[str, Any]] | None | Unset
        if isinstance(self.init_containers, Unset):
            init_containers = UNSET
        elif isinstance(self.init_containers, list):
            init_containers = []
            for init_containers_type_0_item_data in self.init_containers:
                init_containers_type_0_item = init_containers_type_0_item_data.to_dict()
                init_containers.append(init_containers_type_0_item)

        else:
            init_containers = self.init_containers

        overhead: dict[str, Any] | None | Unset
        if isinstance(self.overhead, Unset):
            overhead = UNSET
        elif isinstance(self.overhead, PodSpecOverheadType0):
            overhead = self.overhead.to_dict()
        else:
            overhead = self.overhead

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if containers is not UNSET:
            field_dict["containers"] = containers
        if init_containers is not UNSET:
            field_dict["initContainers"] = init_containers
        if overhead is not UNSET:
            field_dict["overhead"] = overhead

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.container import Container  # noqa: PLC0415
        from ..models.pod_spec_overhead_type_0 import PodSpecOverheadType0  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_containers(data: object) -> list[Container] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                containers_type_0 = []
                _containers_type_0 = data
                for containers_type_0_item_data in _containers_type_0:
                    containers_type_0_item = Container.from_dict(containers_type_0_item_data)

                    containers_type_0.append(containers_type_0_item)

                return containers_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[Container] | None | Unset, data)

        containers = _parse_containers(d.pop("containers", UNSET))

        def _parse_init_containers(data: object) -> list[Container] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                init_containers_type_0 = []
                _init_containers_type_0 = data
                for init_containers_type_0_item_data in _init_containers_type_0:
                    init_containers_type_0_item = Container.from_dict(init_containers_type_0_item_data)

                    init_containers_type_0.append(init_containers_type_0_item)

                return init_containers_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[Container] | None | Unset, data)

        init_containers = _parse_init_containers(d.pop("initContainers", UNSET))

        def _parse_overhead(data: object) -> None | PodSpecOverheadType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                overhead_type_0 = PodSpecOverheadType0.from_dict(data)

                return overhead_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PodSpecOverheadType0 | Unset, data)

        overhead = _parse_overhead(d.pop("overhead", UNSET))

        pod_spec = cls(
            containers=containers,
            init_containers=init_containers,
            overhead=overhead,
        )

        pod_spec.additional_properties = d
        return pod_spec

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
