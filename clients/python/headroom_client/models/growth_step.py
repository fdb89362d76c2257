from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.calibrated_anchor import CalibratedAnchor


T = TypeVar("T", bound="GrowthStep")


@_attrs_define
class GrowthStep:
    """The threshold calibrated for deployments that grow `lambda_factor` times as fast as the
    declared prior says (λ's prior mean × that factor, the engine told so).

        Attributes:
            lambda_factor (float):
            threshold (float):
            anchors (list[CalibratedAnchor] | None | Unset):
    """

    lambda_factor: float
    threshold: float
    anchors: list[CalibratedAnchor] | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        lambda_factor = self.lambda_factor

        threshold = self.threshold

        anchors: list[dict[str, Any]] | None | Unset
        if isinstance(self.anchors, Unset):
            anchors = UNSET
        elif isinstance(self.anchors, list):
            anchors = []
            for anchors_type_0_item_data in self.anchors:
                anchors_type_0_item = anchors_type_0_item_data.to_dict()
                anchors.append(anchors_type_0_item)

        else:
            anchors = self.anchors

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "lambda_factor": lambda_factor,
                "threshold": threshold,
            }
        )
        if anchors is not UNSET:
            field_dict["anchors"] = anchors

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.calibrated_anchor import CalibratedAnchor  # noqa: PLC0415

        d = dict(src_dict)
        lambda_factor = d.pop("lambda_factor")

        threshold = d.pop("threshold")

        def _parse_anchors(data: object) -> list[CalibratedAnchor] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                anchors_type_0 = []
                _anchors_type_0 = data
                for anchors_type_0_item_data in _anchors_type_0:
                    anchors_type_0_item = CalibratedAnchor.from_dict(anchors_type_0_item_data)

                    anchors_type_0.append(anchors_type_0_item)

                return anchors_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[CalibratedAnchor] | None | Unset, data)

        anchors = _parse_anchors(d.pop("anchors", UNSET))

        growth_step = cls(
            lambda_factor=lambda_factor,
            threshold=threshold,
            anchors=anchors,
        )

        return growth_step
