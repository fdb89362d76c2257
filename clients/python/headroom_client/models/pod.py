from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.pod_meta import PodMeta
    from ..models.pod_spec import PodSpec


T = TypeVar("T", bound="Pod")


@_attrs_define
class Pod:
    """
    Attributes:
        metadata (PodMeta):
        spec (None | PodSpec | Unset):
    """

    metadata: PodMeta
    spec: None | PodSpec | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.pod_spec import PodSpec  # noqa: PLC0415

        metadata = self.metadata.to_dict()

        spec: dict[str, Any] | None | Unset
        if isinstance(self.spec, Unset):
            spec = UNSET
        elif isinstance(self.spec, PodSpec):
            spec = self.spec.to_dict()
        else:
            spec = self.spec

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "metadata": metadata,
            }
        )
        if spec is not UNSET:
            field_dict["spec"] = spec

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.pod_meta import PodMeta  # noqa: PLC0415
        from ..models.pod_spec import PodSpec  # noqa: PLC0415

        d = dict(src_dict)
        metadata = PodMeta.from_dict(d.pop("metadata"))

        def _parse_spec(data: object) -> None | PodSpec | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                spec_type_0 = PodSpec.from_dict(data)

                return spec_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PodSpec | Unset, data)

        spec = _parse_spec(d.pop("spec", UNSET))

        pod = cls(
            metadata=metadata,
            spec=spec,
        )

        pod.additional_properties = d
        return pod

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
