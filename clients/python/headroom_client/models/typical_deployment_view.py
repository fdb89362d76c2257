from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..models.typical_deployment_view_decision import TypicalDeploymentViewDecision

T = TypeVar("T", bound="TypicalDeploymentView")


@_attrs_define
class TypicalDeploymentView:
    """
    Attributes:
        cores (int): A typical first deployment's size: 1 + E[σ] under the population prior in use, rounded (in the §2.1
            model an arrival starts with 1 + Pois(σ) cores, as a scale-out adds).
        decision (TypicalDeploymentViewDecision): What a dry run of it into the cluster as it is now answers.
        overflow_bound (float): The bound the cluster's rule reports for it (Cantelli's for second_moment, Markov's E/c
            for first_moment, active/c for threshold): the rule's bound, not a simulated probability of overflow.
        reason (str): That answer's reason, as a deployment's decision gives it.
    """

    cores: int
    decision: TypicalDeploymentViewDecision
    overflow_bound: float
    reason: str

    def to_dict(self) -> dict[str, Any]:
        cores = self.cores

        decision = self.decision.value

        overflow_bound = self.overflow_bound

        reason = self.reason

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "cores": cores,
                "decision": decision,
                "overflow_bound": overflow_bound,
                "reason": reason,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        cores = d.pop("cores")

        decision = TypicalDeploymentViewDecision(d.pop("decision"))

        overflow_bound = d.pop("overflow_bound")

        reason = d.pop("reason")

        typical_deployment_view = cls(
            cores=cores,
            decision=decision,
            overflow_bound=overflow_bound,
            reason=reason,
        )

        return typical_deployment_view
