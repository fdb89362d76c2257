from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="HeldOutTry")


@_attrs_define
class HeldOutTry:
    """One threshold the held-out check ran: its pooled failure rate on the held-out lives and
    the confidence they give that τ holds (null: no scale-out).

        Attributes:
            failure_rate (float):
            threshold (float):
            confidence (float | None | Unset):
    """

    failure_rate: float
    threshold: float
    confidence: float | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        failure_rate = self.failure_rate

        threshold = self.threshold

        confidence: float | None | Unset
        if isinstance(self.confidence, Unset):
            confidence = UNSET
        else:
            confidence = self.confidence

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "failure_rate": failure_rate,
                "threshold": threshold,
            }
        )
        if confidence is not UNSET:
            field_dict["confidence"] = confidence

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        failure_rate = d.pop("failure_rate")

        threshold = d.pop("threshold")

        def _parse_confidence(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        confidence = _parse_confidence(d.pop("confidence", UNSET))

        held_out_try = cls(
            failure_rate=failure_rate,
            threshold=threshold,
            confidence=confidence,
        )

        return held_out_try
