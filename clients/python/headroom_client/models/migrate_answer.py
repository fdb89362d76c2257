from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.migrate_answer_reason import MigrateAnswerReason
from ..types import UNSET, Unset

T = TypeVar("T", bound="MigrateAnswer")


@_attrs_define
class MigrateAnswer:
    """
    Attributes:
        expected_peak_cores (float): The largest of its expected cores over the horizons (its moments as of the last
            admission decision), or the cores it holds now where that is more.
        expected_share (float): expected_peak_cores over the cluster's capacity.
        reason (MigrateAnswerReason): outgrowing_cluster: this deployment alone is expected to need `share` of the
            cluster or more, or holds that much now. cluster_overflow: none is or does, but the cluster's expected cores
            (plus policy.overflow_sd standard deviations of them) reach its capacity (`expected_cluster_share` ≥ 1, or
            `overflow_line_share` ≥ 1 where that is given), and this is the deployment with the largest expected peak:
            moving it frees the most (one at a time; the next is told if the cluster is still expected to overflow without
            it).
        share (float): The share of the capacity at which a deployment is told to migrate on its own.
        expected_cluster_share (float | None | Unset): The cluster's expected cores over its capacity, the largest over
            the horizons (null in answers logged before it was given).
        overflow_line_share (float | None | Unset): The cluster's expected cores plus overflow_sd standard deviations,
            over its capacity, the largest over the horizons: cluster_overflow is answered from 1 (null where overflow_sd is
            0, whose line is expected_cluster_share).
        overflow_sd (float | None | Unset): The cluster's policy.overflow_sd, where it is above 0 (null otherwise).
    """

    expected_peak_cores: float
    expected_share: float
    reason: MigrateAnswerReason
    share: float
    expected_cluster_share: float | None | Unset = UNSET
    overflow_line_share: float | None | Unset = UNSET
    overflow_sd: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        expected_peak_cores = self.expected_peak_cores

        expected_share = self.expected_share

        reason = self.reason.value

        share = self.share

        expected_cluster_share: float | None | Unset
        if isinstance(self.expected_cluster_share, Unset):
            expected_cluster_share = UNSET
        else:
            expected_cluster_share = self.expected_cluster_share

        overflow_line_share: float | None | Unset
        if isinstance(self.overflow_line_share, Unset):
            overflow_line_share = UNSET
        else:
            overflow_line_share = self.overflow_line_share

        overflow_sd: float | None | Unset
        if isinstance(self.overflow_sd, Unset):
            overflow_sd = UNSET
        else:
            overflow_sd = self.overflow_sd

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
        if expected_cluster_share is not UNSET:
            field_dict["expected_cluster_share"] = expected_cluster_share
        if overflow_line_share is not UNSET:
            field_dict["overflow_line_share"] = overflow_line_share
        if overflow_sd is not UNSET:
            field_dict["overflow_sd"] = overflow_sd

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        expected_peak_cores = d.pop("expected_peak_cores")

        expected_share = d.pop("expected_share")

        reason = MigrateAnswerReason(d.pop("reason"))

        share = d.pop("share")

        def _parse_expected_cluster_share(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        expected_cluster_share = _parse_expected_cluster_share(d.pop("expected_cluster_share", UNSET))

        def _parse_overflow_line_share(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        overflow_line_share = _parse_overflow_line_share(d.pop("overflow_line_share", UNSET))

        def _parse_overflow_sd(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        overflow_sd = _parse_overflow_sd(d.pop("overflow_sd", UNSET))

        migrate_answer = cls(
            expected_peak_cores=expected_peak_cores,
            expected_share=expected_share,
            reason=reason,
            share=share,
            expected_cluster_share=expected_cluster_share,
            overflow_line_share=overflow_line_share,
            overflow_sd=overflow_sd,
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
