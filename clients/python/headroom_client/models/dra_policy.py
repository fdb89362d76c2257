from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.reservation_exponent import ReservationExponent
    from ..models.reservation_slots import ReservationSlots


T = TypeVar("T", bound="DraPolicy")


@_attrs_define
class DraPolicy:
    """Dynamic Reservation Algorithm (Psychas & Ghaderi, Algorithm 2).

    Attributes:
        kind (Literal['dra']):
        migrations (bool | Unset): Migrate a job from the Reject Group into a slot freed in the Accept Group (false:
            never migrate, §8). Default: True.
        preemption (bool | Unset): DRA+Preemption (§7.2): a rejected job of priority >= 1 preempts priority-0 jobs,
            smallest first. Default: False.
        reservation (ReservationExponent | ReservationSlots | Unset): The reservation factor g(L): {"b": 0.5} or
            {"slots": n}.
    """

    kind: Literal["dra"]
    migrations: bool | Unset = True
    preemption: bool | Unset = False
    reservation: ReservationExponent | ReservationSlots | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.reservation_exponent import ReservationExponent  # noqa: PLC0415

        kind = self.kind

        migrations = self.migrations

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
        if migrations is not UNSET:
            field_dict["migrations"] = migrations
        if preemption is not UNSET:
            field_dict["preemption"] = preemption
        if reservation is not UNSET:
            field_dict["reservation"] = reservation

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.reservation_exponent import ReservationExponent  # noqa: PLC0415
        from ..models.reservation_slots import ReservationSlots  # noqa: PLC0415

        d = dict(src_dict)
        kind = cast(Literal["dra"], d.pop("kind"))
        if kind != "dra":
            raise ValueError(f"kind must match const 'dra', got '{kind}'")

        migrations = d.pop("migrations", UNSET)

        preemption = d.pop("preemption", UNSET)

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
            migrations=migrations,
            preemption=preemption,
            reservation=reservation,
        )

        return dra_policy
