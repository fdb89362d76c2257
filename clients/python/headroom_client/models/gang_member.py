from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="GangMember")


@_attrs_define
class GangMember:
    """
    Attributes:
        job_id (str): Printable ASCII without spaces or "/", not starting with ".", at most 200 characters: it is a path
            segment of later requests.
        job_type (str):
    """

    job_id: str
    job_type: str

    def to_dict(self) -> dict[str, Any]:
        job_id = self.job_id

        job_type = self.job_type

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "job_id": job_id,
                "job_type": job_type,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        job_id = d.pop("job_id")

        job_type = d.pop("job_type")

        gang_member = cls(
            job_id=job_id,
            job_type=job_type,
        )

        return gang_member
