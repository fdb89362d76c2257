from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.advise import Advise
    from ..models.what_if_create_policy_type_0 import WhatIfCreatePolicyType0
    from ..models.window import Window


T = TypeVar("T", bound="WhatIfCreate")


@_attrs_define
class WhatIfCreate:
    """The alternative policy, as the cluster's declaration would give it (``policy``, any kind
    of the cluster's family with its parameters), or ``advise`` to rank them all, and the
    window.

        Attributes:
            advise (Advise | None | Unset): Instead of one alternative: the policy advisor (docs/what-if.md).
            differences (int | Unset): How many of the first decisions that differ to return, each with both answers.
                Default: 20.
            policy (None | Unset | WhatIfCreatePolicyType0): The alternative's `policy` object, as POST /v1/clusters (or
                /v1/reservations) takes it; the rest of the cluster's declaration is kept. Give this or `advise`.
            seeds (list[int] | Unset): Seeds of the lifetimes drawn for jobs only the alternative admits; several give the
                range over them where drawing entered.
            window (Window | Unset): The logged events to replay, by position in the log (both ends included; default: the
                whole log). Both sides start from an empty cluster at ``from_seq``.
    """

    advise: Advise | None | Unset = UNSET
    differences: int | Unset = 20
    policy: None | Unset | WhatIfCreatePolicyType0 = UNSET
    seeds: list[int] | Unset = UNSET
    window: Window | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.advise import Advise  # noqa: PLC0415
        from ..models.what_if_create_policy_type_0 import WhatIfCreatePolicyType0  # noqa: PLC0415

        advise: dict[str, Any] | None | Unset
        if isinstance(self.advise, Unset):
            advise = UNSET
        elif isinstance(self.advise, Advise):
            advise = self.advise.to_dict()
        else:
            advise = self.advise

        differences = self.differences

        policy: dict[str, Any] | None | Unset
        if isinstance(self.policy, Unset):
            policy = UNSET
        elif isinstance(self.policy, WhatIfCreatePolicyType0):
            policy = self.policy.to_dict()
        else:
            policy = self.policy

        seeds: list[int] | Unset = UNSET
        if not isinstance(self.seeds, Unset):
            seeds = self.seeds

        window: dict[str, Any] | Unset = UNSET
        if not isinstance(self.window, Unset):
            window = self.window.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if advise is not UNSET:
            field_dict["advise"] = advise
        if differences is not UNSET:
            field_dict["differences"] = differences
        if policy is not UNSET:
            field_dict["policy"] = policy
        if seeds is not UNSET:
            field_dict["seeds"] = seeds
        if window is not UNSET:
            field_dict["window"] = window

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.advise import Advise  # noqa: PLC0415
        from ..models.what_if_create_policy_type_0 import WhatIfCreatePolicyType0  # noqa: PLC0415
        from ..models.window import Window  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_advise(data: object) -> Advise | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                advise_type_0 = Advise.from_dict(data)

                return advise_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Advise | None | Unset, data)

        advise = _parse_advise(d.pop("advise", UNSET))

        differences = d.pop("differences", UNSET)

        def _parse_policy(data: object) -> None | Unset | WhatIfCreatePolicyType0:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                policy_type_0 = WhatIfCreatePolicyType0.from_dict(data)

                return policy_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | WhatIfCreatePolicyType0, data)

        policy = _parse_policy(d.pop("policy", UNSET))

        seeds = cast(list[int], d.pop("seeds", UNSET))

        _window = d.pop("window", UNSET)
        window: Window | Unset
        if isinstance(_window, Unset):
            window = UNSET
        else:
            window = Window.from_dict(_window)

        what_if_create = cls(
            advise=advise,
            differences=differences,
            policy=policy,
            seeds=seeds,
            window=window,
        )

        return what_if_create
