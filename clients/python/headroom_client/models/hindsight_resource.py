from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="HindsightResource")


@_attrs_define
class HindsightResource:
    """
    Attributes:
        cost_ratio (float | None): policy_cost / oracle_cost.
        epsilon (float):
        name (str):
        oracle_cost (float | None): What x* held for every period would cost.
        oracle_reservation (float | None): x*: the smallest fixed reservation whose violations over the periods so far
            stay within ε.
        oracle_violation_rate (float | None):
        periods (int):
        policy_cost (float): What the stream's reservations cost (cost_so_far).
        policy_violation_rate (float | None):
    """

    cost_ratio: float | None
    epsilon: float
    name: str
    oracle_cost: float | None
    oracle_reservation: float | None
    oracle_violation_rate: float | None
    periods: int
    policy_cost: float
    policy_violation_rate: float | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        cost_ratio: float | None
        cost_ratio = self.cost_ratio

        epsilon = self.epsilon

        name = self.name

        oracle_cost: float | None
        oracle_cost = self.oracle_cost

        oracle_reservation: float | None
        oracle_reservation = self.oracle_reservation

        oracle_violation_rate: float | None
        oracle_violation_rate = self.oracle_violation_rate

        periods = self.periods

        policy_cost = self.policy_cost

        policy_violation_rate: float | None
        policy_violation_rate = self.policy_violation_rate

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cost_ratio": cost_ratio,
                "epsilon": epsilon,
                "name": name,
                "oracle_cost": oracle_cost,
                "oracle_reservation": oracle_reservation,
                "oracle_violation_rate": oracle_violation_rate,
                "periods": periods,
                "policy_cost": policy_cost,
                "policy_violation_rate": policy_violation_rate,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_cost_ratio(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        cost_ratio = _parse_cost_ratio(d.pop("cost_ratio"))

        epsilon = d.pop("epsilon")

        name = d.pop("name")

        def _parse_oracle_cost(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        oracle_cost = _parse_oracle_cost(d.pop("oracle_cost"))

        def _parse_oracle_reservation(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        oracle_reservation = _parse_oracle_reservation(d.pop("oracle_reservation"))

        def _parse_oracle_violation_rate(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        oracle_violation_rate = _parse_oracle_violation_rate(d.pop("oracle_violation_rate"))

        periods = d.pop("periods")

        policy_cost = d.pop("policy_cost")

        def _parse_policy_violation_rate(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        policy_violation_rate = _parse_policy_violation_rate(d.pop("policy_violation_rate"))

        hindsight_resource = cls(
            cost_ratio=cost_ratio,
            epsilon=epsilon,
            name=name,
            oracle_cost=oracle_cost,
            oracle_reservation=oracle_reservation,
            oracle_violation_rate=oracle_violation_rate,
            periods=periods,
            policy_cost=policy_cost,
            policy_violation_rate=policy_violation_rate,
        )

        hindsight_resource.additional_properties = d
        return hindsight_resource

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
