from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.what_if_create_policy import WhatIfCreatePolicy
    from ..models.window import Window


T = TypeVar("T", bound="WhatIfCreate")


@_attrs_define
class WhatIfCreate:
    """The alternative policy, as the cluster's declaration would give it (``policy``, any kind
    of the cluster's family with its parameters), and the window.

        Attributes:
            policy (WhatIfCreatePolicy): The alternative's `policy` object, as POST /v1/clusters (or /v1/reservations) takes
                it; the rest of the cluster's declaration is kept.
            differences (int | Unset): How many of the first decisions that differ to return, each with both answers.
                Default: 20.
            seeds (list[int] | Unset): Seeds of the lifetimes drawn for jobs only the alternative admits; several give the
                range over them where drawing entered.
            window (Window | Unset): The logged events to replay, by position in the log (both ends included; default: the
                whole log). Both sides start from an empty cluster at ``from_seq``.
    """

    policy: WhatIfCreatePolicy
    differences: int | Unset = 20
    seeds: list[int] | Unset = UNSET
    window: Window | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        policy = self.policy.to_dict()

        differences = self.differences

        seeds: list[int] | Unset = UNSET
        if not isinstance(self.seeds, Unset):
            seeds = self.seeds

        window: dict[str, Any] | Unset = UNSET
        if not isinstance(self.window, Unset):
            window = self.window.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "policy": policy,
            }
        )
        if differences is not UNSET:
            field_dict["differences"] = differences
        if seeds is not UNSET:
            field_dict["seeds"] = seeds
        if window is not UNSET:
            field_dict["window"] = window

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.what_if_create_policy import WhatIfCreatePolicy  # noqa: PLC0415
        from ..models.window import Window  # noqa: PLC0415

        d = dict(src_dict)
        policy = WhatIfCreatePolicy.from_dict(d.pop("policy"))

        differences = d.pop("differences", UNSET)

        seeds = cast(list[int], d.pop("seeds", UNSET))

        _window = d.pop("window", UNSET)
        window: Window | Unset
        if isinstance(_window, Unset):
            window = UNSET
        else:
            window = Window.from_dict(_window)

        what_if_create = cls(
            policy=policy,
            differences=differences,
            seeds=seeds,
            window=window,
        )

        return what_if_create
