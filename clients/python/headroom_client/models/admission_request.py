from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.admission_request_operation import AdmissionRequestOperation
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.deployment import Deployment
    from ..models.group_version_resource import GroupVersionResource


T = TypeVar("T", bound="AdmissionRequest")


@_attrs_define
class AdmissionRequest:
    """
    Attributes:
        operation (AdmissionRequestOperation):
        resource (GroupVersionResource):
        uid (str): Echoed in the response; also Headroom's event id.
        dry_run (bool | None | Unset):
        name (None | str | Unset):
        namespace (None | str | Unset):
        object_ (Deployment | None | Unset): The Deployment (or its Scale) as it would be; other kinds are not read.
        old_object (Deployment | None | Unset): The Deployment (or its Scale) as it was, on UPDATE and DELETE.
        sub_resource (None | str | Unset):
    """

    operation: AdmissionRequestOperation
    resource: GroupVersionResource
    uid: str
    dry_run: bool | None | Unset = UNSET
    name: None | str | Unset = UNSET
    namespace: None | str | Unset = UNSET
    object_: Deployment | None | Unset = UNSET
    old_object: Deployment | None | Unset = UNSET
    sub_resource: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.deployment import Deployment  # noqa: PLC0415

        operation = self.operation.value

        resource = self.resource.to_dict()

        uid = self.uid

        dry_run: bool | None | Unset
        if isinstance(self.dry_run, Unset):
            dry_run = UNSET
        else:
            dry_run = self.dry_run

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        namespace: None | str | Unset
        if isinstance(self.namespace, Unset):
            namespace = UNSET
        else:
            namespace = self.namespace

        object_: dict[str, Any] | None | Unset
        if isinstance(self.object_, Unset):
            object_ = UNSET
        elif isinstance(self.object_, Deployment):
            object_ = self.object_.to_dict()
        else:
            object_ = self.object_

        old_object: dict[str, Any] | None | Unset
        if isinstance(self.old_object, Unset):
            old_object = UNSET
        elif isinstance(self.old_object, Deployment):
            old_object = self.old_object.to_dict()
        else:
            old_object = self.old_object

        sub_resource: None | str | Unset
        if isinstance(self.sub_resource, Unset):
            sub_resource = UNSET
        else:
            sub_resource = self.sub_resource

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "operation": operation,
                "resource": resource,
                "uid": uid,
            }
        )
        if dry_run is not UNSET:
            field_dict["dryRun"] = dry_run
        if name is not UNSET:
            field_dict["name"] = name
        if namespace is not UNSET:
            field_dict["namespace"] = namespace
        if object_ is not UNSET:
            field_dict["object"] = object_
        if old_object is not UNSET:
            field_dict["oldObject"] = old_object
        if sub_resource is not UNSET:
            field_dict["subResource"] = sub_resource

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.deployment import Deployment  # noqa: PLC0415
        from ..models.group_version_resource import GroupVersionResource  # noqa: PLC0415

        d = dict(src_dict)
        operation = AdmissionRequestOperation(d.pop("operation"))

        resource = GroupVersionResource.from_dict(d.pop("resource"))

        uid = d.pop("uid")

        def _parse_dry_run(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        dry_run = _parse_dry_run(d.pop("dryRun", UNSET))

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))

        def _parse_namespace(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        namespace = _parse_namespace(d.pop("namespace", UNSET))

        def _parse_object_(data: object) -> Deployment | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                object_type_0 = Deployment.from_dict(data)

                return object_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Deployment | None | Unset, data)

        object_ = _parse_object_(d.pop("object", UNSET))

        def _parse_old_object(data: object) -> Deployment | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                old_object_type_0 = Deployment.from_dict(data)

                return old_object_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Deployment | None | Unset, data)

        old_object = _parse_old_object(d.pop("oldObject", UNSET))

        def _parse_sub_resource(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        sub_resource = _parse_sub_resource(d.pop("subResource", UNSET))

        admission_request = cls(
            operation=operation,
            resource=resource,
            uid=uid,
            dry_run=dry_run,
            name=name,
            namespace=namespace,
            object_=object_,
            old_object=old_object,
            sub_resource=sub_resource,
        )

        admission_request.additional_properties = d
        return admission_request

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
