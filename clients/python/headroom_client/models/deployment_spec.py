from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.pod_template_spec import PodTemplateSpec


T = TypeVar("T", bound="DeploymentSpec")


@_attrs_define
class DeploymentSpec:
    """
    Attributes:
        replicas (int | None | Unset):
        template (None | PodTemplateSpec | Unset):
    """

    replicas: int | None | Unset = UNSET
    template: None | PodTemplateSpec | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.pod_template_spec import PodTemplateSpec  # noqa: PLC0415

        replicas: int | None | Unset
        if isinstance(self.replicas, Unset):
            replicas = UNSET
        else:
            replicas = self.replicas

        template: dict[str, Any] | None | Unset
        if isinstance(self.template, Unset):
            template = UNSET
        elif isinstance(self.template, PodTemplateSpec):
            template = self.template.to_dict()
        else:
            template = self.template

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if replicas is not UNSET:
            field_dict["replicas"] = replicas
        if template is not UNSET:
            field_dict["template"] = template

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.pod_template_spec import PodTemplateSpec  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_replicas(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        replicas = _parse_replicas(d.pop("replicas", UNSET))

        def _parse_template(data: object) -> None | PodTemplateSpec | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                template_type_0 = PodTemplateSpec.from_dict(data)

                return template_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PodTemplateSpec | Unset, data)

        template = _parse_template(d.pop("template", UNSET))

        deployment_spec = cls(
            replicas=replicas,
            template=template,
        )

        deployment_spec.additional_properties = d
        return deployment_spec

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
