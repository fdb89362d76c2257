from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.migration_budget_clock import MigrationBudgetClock
from ..models.migration_budget_per import MigrationBudgetPer
from ..types import UNSET, Unset

T = TypeVar("T", bound="MigrationBudget")


@_attrs_define
class MigrationBudget:
    """
    Attributes:
        rate (float): Migrations per time unit (per server with per=server, for the whole cluster with per=cluster).
        burst (float | None | Unset): Bucket size in migrations (default: one time unit's worth, at least 1).
        clock (MigrationBudgetClock | Unset): wall: time is seconds since the cluster's creation, stamped by the service
            into each logged event; client: every event carries `at`. Default: MigrationBudgetClock.WALL.
        per (MigrationBudgetPer | Unset):  Default: MigrationBudgetPer.CLUSTER.
    """

    rate: float
    burst: float | None | Unset = UNSET
    clock: MigrationBudgetClock | Unset = MigrationBudgetClock.WALL
    per: MigrationBudgetPer | Unset = MigrationBudgetPer.CLUSTER

    def to_dict(self) -> dict[str, Any]:
        rate = self.rate

        burst: float | None | Unset
        if isinstance(self.burst, Unset):
            burst = UNSET
        else:
            burst = self.burst

        clock: str | Unset = UNSET
        if not isinstance(self.clock, Unset):
            clock = self.clock.value

        per: str | Unset = UNSET
        if not isinstance(self.per, Unset):
            per = self.per.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "rate": rate,
            }
        )
        if burst is not UNSET:
            field_dict["burst"] = burst
        if clock is not UNSET:
            field_dict["clock"] = clock
        if per is not UNSET:
            field_dict["per"] = per

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        rate = d.pop("rate")

        def _parse_burst(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        burst = _parse_burst(d.pop("burst", UNSET))

        _clock = d.pop("clock", UNSET)
        clock: MigrationBudgetClock | Unset
        if isinstance(_clock, Unset):
            clock = UNSET
        else:
            clock = MigrationBudgetClock(_clock)

        _per = d.pop("per", UNSET)
        per: MigrationBudgetPer | Unset
        if isinstance(_per, Unset):
            per = UNSET
        else:
            per = MigrationBudgetPer(_per)

        migration_budget = cls(
            rate=rate,
            burst=burst,
            clock=clock,
            per=per,
        )

        return migration_budget
