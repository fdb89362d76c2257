from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.observation_out_demand import ObservationOutDemand
    from ..models.observation_out_details import ObservationOutDetails
    from ..models.observation_out_next_reservation import ObservationOutNextReservation
    from ..models.observation_out_queue import ObservationOutQueue
    from ..models.observation_out_reserved import ObservationOutReserved
    from ..models.observation_out_violated import ObservationOutViolated
    from ..models.observation_out_violation_rate import ObservationOutViolationRate


T = TypeVar("T", bound="ObservationOut")


@_attrs_define
class ObservationOut:
    """
    Attributes:
        demand (ObservationOutDemand):
        details (ObservationOutDetails):
        event_seq (int):
        next_reservation (ObservationOutNextReservation): Reserve this for the next period.
        period (int):
        queue (ObservationOutQueue): THOR's predictor queues Q_i (empty for baselines).
        replayed (bool):
        reserved (ObservationOutReserved): The reservation this period was judged against.
        violated (ObservationOutViolated):
        violation_rate (ObservationOutViolationRate):
    """

    demand: ObservationOutDemand
    details: ObservationOutDetails
    event_seq: int
    next_reservation: ObservationOutNextReservation
    period: int
    queue: ObservationOutQueue
    replayed: bool
    reserved: ObservationOutReserved
    violated: ObservationOutViolated
    violation_rate: ObservationOutViolationRate
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        demand = self.demand.to_dict()

        details = self.details.to_dict()

        event_seq = self.event_seq

        next_reservation = self.next_reservation.to_dict()

        period = self.period

        queue = self.queue.to_dict()

        replayed = self.replayed

        reserved = self.reserved.to_dict()

        violated = self.violated.to_dict()

        violation_rate = self.violation_rate.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "demand": demand,
                "details": details,
                "event_seq": event_seq,
                "next_reservation": next_reservation,
                "period": period,
                "queue": queue,
                "replayed": replayed,
                "reserved": reserved,
                "violated": violated,
                "violation_rate": violation_rate,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.observation_out_demand import ObservationOutDemand  # noqa: PLC0415
        from ..models.observation_out_details import ObservationOutDetails  # noqa: PLC0415
        from ..models.observation_out_next_reservation import ObservationOutNextReservation  # noqa: PLC0415
        from ..models.observation_out_queue import ObservationOutQueue  # noqa: PLC0415
        from ..models.observation_out_reserved import ObservationOutReserved  # noqa: PLC0415
        from ..models.observation_out_violated import ObservationOutViolated  # noqa: PLC0415
        from ..models.observation_out_violation_rate import ObservationOutViolationRate  # noqa: PLC0415

        d = dict(src_dict)
        demand = ObservationOutDemand.from_dict(d.pop("demand"))

        details = ObservationOutDetails.from_dict(d.pop("details"))

        event_seq = d.pop("event_seq")

        next_reservation = ObservationOutNextReservation.from_dict(d.pop("next_reservation"))

        period = d.pop("period")

        queue = ObservationOutQueue.from_dict(d.pop("queue"))

        replayed = d.pop("replayed")

        reserved = ObservationOutReserved.from_dict(d.pop("reserved"))

        violated = ObservationOutViolated.from_dict(d.pop("violated"))

        violation_rate = ObservationOutViolationRate.from_dict(d.pop("violation_rate"))

        observation_out = cls(
            demand=demand,
            details=details,
            event_seq=event_seq,
            next_reservation=next_reservation,
            period=period,
            queue=queue,
            replayed=replayed,
            reserved=reserved,
            violated=violated,
            violation_rate=violation_rate,
        )

        observation_out.additional_properties = d
        return observation_out

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
