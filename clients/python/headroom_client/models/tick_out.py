from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.tick_out_decision import TickOutDecision
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.started_job import StartedJob


T = TypeVar("T", bound="TickOut")


@_attrs_define
class TickOut:
    """
    Attributes:
        decision (TickOutDecision): idle: nothing was due, nothing changed and nothing was logged.
        event_seq (int | None): Position in the cluster's log; null on a dry run or an idle tick.
        now (float): The scheduler's clock after the tick. Below `until` when the jump was too long for one call (about
            100,000 clock ticks): tick again.
        replayed (bool): True when this answers a retry of a logged event.
        started (list[StartedJob]):
        dry_run (bool | Unset):  Default: False.
        gangs_timed_out (list[str] | None | Unset): Queued clusters: gangs whose timeout passed up to this event,
            refused (their members withdrawn).
    """

    decision: TickOutDecision
    event_seq: int | None
    now: float
    replayed: bool
    started: list[StartedJob]
    dry_run: bool | Unset = False
    gangs_timed_out: list[str] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        decision = self.decision.value

        event_seq: int | None
        event_seq = self.event_seq

        now = self.now

        replayed = self.replayed

        started = []
        for started_item_data in self.started:
            started_item = started_item_data.to_dict()
            started.append(started_item)

        dry_run = self.dry_run

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
                "decision": decision,
                "event_seq": event_seq,
                "now": now,
                "replayed": replayed,
                "started": started,
            }
        )
        if dry_run is not UNSET:
            field_dict["dry_run"] = dry_run
        if gangs_timed_out is not UNSET:
            field_dict["gangs_timed_out"] = gangs_timed_out

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.started_job import StartedJob  # noqa: PLC0415

        d = dict(src_dict)
        decision = TickOutDecision(d.pop("decision"))

        def _parse_event_seq(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        event_seq = _parse_event_seq(d.pop("event_seq"))

        now = d.pop("now")

        replayed = d.pop("replayed")

        started = []
        _started = d.pop("started")
        for started_item_data in _started:
            started_item = StartedJob.from_dict(started_item_data)

            started.append(started_item)

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

        tick_out = cls(
            decision=decision,
            event_seq=event_seq,
            now=now,
            replayed=replayed,
            started=started,
            dry_run=dry_run,
            gangs_timed_out=gangs_timed_out,
        )

        tick_out.additional_properties = d
        return tick_out

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
