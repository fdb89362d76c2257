from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..models.outgrowing_row_reason import OutgrowingRowReason

T = TypeVar("T", bound="OutgrowingRow")


@_attrs_define
class OutgrowingRow:
    """
    Attributes:
        cores (int):
        deployment_id (str):
        expected_peak_cores (float):
        expected_share (float):
        reason (OutgrowingRowReason):
    """

    cores: int
    deployment_id: str
    expected_peak_cores: float
    expected_share: float
    reason: OutgrowingRowReason

    def to_dict(self) -> dict[str, Any]:
        cores = self.cores

        deployment_id = self.deployment_id

        expected_peak_cores = self.expected_peak_cores

        expected_share = self.expected_share

        reason = self.reason.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "cores": cores,
                "deployment_id": deployment_id,
                "expected_peak_cores": expected_peak_cores,
                "expected_share": expected_share,
                "reason": reason,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        cores = d.pop("cores")

        deployment_id = d.pop("deployment_id")

        expected_peak_cores = d.pop("expected_peak_cores")

        expected_share = d.pop("expected_share")

        reason = OutgrowingRowReason(d.pop("reason"))

        outgrowing_row = cls(
            cores=cores,
            deployment_id=deployment_id,
            expected_peak_cores=expected_peak_cores,
            expected_share=expected_share,
            reason=reason,
        )

        return outgrowing_row
