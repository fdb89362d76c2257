from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.server_pool_in_capacity import ServerPoolInCapacity


T = TypeVar("T", bound="ServerPoolIn")


@_attrs_define
class ServerPoolIn:
    """
    Attributes:
        capacity (ServerPoolInCapacity): Capacity per resource dimension, e.g. {"cpu": 80, "memory": 640}.
        count (int): Number of identical servers.
        name (str | Unset):  Default: 'pool'.
    """

    capacity: ServerPoolInCapacity
    count: int
    name: str | Unset = "pool"

    def to_dict(self) -> dict[str, Any]:
        capacity = self.capacity.to_dict()

        count = self.count

        name = self.name

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "capacity": capacity,
                "count": count,
            }
        )
        if name is not UNSET:
            field_dict["name"] = name

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.server_pool_in_capacity import ServerPoolInCapacity  # noqa: PLC0415

        d = dict(src_dict)
        capacity = ServerPoolInCapacity.from_dict(d.pop("capacity"))

        count = d.pop("count")

        name = d.pop("name", UNSET)

        server_pool_in = cls(
            capacity=capacity,
            count=count,
            name=name,
        )

        return server_pool_in
