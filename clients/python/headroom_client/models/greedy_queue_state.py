from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..models.greedy_queue_state_policy import GreedyQueueStatePolicy

if TYPE_CHECKING:
    from ..models.greedy_queue_state_queues import GreedyQueueStateQueues
    from ..models.greedy_queue_state_running import GreedyQueueStateRunning
    from ..models.queue_clock_view import QueueClockView


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

    def to_dict(self) -> dict[str, Any]:
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

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.greedy_queue_state_queues import GreedyQueueStateQueues  # noqa: PLC0415
        from ..models.greedy_queue_state_running import GreedyQueueStateRunning  # noqa: PLC0415
        from ..models.queue_clock_view import QueueClockView  # noqa: PLC0415

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
        )

        return greedy_queue_state
