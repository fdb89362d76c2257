from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="StartForecast")


@_attrs_define
class StartForecast:
    """When a waiting job is expected to start, in the cluster's time units (as ``queued_at``),
    from simulating the queue forward from its state as of its last event, with the lifetimes
    of its finished jobs and the arrival rates of the jobs it remembers (docs/what-if.md,
    "When will my job start?"). A field that is None is left out of the answer.

        Attributes:
            level (float): The interval's level: 0.8.
            samples (int): Futures simulated.
            started (int): Samples in which the job started within the horizon.
            finished_jobs (int | None | Unset): Finished jobs whose lifetimes were drawn from.
            high (float | None | Unset): Its upper end (90th percentile); absent: beyond the horizon in more than a tenth of
                the samples.
            horizon (float | None | Unset): How far the samples looked (time units).
            low (float | None | Unset): The interval's lower end (10th percentile).
            median (float | None | Unset): The median start over the samples (absent: no forecast, see reason).
            reason (None | str | Unset): Why there is no forecast, where there is none.
    """

    level: float
    samples: int
    started: int
    finished_jobs: int | None | Unset = UNSET
    high: float | None | Unset = UNSET
    horizon: float | None | Unset = UNSET
    low: float | None | Unset = UNSET
    median: float | None | Unset = UNSET
    reason: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        level = self.level

        samples = self.samples

        started = self.started

        finished_jobs: int | None | Unset
        if isinstance(self.finished_jobs, Unset):
            finished_jobs = UNSET
        else:
            finished_jobs = self.finished_jobs

        high: float | None | Unset
        if isinstance(self.high, Unset):
            high = UNSET
        else:
            high = self.high

        horizon: float | None | Unset
        if isinstance(self.horizon, Unset):
            horizon = UNSET
        else:
            horizon = self.horizon

        low: float | None | Unset
        if isinstance(self.low, Unset):
            low = UNSET
        else:
            low = self.low

        median: float | None | Unset
        if isinstance(self.median, Unset):
            median = UNSET
        else:
            median = self.median

        reason: None | str | Unset
        if isinstance(self.reason, Unset):
            reason = UNSET
        else:
            reason = self.reason

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "level": level,
                "samples": samples,
                "started": started,
            }
        )
        if finished_jobs is not UNSET:
            field_dict["finished_jobs"] = finished_jobs
        if high is not UNSET:
            field_dict["high"] = high
        if horizon is not UNSET:
            field_dict["horizon"] = horizon
        if low is not UNSET:
            field_dict["low"] = low
        if median is not UNSET:
            field_dict["median"] = median
        if reason is not UNSET:
            field_dict["reason"] = reason

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        level = d.pop("level")

        samples = d.pop("samples")

        started = d.pop("started")

        def _parse_finished_jobs(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        finished_jobs = _parse_finished_jobs(d.pop("finished_jobs", UNSET))

        def _parse_high(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        high = _parse_high(d.pop("high", UNSET))

        def _parse_horizon(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        horizon = _parse_horizon(d.pop("horizon", UNSET))

        def _parse_low(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        low = _parse_low(d.pop("low", UNSET))

        def _parse_median(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        median = _parse_median(d.pop("median", UNSET))

        def _parse_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reason = _parse_reason(d.pop("reason", UNSET))

        start_forecast = cls(
            level=level,
            samples=samples,
            started=started,
            finished_jobs=finished_jobs,
            high=high,
            horizon=horizon,
            low=low,
            median=median,
            reason=reason,
        )

        start_forecast.additional_properties = d
        return start_forecast

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
