from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="ClosedLoopView")


@_attrs_define
class ClosedLoopView:
    """
    Attributes:
        hi (float): The loosest.
        lo (float): The tightest threshold the loop may move to.
        loosened (int):
        sla (float):
        tightened (int):
        window_denied (int):
        window_failure_rate_interval (list[float]): Wilson 95% interval of the window's failure rate.
        window_requests (int):
    """

    hi: float
    lo: float
    loosened: int
    sla: float
    tightened: int
    window_denied: int
    window_failure_rate_interval: list[float]
    window_requests: int

    def to_dict(self) -> dict[str, Any]:
        hi = self.hi

        lo = self.lo

        loosened = self.loosened

        sla = self.sla

        tightened = self.tightened

        window_denied = self.window_denied

        window_failure_rate_interval = self.window_failure_rate_interval

        window_requests = self.window_requests

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "hi": hi,
                "lo": lo,
                "loosened": loosened,
                "sla": sla,
                "tightened": tightened,
                "window_denied": window_denied,
                "window_failure_rate_interval": window_failure_rate_interval,
                "window_requests": window_requests,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        hi = d.pop("hi")

        lo = d.pop("lo")

        loosened = d.pop("loosened")

        sla = d.pop("sla")

        tightened = d.pop("tightened")

        window_denied = d.pop("window_denied")

        window_failure_rate_interval = cast(list[float], d.pop("window_failure_rate_interval"))

        window_requests = d.pop("window_requests")

        closed_loop_view = cls(
            hi=hi,
            lo=lo,
            loosened=loosened,
            sla=sla,
            tightened=tightened,
            window_denied=window_denied,
            window_failure_rate_interval=window_failure_rate_interval,
            window_requests=window_requests,
        )

        return closed_loop_view
