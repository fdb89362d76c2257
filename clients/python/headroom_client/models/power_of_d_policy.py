from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="PowerOfDPolicy")


@_attrs_define
class PowerOfDPolicy:
    """
    Attributes:
        kind (Literal['power_of_d']):
        d (int | Unset): Servers sampled per arrival. Default: 5.
        only_feasible (bool | Unset): false: the least loaded sampled server, rejected if the job does not fit there
            (DRA paper §7.2, read literally); true: the least loaded sampled server where it fits. Default: False.
    """

    kind: Literal["power_of_d"]
    d: int | Unset = 5
    only_feasible: bool | Unset = False

    def to_dict(self) -> dict[str, Any]:
        kind = self.kind

        d = self.d

        only_feasible = self.only_feasible

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "kind": kind,
            }
        )
        if d is not UNSET:
            field_dict["d"] = d
        if only_feasible is not UNSET:
            field_dict["only_feasible"] = only_feasible

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        kind = cast(Literal["power_of_d"], d.pop("kind"))
        if kind != "power_of_d":
            raise ValueError(f"kind must match const 'power_of_d', got '{kind}'")

        d = d.pop("d", UNSET)

        only_feasible = d.pop("only_feasible", UNSET)

        power_of_d_policy = cls(
            kind=kind,
            d=d,
            only_feasible=only_feasible,
        )

        return power_of_d_policy
