from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="PercentilePolicyParams")


@_attrs_define
class PercentilePolicyParams:
    """Kubernetes VPA recommender's defaults.

    Attributes:
        bucket_ratio (float | Unset): Each bucket this much wider than the last. Default: 1.05.
        first_bucket (float | Unset): Width of the histogram's first bucket. Default: 0.01.
        half_life (float | Unset): Periods after which a sample weighs half. Default: 288.0.
        margin (float | Unset): Safety margin on top of the percentile. Default: 0.15.
        max_value (float | Unset): The histogram's end: above first_bucket, at most 100,000 buckets. Default: 1000.0.
        percentile (float | None | Unset): The percentile reserved; null: 1 − ε of each resource.
    """

    bucket_ratio: float | Unset = 1.05
    first_bucket: float | Unset = 0.01
    half_life: float | Unset = 288.0
    margin: float | Unset = 0.15
    max_value: float | Unset = 1000.0
    percentile: float | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        bucket_ratio = self.bucket_ratio

        first_bucket = self.first_bucket

        half_life = self.half_life

        margin = self.margin

        max_value = self.max_value

        percentile: float | None | Unset
        if isinstance(self.percentile, Unset):
            percentile = UNSET
        else:
            percentile = self.percentile

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if bucket_ratio is not UNSET:
            field_dict["bucket_ratio"] = bucket_ratio
        if first_bucket is not UNSET:
            field_dict["first_bucket"] = first_bucket
        if half_life is not UNSET:
            field_dict["half_life"] = half_life
        if margin is not UNSET:
            field_dict["margin"] = margin
        if max_value is not UNSET:
            field_dict["max_value"] = max_value
        if percentile is not UNSET:
            field_dict["percentile"] = percentile

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        bucket_ratio = d.pop("bucket_ratio", UNSET)

        first_bucket = d.pop("first_bucket", UNSET)

        half_life = d.pop("half_life", UNSET)

        margin = d.pop("margin", UNSET)

        max_value = d.pop("max_value", UNSET)

        def _parse_percentile(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        percentile = _parse_percentile(d.pop("percentile", UNSET))

        percentile_policy_params = cls(
            bucket_ratio=bucket_ratio,
            first_bucket=first_bucket,
            half_life=half_life,
            margin=margin,
            max_value=max_value,
            percentile=percentile,
        )

        return percentile_policy_params
