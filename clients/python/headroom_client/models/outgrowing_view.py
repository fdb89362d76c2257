from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.outgrowing_row import OutgrowingRow


T = TypeVar("T", bound="OutgrowingView")


@_attrs_define
class OutgrowingView:
    """
    Attributes:
        count (int):
        deployments (list[OutgrowingRow]): What each one's next scale-out will be told (`migrate`).
        expected_cluster_share (float): The cluster's expected cores at their peak over capacity.
        largest_expected_share (float): The largest share of the capacity one live deployment is expected to need at
            some point of the grid (its moments as of the last admission decision), or holds now where that is half the
            cluster or more.
        share (float): The share of the capacity at which one deployment is listed.
        overflow_line_share (float | None | Unset): E + overflow_sd · sd of the cluster's cores at its peak, over
            capacity.
        overflow_sd (float | None | Unset): policy.overflow_sd, where it is above 0.
    """

    count: int
    deployments: list[OutgrowingRow]
    expected_cluster_share: float
    largest_expected_share: float
    share: float
    overflow_line_share: float | None | Unset = UNSET
    overflow_sd: float | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        count = self.count

        deployments = []
        for deployments_item_data in self.deployments:
            deployments_item = deployments_item_data.to_dict()
            deployments.append(deployments_item)

        expected_cluster_share = self.expected_cluster_share

        largest_expected_share = self.largest_expected_share

        share = self.share

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

        field_dict.update(
            {
                "count": count,
                "deployments": deployments,
                "expected_cluster_share": expected_cluster_share,
                "largest_expected_share": largest_expected_share,
                "share": share,
            }
        )
        if overflow_line_share is not UNSET:
            field_dict["overflow_line_share"] = overflow_line_share
        if overflow_sd is not UNSET:
            field_dict["overflow_sd"] = overflow_sd

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.outgrowing_row import OutgrowingRow  # noqa: PLC0415

        d = dict(src_dict)
        count = d.pop("count")

        deployments = []
        _deployments = d.pop("deployments")
        for deployments_item_data in _deployments:
            deployments_item = OutgrowingRow.from_dict(deployments_item_data)

            deployments.append(deployments_item)

        expected_cluster_share = d.pop("expected_cluster_share")

        largest_expected_share = d.pop("largest_expected_share")

        share = d.pop("share")

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

        outgrowing_view = cls(
            count=count,
            deployments=deployments,
            expected_cluster_share=expected_cluster_share,
            largest_expected_share=largest_expected_share,
            share=share,
            overflow_line_share=overflow_line_share,
            overflow_sd=overflow_sd,
        )

        return outgrowing_view
