from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.job_type_in_demand import JobTypeInDemand


T = TypeVar("T", bound="JobTypeIn")


@_attrs_define
class JobTypeIn:
    """
    Attributes:
        demand (JobTypeInDemand): Demand per resource dimension.
        name (str):
        priority (int | Unset): Used by DRA's optional preemption. Default: 0.
        reward (float | Unset): Reward per unit time while running (u_j). Default: 1.0.
    """

    demand: JobTypeInDemand
    name: str
    priority: int | Unset = 0
    reward: float | Unset = 1.0

    def to_dict(self) -> dict[str, Any]:
        demand = self.demand.to_dict()

        name = self.name

        priority = self.priority

        reward = self.reward

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "demand": demand,
                "name": name,
            }
        )
        if priority is not UNSET:
            field_dict["priority"] = priority
        if reward is not UNSET:
            field_dict["reward"] = reward

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.job_type_in_demand import JobTypeInDemand  # noqa: PLC0415

        d = dict(src_dict)
        demand = JobTypeInDemand.from_dict(d.pop("demand"))

        name = d.pop("name")

        priority = d.pop("priority", UNSET)

        reward = d.pop("reward", UNSET)

        job_type_in = cls(
            demand=demand,
            name=name,
            priority=priority,
            reward=reward,
        )

        return job_type_in
