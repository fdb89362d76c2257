from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.queue_arrival_out_decision import QueueArrivalOutDecision
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.queue_arrival_out_details_type_0 import QueueArrivalOutDetailsType0
    from ..models.started_job import StartedJob


T = TypeVar("T", bound="QueueArrivalOut")


@_attrs_define
class QueueArrivalOut:
    """
    Attributes:
        at (float):
        decision (QueueArrivalOutDecision):
        event_seq (int | None): Position in the cluster's log; null on a dry run or an idle tick.
        job_id (str):
        position (int | None): Place in its type's queue (0 = next), or for a job waiting for quota among its tenant's
            waiting jobs; null when it started at once.
        replayed (bool): True when this answers a retry of a logged event.
        started (list[StartedJob]): Queued jobs the scheduler started up to this event (before it).
        details (None | QueueArrivalOutDetailsType0 | Unset): waiting_for_quota: `quota`, whose quota, which limit, what
            is short, and who holds the cohort's borrowed share.
        dry_run (bool | Unset):  Default: False.
        gangs_timed_out (list[str] | None | Unset): Queued clusters: gangs whose timeout passed up to this event,
            refused (their members withdrawn).
        reason (Literal['waiting_for_quota'] | None | Unset): Where tenants' quotas hold it back: it waits for its
            tenant's quota (docs/tenants.md) before the scheduler's queue.
        server_id (None | str | Unset):
    """

    at: float
    decision: QueueArrivalOutDecision
    event_seq: int | None
    job_id: str
    position: int | None
    replayed: bool
    started: list[StartedJob]
    details: None | QueueArrivalOutDetailsType0 | Unset = UNSET
    dry_run: bool | Unset = False
    gangs_timed_out: list[str] | None | Unset = UNSET
    reason: Literal["waiting_for_quota"] | None | Unset = UNSET
    server_id: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.queue_arrival_out_details_type_0 import QueueArrivalOutDetailsType0  # noqa: PLC0415

        at = self.at

        decision = self.decision.value

        event_seq: int | None
        event_seq = self.event_seq

        job_id = self.job_id

        position: int | None
        position = self.position

        replayed = self.replayed

        started = []
        for started_item_data in self.started:
            started_item = started_item_data.to_dict()
            started.append(started_item)

        details: dict[str, Any] | None | Unset
        if isinstance(self.details, Unset):
            details = UNSET
        elif isinstance(self.details, QueueArrivalOutDetailsType0):
            details = self.details.to_dict()
        else:
            details = self.details

        dry_run = self.dry_run

        gangs_timed_out: list[str] | None | Unset
        if isinstance(self.gangs_timed_out, Unset):
            gangs_timed_out = UNSET
        elif isinstance(self.gangs_timed_out, list):
            gangs_timed_out = self.gangs_timed_out

        else:
            gangs_timed_out = self.gangs_timed_out

        reason: Literal["waiting_for_quota"] | None | Unset
        if isinstance(self.reason, Unset):
            reason = UNSET
        else:
            reason = self.reason

        server_id: None | str | Unset
        if isinstance(self.server_id, Unset):
            server_id = UNSET
        else:
            server_id = self.server_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "at": at,
                "decision": decision,
                "event_seq": event_seq,
                "job_id": job_id,
                "position": position,
                "replayed": replayed,
                "started": started,
            }
        )
        if details is not UNSET:
            field_dict["details"] = details
        if dry_run is not UNSET:
            field_dict["dry_run"] = dry_run
        if gangs_timed_out is not UNSET:
            field_dict["gangs_timed_out"] = gangs_timed_out
        if reason is not UNSET:
            field_dict["reason"] = reason
        if server_id is not UNSET:
            field_dict["server_id"] = server_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.queue_arrival_out_details_type_0 import QueueArrivalOutDetailsType0  # noqa: PLC0415
        from ..models.started_job import StartedJob  # noqa: PLC0415

        d = dict(src_dict)
        at = d.pop("at")

        decision = QueueArrivalOutDecision(d.pop("decision"))

        def _parse_event_seq(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        event_seq = _parse_event_seq(d.pop("event_seq"))

        job_id = d.pop("job_id")

        def _parse_position(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        position = _parse_position(d.pop("position"))

        replayed = d.pop("replayed")

        started = []
        _started = d.pop("started")
        for started_item_data in _started:
            started_item = StartedJob.from_dict(started_item_data)

            started.append(started_item)

        def _parse_details(data: object) -> None | QueueArrivalOutDetailsType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                details_type_0 = QueueArrivalOutDetailsType0.from_dict(data)

                return details_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | QueueArrivalOutDetailsType0 | Unset, data)

        details = _parse_details(d.pop("details", UNSET))

        dry_run = d.pop("dry_run", UNSET)

        def _parse_gangs_timed_out(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                gangs_timed_out_type_0 = cast(list[str], data)

                return gangs_timed_out_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        gangs_timed_out = _parse_gangs_timed_out(d.pop("gangs_timed_out", UNSET))

        def _parse_reason(data: object) -> Literal["waiting_for_quota"] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            reason_type_0 = cast(Literal["waiting_for_quota"], data)
            if reason_type_0 != "waiting_for_quota":
                raise ValueError(f"reason_type_0 must match const 'waiting_for_quota', got '{reason_type_0}'")
            return reason_type_0
            return cast(Literal["waiting_for_quota"] | None | Unset, data)

        reason = _parse_reason(d.pop("reason", UNSET))

        def _parse_server_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        server_id = _parse_server_id(d.pop("server_id", UNSET))

        queue_arrival_out = cls(
            at=at,
            decision=decision,
            event_seq=event_seq,
            job_id=job_id,
            position=position,
            replayed=replayed,
            started=started,
            details=details,
            dry_run=dry_run,
            gangs_timed_out=gangs_timed_out,
            reason=reason,
            server_id=server_id,
        )

        queue_arrival_out.additional_properties = d
        return queue_arrival_out

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
