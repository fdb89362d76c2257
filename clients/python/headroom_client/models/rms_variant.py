from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="RmsVariant")


@_attrs_define
class RmsVariant:
    """
    Attributes:
        adaptive (bool):
        replace_dummies (bool):
        sampling (str):
    """

    adaptive: bool
    replace_dummies: bool
    sampling: str

    def to_dict(self) -> dict[str, Any]:
        adaptive = self.adaptive

        replace_dummies = self.replace_dummies

        sampling = self.sampling

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "adaptive": adaptive,
                "replace_dummies": replace_dummies,
                "sampling": sampling,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        adaptive = d.pop("adaptive")

        replace_dummies = d.pop("replace_dummies")

        sampling = d.pop("sampling")

        rms_variant = cls(
            adaptive=adaptive,
            replace_dummies=replace_dummies,
            sampling=sampling,
        )

        return rms_variant
