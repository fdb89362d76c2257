from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="CalibratedAnchor")


@_attrs_define
class CalibratedAnchor:
    """A capacity of the service's calibration table (app/policies/moments/sla.py) that a
    table derivation drew on, as the service writes it.

        Attributes:
            capacity (int):
            runs (int): Seeded lives of the §2.1 model behind it.
            value (float): The threshold calibrated there: t / capacity for threshold and first_moment, ρ for second_moment.
            confidence (float | None | Unset): Confidence that the pooled failure rate met the SLA there; null where none
                was measured.
            failure_rate (float | None | Unset): The pooled failure rate of those lives.
            ratio_to_table (float | None | Unset): A growth step's anchors: value over the Table 1 prior's value at the same
                capacity.
    """

    capacity: int
    runs: int
    value: float
    confidence: float | None | Unset = UNSET
    failure_rate: float | None | Unset = UNSET
    ratio_to_table: float | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        capacity = self.capacity

        runs = self.runs

        value = self.value

        confidence: float | None | Unset
        if isinstance(self.confidence, Unset):
            confidence = UNSET
        else:
            confidence = self.confidence

        failure_rate: float | None | Unset
        if isinstance(self.failure_rate, Unset):
            failure_rate = UNSET
        else:
            failure_rate = self.failure_rate

        ratio_to_table: float | None | Unset
        if isinstance(self.ratio_to_table, Unset):
            ratio_to_table = UNSET
        else:
            ratio_to_table = self.ratio_to_table

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "capacity": capacity,
                "runs": runs,
                "value": value,
            }
        )
        if confidence is not UNSET:
            field_dict["confidence"] = confidence
        if failure_rate is not UNSET:
            field_dict["failure_rate"] = failure_rate
        if ratio_to_table is not UNSET:
            field_dict["ratio_to_table"] = ratio_to_table

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        capacity = d.pop("capacity")

        runs = d.pop("runs")

        value = d.pop("value")

        def _parse_confidence(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        confidence = _parse_confidence(d.pop("confidence", UNSET))

        def _parse_failure_rate(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        failure_rate = _parse_failure_rate(d.pop("failure_rate", UNSET))

        def _parse_ratio_to_table(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        ratio_to_table = _parse_ratio_to_table(d.pop("ratio_to_table", UNSET))

        calibrated_anchor = cls(
            capacity=capacity,
            runs=runs,
            value=value,
            confidence=confidence,
            failure_rate=failure_rate,
            ratio_to_table=ratio_to_table,
        )

        return calibrated_anchor
