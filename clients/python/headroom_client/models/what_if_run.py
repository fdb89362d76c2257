from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.what_if_run_status import WhatIfRunStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.what_if_progress import WhatIfProgress
    from ..models.what_if_run_request import WhatIfRunRequest
    from ..models.what_if_run_result_type_0 import WhatIfRunResultType0


T = TypeVar("T", bound="WhatIfRun")


@_attrs_define
class WhatIfRun:
    """
    Attributes:
        attempts (int):
        cluster_id (str):
        created_at (str):
        id (str):
        progress (WhatIfProgress):
        request (WhatIfRunRequest): The alternative's declaration, window, seeds.
        status (WhatIfRunStatus):
        error (None | str | Unset):
        finished_at (None | str | Unset):
        result (None | Unset | WhatIfRunResultType0): Once done: both sides' figures, the assumptions the alternative
            made and how many events each touched, and the first decisions that differ (docs/what-if.md).
        started_at (None | str | Unset):
    """

    attempts: int
    cluster_id: str
    created_at: str
    id: str
    progress: WhatIfProgress
    request: WhatIfRunRequest
    status: WhatIfRunStatus
    error: None | str | Unset = UNSET
    finished_at: None | str | Unset = UNSET
    result: None | Unset | WhatIfRunResultType0 = UNSET
    started_at: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.what_if_run_result_type_0 import WhatIfRunResultType0  # noqa: PLC0415

        attempts = self.attempts

        cluster_id = self.cluster_id

        created_at = self.created_at

        id = self.id

        progress = self.progress.to_dict()

        request = self.request.to_dict()

        status = self.status.value

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        finished_at: None | str | Unset
        if isinstance(self.finished_at, Unset):
            finished_at = UNSET
        else:
            finished_at = self.finished_at

        result: dict[str, Any] | None | Unset
        if isinstance(self.result, Unset):
            result = UNSET
        elif isinstance(self.result, WhatIfRunResultType0):
            result = self.result.to_dict()
        else:
            result = self.result

        started_at: None | str | Unset
        if isinstance(self.started_at, Unset):
            started_at = UNSET
        else:
            started_at = self.started_at

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "attempts": attempts,
                "cluster_id": cluster_id,
                "created_at": created_at,
                "id": id,
                "progress": progress,
                "request": request,
                "status": status,
            }
        )
        if error is not UNSET:
            field_dict["error"] = error
        if finished_at is not UNSET:
            field_dict["finished_at"] = finished_at
        if result is not UNSET:
            field_dict["result"] = result
        if started_at is not UNSET:
            field_dict["started_at"] = started_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.what_if_progress import WhatIfProgress  # noqa: PLC0415
        from ..models.what_if_run_request import WhatIfRunRequest  # noqa: PLC0415
        from ..models.what_if_run_result_type_0 import WhatIfRunResultType0  # noqa: PLC0415

        d = dict(src_dict)
        attempts = d.pop("attempts")

        cluster_id = d.pop("cluster_id")

        created_at = d.pop("created_at")

        id = d.pop("id")

        progress = WhatIfProgress.from_dict(d.pop("progress"))

        request = WhatIfRunRequest.from_dict(d.pop("request"))

        status = WhatIfRunStatus(d.pop("status"))

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        def _parse_finished_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        finished_at = _parse_finished_at(d.pop("finished_at", UNSET))

        def _parse_result(data: object) -> None | Unset | WhatIfRunResultType0:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                result_type_0 = WhatIfRunResultType0.from_dict(data)

                return result_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | WhatIfRunResultType0, data)

        result = _parse_result(d.pop("result", UNSET))

        def _parse_started_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        started_at = _parse_started_at(d.pop("started_at", UNSET))

        what_if_run = cls(
            attempts=attempts,
            cluster_id=cluster_id,
            created_at=created_at,
            id=id,
            progress=progress,
            request=request,
            status=status,
            error=error,
            finished_at=finished_at,
            result=result,
            started_at=started_at,
        )

        return what_if_run
