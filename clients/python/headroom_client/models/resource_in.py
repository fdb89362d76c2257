from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="ResourceIn")


@_attrs_define
class ResourceIn:
    """
    Attributes:
        epsilon (float): Share of periods whose demand may exceed the reservation, e.g. 0.05 (at most 0.5).
        name (str):
        cost (float | Unset): Cost c_i of reserving one unit for one period. It scores the stream (cost_so_far) and does
            not change any reservation: each resource's budget is met separately, so its cheapest feasible reservation does
            not depend on its price. Only THOR with an explicit params.V weighs it. Default: 1.0.
    """

    epsilon: float
    name: str
    cost: float | Unset = 1.0

    def to_dict(self) -> dict[str, Any]:
        epsilon = self.epsilon

        name = self.name

        cost = self.cost

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "epsilon": epsilon,
                "name": name,
            }
        )
        if cost is not UNSET:
            field_dict["cost"] = cost

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        epsilon = d.pop("epsilon")

        name = d.pop("name")

        cost = d.pop("cost", UNSET)

        resource_in = cls(
            epsilon=epsilon,
            name=name,
            cost=cost,
        )

        return resource_in
