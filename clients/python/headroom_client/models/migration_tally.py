from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="MigrationTally")


@_attrs_define
class MigrationTally:
    """
    Attributes:
        departures (int):
        migrations (int):
        migrations_per_departure (float | None):
        migration_budget_tokens (float | None | Unset):
        migrations_skipped_for_budget (int | None | Unset):
    """

    departures: int
    migrations: int
    migrations_per_departure: float | None
    migration_budget_tokens: float | None | Unset = UNSET
    migrations_skipped_for_budget: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        departures = self.departures

        migrations = self.migrations

        migrations_per_departure: float | None
        migrations_per_departure = self.migrations_per_departure

        migration_budget_tokens: float | None | Unset
        if isinstance(self.migration_budget_tokens, Unset):
            migration_budget_tokens = UNSET
        else:
            migration_budget_tokens = self.migration_budget_tokens

        migrations_skipped_for_budget: int | None | Unset
        if isinstance(self.migrations_skipped_for_budget, Unset):
            migrations_skipped_for_budget = UNSET
        else:
            migrations_skipped_for_budget = self.migrations_skipped_for_budget

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "departures": departures,
                "migrations": migrations,
                "migrations_per_departure": migrations_per_departure,
            }
        )
        if migration_budget_tokens is not UNSET:
            field_dict["migration_budget_tokens"] = migration_budget_tokens
        if migrations_skipped_for_budget is not UNSET:
            field_dict["migrations_skipped_for_budget"] = migrations_skipped_for_budget

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        departures = d.pop("departures")

        migrations = d.pop("migrations")

        def _parse_migrations_per_departure(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        migrations_per_departure = _parse_migrations_per_departure(d.pop("migrations_per_departure"))

        def _parse_migration_budget_tokens(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        migration_budget_tokens = _parse_migration_budget_tokens(d.pop("migration_budget_tokens", UNSET))

        def _parse_migrations_skipped_for_budget(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        migrations_skipped_for_budget = _parse_migrations_skipped_for_budget(
            d.pop("migrations_skipped_for_budget", UNSET)
        )

        migration_tally = cls(
            departures=departures,
            migrations=migrations,
            migrations_per_departure=migrations_per_departure,
            migration_budget_tokens=migration_budget_tokens,
            migrations_skipped_for_budget=migrations_skipped_for_budget,
        )

        return migration_tally
