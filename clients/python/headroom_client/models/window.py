from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="Window")


@_attrs_define
class Window:
    """The logged events to replay, by position in the log (both ends included; default: the
    whole log). Both sides start from an empty cluster at ``from_seq``.

        Attributes:
            from_seq (int | None | Unset):
            to_seq (int | None | Unset):
    """

    from_seq: int | None | Unset = UNSET
    to_seq: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from_seq: int | None | Unset
        if isinstance(self.from_seq, Unset):
            from_seq = UNSET
        else:
            from_seq = self.from_seq

        to_seq: int | None | Unset
        if isinstance(self.to_seq, Unset):
            to_seq = UNSET
        else:
            to_seq = self.to_seq

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if from_seq is not UNSET:
            field_dict["from_seq"] = from_seq
        if to_seq is not UNSET:
            field_dict["to_seq"] = to_seq

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_from_seq(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        from_seq = _parse_from_seq(d.pop("from_seq", UNSET))

        def _parse_to_seq(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        to_seq = _parse_to_seq(d.pop("to_seq", UNSET))

        window = cls(
            from_seq=from_seq,
            to_seq=to_seq,
        )

        return window
