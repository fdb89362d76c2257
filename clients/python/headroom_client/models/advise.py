from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.advise_objective_type_0 import AdviseObjectiveType0
from ..types import UNSET, Unset

T = TypeVar("T", bound="Advise")


@_attrs_define
class Advise:
    """Rank every kind of the cluster's family (and a small grid of each one's main
    parameters) by ``objective`` over the window, against the policy that ran.

        Attributes:
            max_rejection (float | None | Unset): Placement clusters: a candidate that rejects a larger share of arrivals
                ranks after every one that keeps this budget.
            objective (AdviseObjectiveType0 | None | Unset): What to rank by. Default: reward_rate on placement clusters,
                queue_wait on queued ones, utilization on moment clusters (among candidates that keep the cluster's τ),
                cost_per_period on reservation streams (among those that keep every ε).
    """

    max_rejection: float | None | Unset = UNSET
    objective: AdviseObjectiveType0 | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        max_rejection: float | None | Unset
        if isinstance(self.max_rejection, Unset):
            max_rejection = UNSET
        else:
            max_rejection = self.max_rejection

        objective: None | str | Unset
        if isinstance(self.objective, Unset):
            objective = UNSET
        elif isinstance(self.objective, AdviseObjectiveType0):
            objective = self.objective.value
        else:
            objective = self.objective

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if max_rejection is not UNSET:
            field_dict["max_rejection"] = max_rejection
        if objective is not UNSET:
            field_dict["objective"] = objective

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_max_rejection(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        max_rejection = _parse_max_rejection(d.pop("max_rejection", UNSET))

        def _parse_objective(data: object) -> AdviseObjectiveType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                objective_type_0 = AdviseObjectiveType0(data)

                return objective_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AdviseObjectiveType0 | None | Unset, data)

        objective = _parse_objective(d.pop("objective", UNSET))

        advise = cls(
            max_rejection=max_rejection,
            objective=objective,
        )

        return advise
