from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.migration_out import MigrationOut
    from ..models.reconfiguration_out import ReconfigurationOut
    from ..models.release_out_details import ReleaseOutDetails


T = TypeVar("T", bound="ReleaseOut")


@_attrs_define
class ReleaseOut:
    """
    Attributes:
        decision (Literal['released']):
        event_seq (int | None): Position in the cluster's log; null on a dry run or an idle tick.
        replayed (bool): True when this answers a retry of a logged event.
        server_id (str):
        details (ReleaseOutDetails | Unset): DRA: migrations and departures so far, migrations_per_departure, and
            migration_skipped ("migration_budget" when the budget had no token).
        dry_run (bool | Unset):  Default: False.
        migration (MigrationOut | None | Unset):
        reconfigured (list[ReconfigurationOut] | Unset):
    """

    decision: Literal["released"]
    event_seq: int | None
    replayed: bool
    server_id: str
    details: ReleaseOutDetails | Unset = UNSET
    dry_run: bool | Unset = False
    migration: MigrationOut | None | Unset = UNSET
    reconfigured: list[ReconfigurationOut] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.migration_out import MigrationOut  # noqa: PLC0415

        decision = self.decision

        event_seq: int | None
        event_seq = self.event_seq

        replayed = self.replayed

        server_id = self.server_id

        details: dict[str, Any] | Unset = UNSET
        if not isinstance(self.details, Unset):
            details = self.details.to_dict()

        dry_run = self.dry_run

        migration: dict[str, Any] | None | Unset
        if isinstance(self.migration, Unset):
            migration = UNSET
        elif isinstance(self.migration, MigrationOut):
            migration = self.migration.to_dict()
        else:
            migration = self.migration

        reconfigured: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.reconfigured, Unset):
            reconfigured = []
            for reconfigured_item_data in self.reconfigured:
                reconfigured_item = reconfigured_item_data.to_dict()
                reconfigured.append(reconfigured_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "decision": decision,
                "event_seq": event_seq,
                "replayed": replayed,
                "server_id": server_id,
            }
        )
        if details is not UNSET:
            field_dict["details"] = details
        if dry_run is not UNSET:
            field_dict["dry_run"] = dry_run
        if migration is not UNSET:
            field_dict["migration"] = migration
        if reconfigured is not UNSET:
            field_dict["reconfigured"] = reconfigured

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.migration_out import MigrationOut  # noqa: PLC0415
        from ..models.reconfiguration_out import ReconfigurationOut  # noqa: PLC0415
        from ..models.release_out_details import ReleaseOutDetails  # noqa: PLC0415

        d = dict(src_dict)
        decision = cast(Literal["released"], d.pop("decision"))
        if decision != "released":
            raise ValueError(f"decision must match const 'released', got '{decision}'")

        def _parse_event_seq(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        event_seq = _parse_event_seq(d.pop("event_seq"))

        replayed = d.pop("replayed")

        server_id = d.pop("server_id")

        _details = d.pop("details", UNSET)
        details: ReleaseOutDetails | Unset
        if isinstance(_details, Unset):
            details = UNSET
        else:
            details = ReleaseOutDetails.from_dict(_details)

        dry_run = d.pop("dry_run", UNSET)

        def _parse_migration(data: object) -> MigrationOut | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                migration_type_0 = MigrationOut.from_dict(data)

                return migration_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MigrationOut | None | Unset, data)

        migration = _parse_migration(d.pop("migration", UNSET))

        _reconfigured = d.pop("reconfigured", UNSET)
        reconfigured: list[ReconfigurationOut] | Unset = UNSET
        if _reconfigured is not UNSET:
            reconfigured = []
            for reconfigured_item_data in _reconfigured:
                reconfigured_item = ReconfigurationOut.from_dict(reconfigured_item_data)

                reconfigured.append(reconfigured_item)

        release_out = cls(
            decision=decision,
            event_seq=event_seq,
            replayed=replayed,
            server_id=server_id,
            details=details,
            dry_run=dry_run,
            migration=migration,
            reconfigured=reconfigured,
        )

        release_out.additional_properties = d
        return release_out

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
