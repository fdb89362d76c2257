from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.greedy_queue_state_policy import GreedyQueueStatePolicy
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.greedy_queue_state_queues import GreedyQueueStateQueues
    from ..models.greedy_queue_state_running import GreedyQueueStateRunning
    from ..models.greedy_queue_state_waiting_for_quota_type_0 import GreedyQueueStateWaitingForQuotaType0
    from ..models.queue_clock_view import QueueClockView
    from ..models.tenancy_view import TenancyView


T = TypeVar("T", bound="GreedyQueueState")


@_attrs_define
class GreedyQueueState:
    """
    Attributes:
        arrived (int):
        clock (QueueClockView):
        cluster_id (str):
        finished (int):
        now (float):
        policy (GreedyQueueStatePolicy):
        queues (GreedyQueueStateQueues): Jobs waiting, per type.
        running (GreedyQueueStateRunning):
        servers (int):
        version (int): Events applied to the cluster so far.
        withdrawn (int):
        tenancy (None | TenancyView | Unset): Where the cluster declares tenants: each one's usage, quota, borrowing and
            jobs waiting for quota, and the quotas' generation.
        waiting_for_quota (GreedyQueueStateWaitingForQuotaType0 | None | Unset): Where the cluster declares tenants:
            jobs waiting for their tenant's quota, per type (not yet in `queues`).
    """

    arrived: int
    clock: QueueClockView
    cluster_id: str
    finished: int
    now: float
    policy: GreedyQueueStatePolicy
    queues: GreedyQueueStateQueues
    running: GreedyQueueStateRunning
    servers: int
    version: int
    withdrawn: int
    tenancy: None | TenancyView | Unset = UNSET
    waiting_for_quota: GreedyQueueStateWaitingForQuotaType0 | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.greedy_queue_state_waiting_for_quota_type_0 import GreedyQueueStateWaitingForQuotaType0  # noqa: PLC0415
        from ..models.tenancy_view import TenancyView  # noqa: PLC0415

        arrived = self.arrived

        clock = self.clock.to_dict()

        cluster_id = self.cluster_id

        finished = self.finished

        now = self.now

        policy = self.policy.value

        queues = self.queues.to_dict()

        running = self.running.to_dict()

        servers = self.servers

        version = self.version

        withdrawn = self.withdrawn

        tenancy: dict[str, Any] | None | Unset
        if isinstance(self.tenancy, Unset):
            tenancy = UNSET
        elif isinstance(self.tenancy, TenancyView):
            tenancy = self.tenancy.to_dict()
        else:
            tenancy = self.tenancy

        waiting_for_quota: dict[str, Any] | None | Unset
        if isinstance(self.waiting_for_quota, Unset):
            waiting_for_quota = UNSET
        elif isinstance(self.waiting_for_quota, GreedyQueueStateWaitingForQuotaType0):
            waiting_for_quota = self.waiting_for_quota.to_dict()
        else:
            waiting_for_quota = self.waiting_for_quota

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "arrived": arrived,
                "clock": clock,
                "cluster_id": cluster_id,
                "finished": finished,
                "now": now,
                "policy": policy,
                "queues": queues,
                "running": running,
                "servers": servers,
                "version": version,
                "withdrawn": withdrawn,
            }
        )
        if tenancy is not UNSET:
            field_dict["tenancy"] = tenancy
        if waiting_for_quota is not UNSET:
            field_dict["waiting_for_quota"] = waiting_for_quota

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.greedy_queue_state_queues import GreedyQueueStateQueues  # noqa: PLC0415
        from ..models.greedy_queue_state_running import GreedyQueueStateRunning  # noqa: PLC0415
        from ..models.greedy_queue_state_waiting_for_quota_type_0 import GreedyQueueStateWaitingForQuotaType0  # noqa: PLC0415
        from ..models.queue_clock_view import QueueClockView  # noqa: PLC0415
        from ..models.tenancy_view import TenancyView  # noqa: PLC0415

        d = dict(src_dict)
        arrived = d.pop("arrived")

        clock = QueueClockView.from_dict(d.pop("clock"))

        cluster_id = d.pop("cluster_id")

        finished = d.pop("finished")

        now = d.pop("now")

        policy = GreedyQueueStatePolicy(d.pop("policy"))

        queues = GreedyQueueStateQueues.from_dict(d.pop("queues"))

        running = GreedyQueueStateRunning.from_dict(d.pop("running"))

        servers = d.pop("servers")

        version = d.pop("version")

        withdrawn = d.pop("withdrawn")

        def _parse_tenancy(data: object) -> None | TenancyView | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                tenancy_type_0 = TenancyView.from_dict(data)

                return tenancy_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TenancyView | Unset, data)

        tenancy = _parse_tenancy(d.pop("tenancy", UNSET))

        def _parse_waiting_for_quota(data: object) -> GreedyQueueStateWaitingForQuotaType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                waiting_for_quota_type_0 = GreedyQueueStateWaitingForQuotaType0.from_dict(data)

                return waiting_for_quota_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(GreedyQueueStateWaitingForQuotaType0 | None | Unset, data)

        waiting_for_quota = _parse_waiting_for_quota(d.pop("waiting_for_quota", UNSET))

        greedy_queue_state = cls(
            arrived=arrived,
            clock=clock,
            cluster_id=cluster_id,
            finished=finished,
            now=now,
            policy=policy,
            queues=queues,
            running=running,
            servers=servers,
            version=version,
            withdrawn=withdrawn,
            tenancy=tenancy,
            waiting_for_quota=waiting_for_quota,
        )

        return greedy_queue_state
