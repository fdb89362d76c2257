from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.logged_event_request import LoggedEventRequest
    from ..models.logged_event_response import LoggedEventResponse


T = TypeVar("T", bound="LoggedEvent")


@_attrs_define
class LoggedEvent:
    """
    Attributes:
        created_at (datetime.datetime):
        decision (str):
        event_id (str):
        kind (str):
        request (LoggedEventRequest):
        response (LoggedEventResponse):
        seq (int):
    """

    created_at: datetime.datetime
    decision: str
    event_id: str
    kind: str
    request: LoggedEventRequest
    response: LoggedEventResponse
    seq: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        decision = self.decision

        event_id = self.event_id

        kind = self.kind

        request = self.request.to_dict()

        response = self.response.to_dict()

        seq = self.seq

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "decision": decision,
                "event_id": event_id,
                "kind": kind,
                "request": request,
                "response": response,
                "seq": seq,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.logged_event_request import LoggedEventRequest  # noqa: PLC0415
        from ..models.logged_event_response import LoggedEventResponse  # noqa: PLC0415

        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        decision = d.pop("decision")

        event_id = d.pop("event_id")

        kind = d.pop("kind")

        request = LoggedEventRequest.from_dict(d.pop("request"))

        response = LoggedEventResponse.from_dict(d.pop("response"))

        seq = d.pop("seq")

        logged_event = cls(
            created_at=created_at,
            decision=decision,
            event_id=event_id,
            kind=kind,
            request=request,
            response=response,
            seq=seq,
        )

        logged_event.additional_properties = d
        return logged_event

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
