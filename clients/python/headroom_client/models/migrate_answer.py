from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="MigrateAnswer")


@_attrs_define
class MigrateAnswer:
    """
    Attributes:
        expected_peak_cores (float): The largest of its expected cores over the horizons.
        expected_share (float): expected_peak_cores over the cluster's capacity.
        reason (Literal['outgrowing_cluster']):
        share (float): The share of the capacity at which a deployment is told to migrate.
    """

    expected_peak_cores: float
    expected_share: float
    reason: Literal["outgrowing_cluster"]
    share: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        expected_peak_cores = self.expected_peak_cores

        expected_share = self.expected_share

        reason = self.reason

        share = self.share

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "expected_peak_cores": expected_peak_cores,
                "expected_share": expected_share,
                "reason": reason,
                "share": share,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        expected_peak_cores = d.pop("expected_peak_cores")

        expected_share = d.pop("expected_share")

        reason = cast(Literal["outgrowing_cluster"], d.pop("reason"))
        if reason != "outgrowing_cluster":
            raise ValueError(f"reason must match const 'outgrowing_cluster', got '{reason}'")

        share = d.pop("share")

        migrate_answer = cls(
            expected_peak_cores=expected_peak_cores,
            expected_share=expected_share,
            reason=reason,
            share=share,
        )

        migrate_answer.additional_properties = d
        return migrate_answer

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
