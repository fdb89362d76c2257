from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.moment_policy import MomentPolicy


T = TypeVar("T", bound="MomentClusterCreate")


@_attrs_define
class MomentClusterCreate:
    """
    Attributes:
        capacity_cores (int):
        name (str):
        policy (MomentPolicy):
        sla (float | Unset): Target scale-out failure rate τ: sets the derived threshold and the closed loop's target.
            Default: 0.0001.
    """

    capacity_cores: int
    name: str
    policy: MomentPolicy
    sla: float | Unset = 0.0001

    def to_dict(self) -> dict[str, Any]:
        capacity_cores = self.capacity_cores

        name = self.name

        policy = self.policy.to_dict()

        sla = self.sla

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "capacity_cores": capacity_cores,
                "name": name,
                "policy": policy,
            }
        )
        if sla is not UNSET:
            field_dict["sla"] = sla

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.moment_policy import MomentPolicy  # noqa: PLC0415

        d = dict(src_dict)
        capacity_cores = d.pop("capacity_cores")

        name = d.pop("name")

        policy = MomentPolicy.from_dict(d.pop("policy"))

        sla = d.pop("sla", UNSET)

        moment_cluster_create = cls(
            capacity_cores=capacity_cores,
            name=name,
            policy=policy,
            sla=sla,
        )

        return moment_cluster_create
