from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.deployment_meta import DeploymentMeta
    from ..models.deployment_spec import DeploymentSpec


T = TypeVar("T", bound="Deployment")


@_attrs_define
class Deployment:
    """An apps/v1 Deployment, or the autoscaling/v1 Scale of one (the ``scale`` subresource),
    which has the same metadata and ``spec.replicas`` and no template. An absent
    ``spec.replicas`` is 1 in a Deployment (the API server's default) and 0 in a Scale (whose
    replicas are omitted when zero).

        Attributes:
            metadata (DeploymentMeta | None | Unset):
            spec (DeploymentSpec | None | Unset):
    """

    metadata: DeploymentMeta | None | Unset = UNSET
    spec: DeploymentSpec | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.deployment_meta import DeploymentMeta  # noqa: PLC0415
        from ..models.deployment_spec import DeploymentSpec  # noqa: PLC0415

        metadata: dict[str, Any] | None | Unset
        if isinstance(self.metadata, Unset):
            metadata = UNSET
        elif isinstance(self.metadata, DeploymentMeta):
            metadata = self.metadata.to_dict()
        else:
            metadata = self.metadata

        spec: dict[str, Any] | None | Unset
        if isinstance(self.spec, Unset):
            spec = UNSET
        elif isinstance(self.spec, DeploymentSpec):
            spec = self.spec.to_dict()
        else:
            spec = self.spec

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if metadata is not UNSET:
            field_dict["metadata"] = metadata
        if spec is not UNSET:
            field_dict["spec"] = spec

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.deployment_meta import DeploymentMeta  # noqa: PLC0415
        from ..models.deployment_spec import DeploymentSpec  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_metadata(data: object) -> DeploymentMeta | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                metadata_type_0 = DeploymentMeta.from_dict(data)

                return metadata_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DeploymentMeta | None | Unset, data)

        metadata = _parse_metadata(d.pop("metadata", UNSET))

        def _parse_spec(data: object) -> DeploymentSpec | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                spec_type_0 = DeploymentSpec.from_dict(data)

                return spec_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DeploymentSpec | None | Unset, data)

        spec = _parse_spec(d.pop("spec", UNSET))

        deployment = cls(
            metadata=metadata,
            spec=spec,
        )

        deployment.additional_properties = d
        return deployment

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
