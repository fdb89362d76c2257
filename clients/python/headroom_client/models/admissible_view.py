from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.typical_deployment_view import TypicalDeploymentView


T = TypeVar("T", bound="AdmissibleView")


@_attrs_define
class AdmissibleView:
    """What the cluster can admit as it stands, from dry runs of deployments on the
    population prior (app/policies/moments/admissible.py).

        Attributes:
            admits_typical (bool):
            largest_first_deployment (int): The most cores a deployment on the population prior can have and still be
                admitted into the cluster as it is now; 0 when not even 1 core is.
            summary (str): The same in one line, e.g. "admits first deployments of up to 3 cores; a typical one (6 cores) is
                rejected: ...".
            typical_first_deployment (TypicalDeploymentView):
    """

    admits_typical: bool
    largest_first_deployment: int
    summary: str
    typical_first_deployment: TypicalDeploymentView

    def to_dict(self) -> dict[str, Any]:
        admits_typical = self.admits_typical

        largest_first_deployment = self.largest_first_deployment

        summary = self.summary

        typical_first_deployment = self.typical_first_deployment.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "admits_typical": admits_typical,
                "largest_first_deployment": largest_first_deployment,
                "summary": summary,
                "typical_first_deployment": typical_first_deployment,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.typical_deployment_view import TypicalDeploymentView  # noqa: PLC0415

        d = dict(src_dict)
        admits_typical = d.pop("admits_typical")

        largest_first_deployment = d.pop("largest_first_deployment")

        summary = d.pop("summary")

        typical_first_deployment = TypicalDeploymentView.from_dict(d.pop("typical_first_deployment"))

        admissible_view = cls(
            admits_typical=admits_typical,
            largest_first_deployment=largest_first_deployment,
            summary=summary,
            typical_first_deployment=typical_first_deployment,
        )

        return admissible_view
