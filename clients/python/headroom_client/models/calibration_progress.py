from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.calibration_progress_status import CalibrationProgressStatus
from ..types import UNSET, Unset

T = TypeVar("T", bound="CalibrationProgress")


@_attrs_define
class CalibrationProgress:
    """
    Attributes:
        lives_done (int):
        lives_total (int | None):
        status (CalibrationProgressStatus):
        attempts (int | None | Unset):
        error (None | str | Unset):
        eta (None | str | Unset): ISO 8601, at the pace of its lives so far.
        started_at (None | str | Unset):
    """

    lives_done: int
    lives_total: int | None
    status: CalibrationProgressStatus
    attempts: int | None | Unset = UNSET
    error: None | str | Unset = UNSET
    eta: None | str | Unset = UNSET
    started_at: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        lives_done = self.lives_done

        lives_total: int | None
        lives_total = self.lives_total

        status = self.status.value

        attempts: int | None | Unset
        if isinstance(self.attempts, Unset):
            attempts = UNSET
        else:
            attempts = self.attempts

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        eta: None | str | Unset
        if isinstance(self.eta, Unset):
            eta = UNSET
        else:
            eta = self.eta

        started_at: None | str | Unset
        if isinstance(self.started_at, Unset):
            started_at = UNSET
        else:
            started_at = self.started_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "lives_done": lives_done,
                "lives_total": lives_total,
                "status": status,
            }
        )
        if attempts is not UNSET:
            field_dict["attempts"] = attempts
        if error is not UNSET:
            field_dict["error"] = error
        if eta is not UNSET:
            field_dict["eta"] = eta
        if started_at is not UNSET:
            field_dict["started_at"] = started_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        lives_done = d.pop("lives_done")

        def _parse_lives_total(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        lives_total = _parse_lives_total(d.pop("lives_total"))

        status = CalibrationProgressStatus(d.pop("status"))

        def _parse_attempts(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        attempts = _parse_attempts(d.pop("attempts", UNSET))

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        def _parse_eta(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        eta = _parse_eta(d.pop("eta", UNSET))

        def _parse_started_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        started_at = _parse_started_at(d.pop("started_at", UNSET))

        calibration_progress = cls(
            lives_done=lives_done,
            lives_total=lives_total,
            status=status,
            attempts=attempts,
            error=error,
            eta=eta,
            started_at=started_at,
        )

        calibration_progress.additional_properties = d
        return calibration_progress

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
