from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from attrs import define as _attrs_define

from ..models.dra_policy_migrations_type_1 import DraPolicyMigrationsType1
from ..models.dra_policy_preemption_type_1 import DraPolicyPreemptionType1
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.migration_budget import MigrationBudget
    from ..models.refresh_band import RefreshBand
    from ..models.refresh_every import RefreshEvery
    from ..models.reservation_exponent import ReservationExponent
    from ..models.reservation_slots import ReservationSlots


T = TypeVar("T", bound="DraPolicy")


@_attrs_define
class DraPolicy:
    """Dynamic Reservation Algorithm (Psychas & Ghaderi, Algorithm 2).

    Attributes:
        kind (Literal['dra']):
        gpa_refresh (Literal['every_event'] | RefreshBand | RefreshEvery | Unset): When GPA's targets follow the jobs in
            the system: after every admission and departure (the paper), every n of them, or when some type's count moves
            more than a band from the targets in use (hysteresis). Fewer target changes mean fewer Reject-Group servers,
            hence fewer migrations. Default: 'every_event'.
        migration_budget (MigrationBudget | None | Unset): At most `rate` migrations per time unit (per server or per
            cluster), as a token bucket of `burst` tokens; a departure with no token left migrates nothing.
        migrations (bool | DraPolicyMigrationsType1 | Unset): on (true): after a departure from the Accept Group,
            migrate a job of its type from the Reject Group into the freed slot. off_no_drain (false, the old spelling):
            never migrate and keep DRA's Reject Group (one server per configuration); does not converge after a change in
            the mix. off_drain (§8): never migrate, and every server beyond GPA's targets (rank J+1) takes no new job until
            it empties. Default: DraPolicyMigrationsType1.ON.
        preemption (bool | DraPolicyPreemptionType1 | Unset): rebuild (true, §7.2): a rejected job of priority >= 1
            preempts priority-0 Reject-Group jobs, smallest first, up to g(L) times its size, and stays rejected. admit: a
            rejected job of priority p >= 1 preempts jobs of priority < p on the server where that makes it fit losing the
            least reward, and is placed there. Default: DraPolicyPreemptionType1.OFF.
        reservation (ReservationExponent | ReservationSlots | Unset): The reservation factor g(L): {"b": 0.5} or
            {"slots": n}.
    """

    kind: Literal["dra"]
    gpa_refresh: Literal["every_event"] | RefreshBand | RefreshEvery | Unset = "every_event"
    migration_budget: MigrationBudget | None | Unset = UNSET
    migrations: bool | DraPolicyMigrationsType1 | Unset = DraPolicyMigrationsType1.ON
    preemption: bool | DraPolicyPreemptionType1 | Unset = DraPolicyPreemptionType1.OFF
    reservation: ReservationExponent | ReservationSlots | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.migration_budget import MigrationBudget  # noqa: PLC0415
        from ..models.refresh_band import RefreshBand  # noqa: PLC0415
        from ..models.refresh_every import RefreshEvery  # noqa: PLC0415
        from ..models.reservation_exponent import ReservationExponent  # noqa: PLC0415

        kind = self.kind

        gpa_refresh: dict[str, Any] | Literal["every_event"] | Unset
        if isinstance(self.gpa_refresh, Unset):
            gpa_refresh = UNSET
        elif isinstance(self.gpa_refresh, RefreshEvery):
            gpa_refresh = self.gpa_refresh.to_dict()
        elif isinstance(self.gpa_refresh, RefreshBand):
            gpa_refresh = self.gpa_refresh.to_dict()
        else:
            gpa_refresh = self.gpa_refresh

        migration_budget: dict[str, Any] | None | Unset
        if isinstance(self.migration_budget, Unset):
            migration_budget = UNSET
        elif isinstance(self.migration_budget, MigrationBudget):
            migration_budget = self.migration_budget.to_dict()
        else:
            migration_budget = self.migration_budget

        migrations: bool | str | Unset
        if isinstance(self.migrations, Unset):
            migrations = UNSET
        elif isinstance(self.migrations, DraPolicyMigrationsType1):
            migrations = self.migrations.value
        else:
            migrations = self.migrations

        preemption: bool | str | Unset
        if isinstance(self.preemption, Unset):
            preemption = UNSET
        elif isinstance(self.preemption, DraPolicyPreemptionType1):
            preemption = self.preemption.value
        else:
            preemption = self.preemption

        reservation: dict[str, Any] | Unset
        if isinstance(self.reservation, Unset):
            reservation = UNSET
        elif isinstance(self.reservation, ReservationExponent):
            reservation = self.reservation.to_dict()
        else:
            reservation = self.reservation.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "kind": kind,
            }
        )
        if gpa_refresh is not UNSET:
            field_dict["gpa_refresh"] = gpa_refresh
        if migration_budget is not UNSET:
            field_dict["migration_budget"] = migration_budget
        if migrations is not UNSET:
            field_dict["migrations"] = migrations
        if preemption is not UNSET:
            field_dict["preemption"] = preemption
        if reservation is not UNSET:
            field_dict["reservation"] = reservation

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.migration_budget import MigrationBudget  # noqa: PLC0415
        from ..models.refresh_band import RefreshBand  # noqa: PLC0415
        from ..models.refresh_every import RefreshEvery  # noqa: PLC0415
        from ..models.reservation_exponent import ReservationExponent  # noqa: PLC0415
        from ..models.reservation_slots import ReservationSlots  # noqa: PLC0415

        d = dict(src_dict)
        kind = cast(Literal["dra"], d.pop("kind"))
        if kind != "dra":
            raise ValueError(f"kind must match const 'dra', got '{kind}'")

        def _parse_gpa_refresh(data: object) -> Literal["every_event"] | RefreshBand | RefreshEvery | Unset:
            if isinstance(data, Unset):
                return data
            gpa_refresh_type_0 = cast(Literal["every_event"], data)
            if gpa_refresh_type_0 != "every_event":
                raise ValueError(f"gpa_refresh_type_0 must match const 'every_event', got '{gpa_refresh_type_0}'")
            return gpa_refresh_type_0
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                gpa_refresh_type_1 = RefreshEvery.from_dict(data)

                return gpa_refresh_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            gpa_refresh_type_2 = RefreshBand.from_dict(data)

            return gpa_refresh_type_2

        gpa_refresh = _parse_gpa_refresh(d.pop("gpa_refresh", UNSET))

        def _parse_migration_budget(data: object) -> MigrationBudget | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                migration_budget_type_0 = MigrationBudget.from_dict(data)

                return migration_budget_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MigrationBudget | None | Unset, data)

        migration_budget = _parse_migration_budget(d.pop("migration_budget", UNSET))

        def _parse_migrations(data: object) -> bool | DraPolicyMigrationsType1 | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                migrations_type_1 = DraPolicyMigrationsType1(data)

                return migrations_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(bool | DraPolicyMigrationsType1 | Unset, data)

        migrations = _parse_migrations(d.pop("migrations", UNSET))

        def _parse_preemption(data: object) -> bool | DraPolicyPreemptionType1 | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                preemption_type_1 = DraPolicyPreemptionType1(data)

                return preemption_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(bool | DraPolicyPreemptionType1 | Unset, data)

        preemption = _parse_preemption(d.pop("preemption", UNSET))

        def _parse_reservation(data: object) -> ReservationExponent | ReservationSlots | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                reservation_type_0 = ReservationExponent.from_dict(data)

                return reservation_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            reservation_type_1 = ReservationSlots.from_dict(data)

            return reservation_type_1

        reservation = _parse_reservation(d.pop("reservation", UNSET))

        dra_policy = cls(
            kind=kind,
            gpa_refresh=gpa_refresh,
            migration_budget=migration_budget,
            migrations=migrations,
            preemption=preemption,
            reservation=reservation,
        )

        return dra_policy
