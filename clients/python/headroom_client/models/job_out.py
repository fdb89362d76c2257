from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.job_out_reason_type_0 import JobOutReasonType0
from ..models.job_out_status import JobOutStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.start_forecast import StartForecast


T = TypeVar("T", bound="JobOut")


@_attrs_define
class JobOut:
    """
    Attributes:
        job_id (str):
        job_type (str):
        queued_at (float):
        status (JobOutStatus):
        finished_at (float | None | Unset):
        forecast (None | StartForecast | Unset): queued: when it is expected to start.
        gang_id (None | str | Unset): waiting_for_gang: its gang.
        position (int | None | Unset):
        reason (JobOutReasonType0 | None | Unset): queued, not yet in the scheduler's queue: waiting_for_quota, for its
            tenant's quota; waiting_for_gang, for room for its whole gang.
        server_id (None | str | Unset):
        started_at (float | None | Unset):
        tenant (None | str | Unset): The tenant it runs for, where the cluster declares tenants.
        withdrawn_at (float | None | Unset): withdrawn: when it left its queue without running.
    """

    job_id: str
    job_type: str
    queued_at: float
    status: JobOutStatus
    finished_at: float | None | Unset = UNSET
    forecast: None | StartForecast | Unset = UNSET
    gang_id: None | str | Unset = UNSET
    position: int | None | Unset = UNSET
    reason: JobOutReasonType0 | None | Unset = UNSET
    server_id: None | str | Unset = UNSET
    started_at: float | None | Unset = UNSET
    tenant: None | str | Unset = UNSET
    withdrawn_at: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.start_forecast import StartForecast  # noqa: PLC0415

        job_id = self.job_id

        job_type = self.job_type

        queued_at = self.queued_at

        status = self.status.value

        finished_at: float | None | Unset
        if isinstance(self.finished_at, Unset):
            finished_at = UNSET
        else:
            finished_at = self.finished_at

        forecast: dict[str, Any] | None | Unset
        if isinstance(self.forecast, Unset):
            forecast = UNSET
        elif isinstance(self.forecast, StartForecast):
            forecast = self.forecast.to_dict()
        else:
            forecast = self.forecast

        gang_id: None | str | Unset
        if isinstance(self.gang_id, Unset):
            gang_id = UNSET
        else:
            gang_id = self.gang_id

        position: int | None | Unset
        if isinstance(self.position, Unset):
            position = UNSET
        else:
            position = self.position

        reason: None | str | Unset
        if isinstance(self.reason, Unset):
            reason = UNSET
        elif isinstance(self.reason, JobOutReasonType0):
            reason = self.reason.value
        else:
            reason = self.reason

        server_id: None | str | Unset
        if isinstance(self.server_id, Unset):
            server_id = UNSET
        else:
            server_id = self.server_id

        started_at: float | None | Unset
        if isinstance(self.started_at, Unset):
            started_at = UNSET
        else:
            started_at = self.started_at

        tenant: None | str | Unset
        if isinstance(self.tenant, Unset):
            tenant = UNSET
        else:
            tenant = self.tenant

        withdrawn_at: float | None | Unset
        if isinstance(self.withdrawn_at, Unset):
            withdrawn_at = UNSET
        else:
            withdrawn_at = self.withdrawn_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "job_id": job_id,
                "job_type": job_type,
                "queued_at": queued_at,
                "status": status,
            }
        )
        if finished_at is not UNSET:
            field_dict["finished_at"] = finished_at
        if forecast is not UNSET:
            field_dict["forecast"] = forecast
        if gang_id is not UNSET:
            field_dict["gang_id"] = gang_id
        if position is not UNSET:
            field_dict["position"] = position
        if reason is not UNSET:
            field_dict["reason"] = reason
        if server_id is not UNSET:
            field_dict["server_id"] = server_id
        if started_at is not UNSET:
            field_dict["started_at"] = started_at
        if tenant is not UNSET:
            field_dict["tenant"] = tenant
        if withdrawn_at is not UNSET:
            field_dict["withdrawn_at"] = withdrawn_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.start_forecast import StartForecast  # noqa: PLC0415

        d = dict(src_dict)
        job_id = d.pop("job_id")

        job_type = d.pop("job_type")

        queued_at = d.pop("queued_at")

        status = JobOutStatus(d.pop("status"))

        def _parse_finished_at(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        finished_at = _parse_finished_at(d.pop("finished_at", UNSET))

        def _parse_forecast(data: object) -> None | StartForecast | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                forecast_type_0 = StartForecast.from_dict(data)

                return forecast_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | StartForecast | Unset, data)

        forecast = _parse_forecast(d.pop("forecast", UNSET))

        def _parse_gang_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        gang_id = _parse_gang_id(d.pop("gang_id", UNSET))

        def _parse_position(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        position = _parse_position(d.pop("position", UNSET))

        def _parse_reason(data: object) -> JobOutReasonType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reason_type_0 = JobOutReasonType0(data)

                return reason_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(JobOutReasonType0 | None | Unset, data)

        reason = _parse_reason(d.pop("reason", UNSET))

        def _parse_server_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        server_id = _parse_server_id(d.pop("server_id", UNSET))

        def _parse_started_at(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        started_at = _parse_started_at(d.pop("started_at", UNSET))

        def _parse_tenant(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        tenant = _parse_tenant(d.pop("tenant", UNSET))

        def _parse_withdrawn_at(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        withdrawn_at = _parse_withdrawn_at(d.pop("withdrawn_at", UNSET))

        job_out = cls(
            job_id=job_id,
            job_type=job_type,
            queued_at=queued_at,
            status=status,
            finished_at=finished_at,
            forecast=forecast,
            gang_id=gang_id,
            position=position,
            reason=reason,
            server_id=server_id,
            started_at=started_at,
            tenant=tenant,
            withdrawn_at=withdrawn_at,
        )

        job_out.additional_properties = d
        return job_out

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
