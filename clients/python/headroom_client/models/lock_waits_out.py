from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="LockWaitsOut")


@_attrs_define
class LockWaitsOut:
    """How long the transactions of the process that answered waited for this cluster's
    lock (Postgres' row lock, SQLite's write lock), since that process started.

        Attributes:
            last_ms (float | None):
            max_ms (float | None):
            mean_ms (float | None):
            process (int): The answering process's id: each worker counts its own.
            transactions (int):
    """

    last_ms: float | None
    max_ms: float | None
    mean_ms: float | None
    process: int
    transactions: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        last_ms: float | None
        last_ms = self.last_ms

        max_ms: float | None
        max_ms = self.max_ms

        mean_ms: float | None
        mean_ms = self.mean_ms

        process = self.process

        transactions = self.transactions

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "last_ms": last_ms,
                "max_ms": max_ms,
                "mean_ms": mean_ms,
                "process": process,
                "transactions": transactions,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_last_ms(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        last_ms = _parse_last_ms(d.pop("last_ms"))

        def _parse_max_ms(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        max_ms = _parse_max_ms(d.pop("max_ms"))

        def _parse_mean_ms(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        mean_ms = _parse_mean_ms(d.pop("mean_ms"))

        process = d.pop("process")

        transactions = d.pop("transactions")

        lock_waits_out = cls(
            last_ms=last_ms,
            max_ms=max_ms,
            mean_ms=mean_ms,
            process=process,
            transactions=transactions,
        )

        lock_waits_out.additional_properties = d
        return lock_waits_out

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
