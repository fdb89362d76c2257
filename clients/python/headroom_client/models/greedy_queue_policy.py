from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..models.greedy_queue_policy_clock import GreedyQueuePolicyClock
from ..models.greedy_queue_policy_kind import GreedyQueuePolicyKind
from ..models.greedy_queue_policy_order import GreedyQueuePolicyOrder
from ..types import UNSET, Unset

T = TypeVar("T", bound="GreedyQueuePolicy")


@_attrs_define
class GreedyQueuePolicy:
    """Work-conserving baselines (§III): start an arrival at once if a server has room (chosen
    by the rule), otherwise queue it; a departure starts the waiting jobs that fit.

        Attributes:
            kind (GreedyQueuePolicyKind):
            clock (GreedyQueuePolicyClock | Unset): wall: the service stamps each event with the time since the cluster was
                created (in time units) and a background loop fires the scheduler's clocks; events must not carry `at`. client:
                every event carries `at` (and ticks `until`), which never decreases; nothing happens between events unless a
                client ticks. Default: GreedyQueuePolicyClock.WALL.
            finished_history (int | Unset): Finished jobs kept for GET .../jobs/{job_id} (oldest forgotten first). Default:
                1000.
            order (GreedyQueuePolicyOrder | Unset): Which waiting job a freed server takes first. Default:
                GreedyQueuePolicyOrder.FIFO.
            time_unit_seconds (float | Unset): Seconds per time unit on the wall clock (1 ms to 1 day); rates are per time
                unit. Default: 1.0.
    """

    kind: GreedyQueuePolicyKind
    clock: GreedyQueuePolicyClock | Unset = GreedyQueuePolicyClock.WALL
    finished_history: int | Unset = 1000
    order: GreedyQueuePolicyOrder | Unset = GreedyQueuePolicyOrder.FIFO
    time_unit_seconds: float | Unset = 1.0

    def to_dict(self) -> dict[str, Any]:
        kind = self.kind.value

        clock: str | Unset = UNSET
        if not isinstance(self.clock, Unset):
            clock = self.clock.value

        finished_history = self.finished_history

        order: str | Unset = UNSET
        if not isinstance(self.order, Unset):
            order = self.order.value

        time_unit_seconds = self.time_unit_seconds

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "kind": kind,
            }
        )
        if clock is not UNSET:
            field_dict["clock"] = clock
        if finished_history is not UNSET:
            field_dict["finished_history"] = finished_history
        if order is not UNSET:
            field_dict["order"] = order
        if time_unit_seconds is not UNSET:
            field_dict["time_unit_seconds"] = time_unit_seconds

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        kind = GreedyQueuePolicyKind(d.pop("kind"))

        _clock = d.pop("clock", UNSET)
        clock: GreedyQueuePolicyClock | Unset
        if isinstance(_clock, Unset):
            clock = UNSET
        else:
            clock = GreedyQueuePolicyClock(_clock)

        finished_history = d.pop("finished_history", UNSET)

        _order = d.pop("order", UNSET)
        order: GreedyQueuePolicyOrder | Unset
        if isinstance(_order, Unset):
            order = UNSET
        else:
            order = GreedyQueuePolicyOrder(_order)

        time_unit_seconds = d.pop("time_unit_seconds", UNSET)

        greedy_queue_policy = cls(
            kind=kind,
            clock=clock,
            finished_history=finished_history,
            order=order,
            time_unit_seconds=time_unit_seconds,
        )

        return greedy_queue_policy
