from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.resource_requirements_limits_type_0 import ResourceRequirementsLimitsType0
    from ..models.resource_requirements_requests_type_0 import ResourceRequirementsRequestsType0


T = TypeVar("T", bound="ResourceRequirements")


@_attrs_define
class ResourceRequirements:
    """
    Attributes:
        limits (None | ResourceRequirementsLimitsType0 | Unset):
        requests (None | ResourceRequirementsRequestsType0 | Unset):
    """

    limits: None | ResourceRequirementsLimitsType0 | Unset = UNSET
    requests: None | ResourceRequirementsRequestsType0 | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.resource_requirements_limits_type_0 import ResourceRequirementsLimitsType0  # noqa: PLC0415
        from ..models.resource_requirements_requests_type_0 import ResourceRequirementsRequestsType0  # noqa: PLC0415

        limits: dict[str, Any] | None | Unset
        if isinstance(self.limits, Unset):
            limits = UNSET
        elif isinstance(self.limits, ResourceRequirementsLimitsType0):
            limits = self.limits.to_dict()
        else:
            limits = self.limits

        requests: dict[str, Any] | None | Unset
        if isinstance(self.requests, Unset):
            requests = UNSET
        elif isinstance(self.requests, ResourceRequirementsRequestsType0):
            requests = self.requests.to_dict()
        else:
            requests = self.requests

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if limits is not UNSET:
            field_dict["limits"] = limits
        if requests is not UNSET:
            field_dict["requests"] = requests

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.resource_requirements_limits_type_0 import ResourceRequirementsLimitsType0  # noqa: PLC0415
        from ..models.resource_requirements_requests_type_0 import ResourceRequirementsRequestsType0  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_limits(data: object) -> None | ResourceRequirementsLimitsType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                limits_type_0 = ResourceRequirementsLimitsType0.from_dict(data)

                return limits_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ResourceRequirementsLimitsType0 | Unset, data)

        limits = _parse_limits(d.pop("limits", UNSET))

        def _parse_requests(data: object) -> None | ResourceRequirementsRequestsType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                requests_type_0 = ResourceRequirementsRequestsType0.from_dict(data)

                return requests_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ResourceRequirementsRequestsType0 | Unset, data)

        requests = _parse_requests(d.pop("requests", UNSET))

        resource_requirements = cls(
            limits=limits,
            requests=requests,
        )

        resource_requirements.additional_properties = d
        return resource_requirements

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
