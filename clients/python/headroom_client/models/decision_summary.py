from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.decision_summary_decisions import DecisionSummaryDecisions
    from ..models.decision_summary_reasons import DecisionSummaryReasons
    from ..models.lock_waits_out import LockWaitsOut


T = TypeVar("T", bound="DecisionSummary")


@_attrs_define
class DecisionSummary:
    """What the last ``events`` decisions were: a recent-window view of the log for
    dashboards (acceptance, top reasons) without reading whole answers.

        Attributes:
            cluster_id (str):
            decisions (DecisionSummaryDecisions): Events per decision, e.g. placed, rejected.
            events (int): Events in the window (at most the window asked for).
            first_seq (int | None): The oldest event's seq in the window.
            last_at (datetime.datetime | None): When the newest event was logged.
            latest_seq (int): The newest event's seq: the cluster's version.
            lock_waits (LockWaitsOut): How long the transactions of the process that answered waited for this cluster's
                lock (Postgres' row lock, SQLite's write lock), since that process started.
            reasons (DecisionSummaryReasons): Events per reason code (answers with one).
    """

    cluster_id: str
    decisions: DecisionSummaryDecisions
    events: int
    first_seq: int | None
    last_at: datetime.datetime | None
    latest_seq: int
    lock_waits: LockWaitsOut
    reasons: DecisionSummaryReasons
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        cluster_id = self.cluster_id

        decisions = self.decisions.to_dict()

        events = self.events

        first_seq: int | None
        first_seq = self.first_seq

        last_at: None | str
        if isinstance(self.last_at, datetime.datetime):
            last_at = self.last_at.isoformat()
        else:
            last_at = self.last_at

        latest_seq = self.latest_seq

        lock_waits = self.lock_waits.to_dict()

        reasons = self.reasons.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cluster_id": cluster_id,
                "decisions": decisions,
                "events": events,
                "first_seq": first_seq,
                "last_at": last_at,
                "latest_seq": latest_seq,
                "lock_waits": lock_waits,
                "reasons": reasons,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.decision_summary_decisions import DecisionSummaryDecisions  # noqa: PLC0415
        from ..models.decision_summary_reasons import DecisionSummaryReasons  # noqa: PLC0415
        from ..models.lock_waits_out import LockWaitsOut  # noqa: PLC0415

        d = dict(src_dict)
        cluster_id = d.pop("cluster_id")

        decisions = DecisionSummaryDecisions.from_dict(d.pop("decisions"))

        events = d.pop("events")

        def _parse_first_seq(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        first_seq = _parse_first_seq(d.pop("first_seq"))

        def _parse_last_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_at_type_0 = datetime.datetime.fromisoformat(data)

                return last_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        last_at = _parse_last_at(d.pop("last_at"))

        latest_seq = d.pop("latest_seq")

        lock_waits = LockWaitsOut.from_dict(d.pop("lock_waits"))

        reasons = DecisionSummaryReasons.from_dict(d.pop("reasons"))

        decision_summary = cls(
            cluster_id=cluster_id,
            decisions=decisions,
            events=events,
            first_seq=first_seq,
            last_at=last_at,
            latest_seq=latest_seq,
            lock_waits=lock_waits,
            reasons=reasons,
        )

        decision_summary.additional_properties = d
        return decision_summary

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
