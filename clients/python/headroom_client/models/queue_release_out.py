from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.queue_release_out_decision import QueueReleaseOutDecision
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.started_job import StartedJob


T = TypeVar("T", bound="QueueReleaseOut")


@_attrs_define
class QueueReleaseOut:
    """
    Attributes:
        at (float):
        decision (QueueReleaseOutDecision): released: the job was running and its slot is free. withdrawn: it was still
            waiting at `at` (e.g. cancelled before it started) and left its queue without running; no slot is freed.
        event_seq (int | None): Position in the cluster's log; null on a dry run or an idle tick.
        job_id (str):
        replayed (bool): True when this answers a retry of a logged event.
        server_id (None | str): Where it ran (released), or for a withdrawn job the server whose queue it waited in
            (distributed RMS queues; null for central queues).
        started (list[StartedJob]): Jobs started up to and at this departure, e.g. into the freed slot.
        dry_run (bool | Unset):  Default: False.
        gang_id (None | str | Unset): withdrawn: the waiting gang it belonged to, withdrawn whole (none of it started).
        gangs_timed_out (list[str] | None | Unset): Queued clusters: gangs whose timeout passed up to this event,
            refused (their members withdrawn).
    """

    at: float
    decision: QueueReleaseOutDecision
    event_seq: int | None
    job_id: str
    replayed: bool
    server_id: None | str
    started: list[StartedJob]
    dry_run: bool | Unset = False
    gang_id: None | str | Unset = UNSET
    gangs_timed_out: list[str] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        at = self.at

        decision = self.decision.value

        event_seq: int | None
        event_seq = self.event_seq

        job_id = self.job_id

        replayed = self.replayed

        server_id: None | str
        server_id = self.server_id

        started = []
        for started_item_data in self.started:
            started_item = started_item_data.to_dict()
            started.append(started_item)

        dry_run = self.dry_run

        gang_id: None | str | Unset
        if isinstance(self.gang_id, Unset):
            gang_id = UNSET
        else:
            gang_id = self.gang_id

        gangs_timed_out: list[str] | None | Unset
        if isinstance(self.gangs_timed_out, Unset):
            gangs_timed_out = UNSET
        elif isinstance(self.gangs_timed_out, list):
            gangs_timed_out = self.gangs_timed_out

        else:
            gangs_timed_out = self.gangs_timed_out

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "at": at,
                "decision": decision,
                "event_seq": event_seq,
                "job_id": job_id,
                "replayed": replayed,
                "server_id": server_id,
                "started": started,
            }
        )
        if dry_run is not UNSET:
            field_dict["dry_run"] = dry_run
        if gang_id is not UNSET:
            field_dict["gang_id"] = gang_id
        if gangs_timed_out is not UNSET:
            field_dict["gangs_timed_out"] = gangs_timed_out

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.started_job import StartedJob  # noqa: PLC0415

        d = dict(src_dict)
        at = d.pop("at")

        decision = QueueReleaseOutDecision(d.pop("decision"))

        def _parse_event_seq(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        event_seq = _parse_event_seq(d.pop("event_seq"))

        job_id = d.pop("job_id")

        replayed = d.pop("replayed")

        def _parse_server_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        server_id = _parse_server_id(d.pop("server_id"))

        started = []
        _started = d.pop("started")
        for started_item_data in _started:
            started_item = StartedJob.from_dict(started_item_data)

            started.append(started_item)

        dry_run = d.pop("dry_run", UNSET)

        def _parse_gang_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        gang_id = _parse_gang_id(d.pop("gang_id", UNSET))

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

        queue_release_out = cls(
            at=at,
            decision=decision,
            event_seq=event_seq,
            job_id=job_id,
            replayed=replayed,
            server_id=server_id,
            started=started,
            dry_run=dry_run,
            gang_id=gang_id,
            gangs_timed_out=gangs_timed_out,
        )

        queue_release_out.additional_properties = d
        return queue_release_out

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
