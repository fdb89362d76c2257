from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.calibration_ref_inputs import CalibrationRefInputs


T = TypeVar("T", bound="CalibrationRef")


@_attrs_define
class CalibrationRef:
    """A calibration by the service's recipe: its key (SHA-256 of `inputs`) and inputs.

    Attributes:
        inputs (CalibrationRefInputs):
        key (str):
    """

    inputs: CalibrationRefInputs
    key: str

    def to_dict(self) -> dict[str, Any]:
        inputs = self.inputs.to_dict()

        key = self.key

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "inputs": inputs,
                "key": key,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.calibration_ref_inputs import CalibrationRefInputs  # noqa: PLC0415

        d = dict(src_dict)
        inputs = CalibrationRefInputs.from_dict(d.pop("inputs"))

        key = d.pop("key")

        calibration_ref = cls(
            inputs=inputs,
            key=key,
        )

        return calibration_ref
