from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="ConfigurationSearch")


@_attrs_define
class ConfigurationSearch:
    """
    Attributes:
        node_limit (int): Branch-and-bound nodes one MaxReward search may visit (300,000 divided by the number of job
            types).
        unproved_gpa_positions (list[int]): GPA positions whose configuration is the best one found within the node
            limit rather than the proven MaxReward (empty: all proven).
    """

    node_limit: int
    unproved_gpa_positions: list[int]

    def to_dict(self) -> dict[str, Any]:
        node_limit = self.node_limit

        unproved_gpa_positions = self.unproved_gpa_positions

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "node_limit": node_limit,
                "unproved_gpa_positions": unproved_gpa_positions,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        node_limit = d.pop("node_limit")

        unproved_gpa_positions = cast(list[int], d.pop("unproved_gpa_positions"))

        configuration_search = cls(
            node_limit=node_limit,
            unproved_gpa_positions=unproved_gpa_positions,
        )

        return configuration_search
