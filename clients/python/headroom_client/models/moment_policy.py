from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.moment_policy_kind import MomentPolicyKind
from ..types import UNSET, Unset

T = TypeVar("T", bound="MomentPolicy")


@_attrs_define
class MomentPolicy:
    """
    Attributes:
        kind (MomentPolicyKind):
        marginal (bool | Unset): The marginal heuristic of §6.1. Default: True.
        threshold (float | None | Unset): threshold / first_moment: t in cores; second_moment: the overflow bound ρ
            (default: the paper's Table 2 values; calibrate with `headroom calibrate moment`).
    """

    kind: MomentPolicyKind
    marginal: bool | Unset = True
    threshold: float | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        kind = self.kind.value

        marginal = self.marginal

        threshold: float | None | Unset
        if isinstance(self.threshold, Unset):
            threshold = UNSET
        else:
            threshold = self.threshold

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "kind": kind,
            }
        )
        if marginal is not UNSET:
            field_dict["marginal"] = marginal
        if threshold is not UNSET:
            field_dict["threshold"] = threshold

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        kind = MomentPolicyKind(d.pop("kind"))

        marginal = d.pop("marginal", UNSET)

        def _parse_threshold(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        threshold = _parse_threshold(d.pop("threshold", UNSET))

        moment_policy = cls(
            kind=kind,
            marginal=marginal,
            threshold=threshold,
        )

        return moment_policy
