from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.admission_status import AdmissionStatus


T = TypeVar("T", bound="AdmissionResponse")


@_attrs_define
class AdmissionResponse:
    """
    Attributes:
        allowed (bool):
        status (AdmissionStatus):
        uid (str):
        warnings (list[str] | Unset):
    """

    allowed: bool
    status: AdmissionStatus
    uid: str
    warnings: list[str] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        allowed = self.allowed

        status = self.status.to_dict()

        uid = self.uid

        warnings: list[str] | Unset = UNSET
        if not isinstance(self.warnings, Unset):
            warnings = self.warnings

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "allowed": allowed,
                "status": status,
                "uid": uid,
            }
        )
        if warnings is not UNSET:
            field_dict["warnings"] = warnings

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.admission_status import AdmissionStatus  # noqa: PLC0415

        d = dict(src_dict)
        allowed = d.pop("allowed")

        status = AdmissionStatus.from_dict(d.pop("status"))

        uid = d.pop("uid")

        warnings = cast(list[str], d.pop("warnings", UNSET))

        admission_response = cls(
            allowed=allowed,
            status=status,
            uid=uid,
            warnings=warnings,
        )

        admission_response.additional_properties = d
        return admission_response

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
