from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.queue_clock_view import QueueClockView
    from ..models.rms_state_clock_rates import RmsStateClockRates
    from ..models.rms_state_dummies import RmsStateDummies
    from ..models.rms_state_queues import RmsStateQueues
    from ..models.rms_state_running import RmsStateRunning
    from ..models.rms_state_weights import RmsStateWeights
    from ..models.rms_variant import RmsVariant


T = TypeVar("T", bound="RmsState")


@_attrs_define
class RmsState:
    """
    Attributes:
        arrived (int):
        clock (QueueClockView):
        clock_rates (RmsStateClockRates): The Poisson clocks' rates, per type.
        cluster_id (str):
        dummies (RmsStateDummies): Dummy jobs holding reserved room, per type.
        finished (int):
        max_jobs_per_server (int):
        next_tick (float):
        now (float):
        policy (Literal['rms']):
        queues (RmsStateQueues): Jobs waiting, per type.
        running (RmsStateRunning):
        servers (int):
        variant (RmsVariant):
        version (int): Events applied to the cluster so far.
        weights (RmsStateWeights):
        withdrawn (int):
    """

    arrived: int
    clock: QueueClockView
    clock_rates: RmsStateClockRates
    cluster_id: str
    dummies: RmsStateDummies
    finished: int
    max_jobs_per_server: int
    next_tick: float
    now: float
    policy: Literal["rms"]
    queues: RmsStateQueues
    running: RmsStateRunning
    servers: int
    variant: RmsVariant
    version: int
    weights: RmsStateWeights
    withdrawn: int

    def to_dict(self) -> dict[str, Any]:
        arrived = self.arrived

        clock = self.clock.to_dict()

        clock_rates = self.clock_rates.to_dict()

        cluster_id = self.cluster_id

        dummies = self.dummies.to_dict()

        finished = self.finished

        max_jobs_per_server = self.max_jobs_per_server

        next_tick = self.next_tick

        now = self.now

        policy = self.policy

        queues = self.queues.to_dict()

        running = self.running.to_dict()

        servers = self.servers

        variant = self.variant.to_dict()

        version = self.version

        weights = self.weights.to_dict()

        withdrawn = self.withdrawn

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "arrived": arrived,
                "clock": clock,
                "clock_rates": clock_rates,
                "cluster_id": cluster_id,
                "dummies": dummies,
                "finished": finished,
                "max_jobs_per_server": max_jobs_per_server,
                "next_tick": next_tick,
                "now": now,
                "policy": policy,
                "queues": queues,
                "running": running,
                "servers": servers,
                "variant": variant,
                "version": version,
                "weights": weights,
                "withdrawn": withdrawn,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.queue_clock_view import QueueClockView  # noqa: PLC0415
        from ..models.rms_state_clock_rates import RmsStateClockRates  # noqa: PLC0415
        from ..models.rms_state_dummies import RmsStateDummies  # noqa: PLC0415
        from ..models.rms_state_queues import RmsStateQueues  # noqa: PLC0415
        from ..models.rms_state_running import RmsStateRunning  # noqa: PLC0415
        from ..models.rms_state_weights import RmsStateWeights  # noqa: PLC0415
        from ..models.rms_variant import RmsVariant  # noqa: PLC0415

        d = dict(src_dict)
        arrived = d.pop("arrived")

        clock = QueueClockView.from_dict(d.pop("clock"))

        clock_rates = RmsStateClockRates.from_dict(d.pop("clock_rates"))

        cluster_id = d.pop("cluster_id")

        dummies = RmsStateDummies.from_dict(d.pop("dummies"))

        finished = d.pop("finished")

        max_jobs_per_server = d.pop("max_jobs_per_server")

        next_tick = d.pop("next_tick")

        now = d.pop("now")

        policy = cast(Literal["rms"], d.pop("policy"))
        if policy != "rms":
            raise ValueError(f"policy must match const 'rms', got '{policy}'")

        queues = RmsStateQueues.from_dict(d.pop("queues"))

        running = RmsStateRunning.from_dict(d.pop("running"))

        servers = d.pop("servers")

        variant = RmsVariant.from_dict(d.pop("variant"))

        version = d.pop("version")

        weights = RmsStateWeights.from_dict(d.pop("weights"))

        withdrawn = d.pop("withdrawn")

        rms_state = cls(
            arrived=arrived,
            clock=clock,
            clock_rates=clock_rates,
            cluster_id=cluster_id,
            dummies=dummies,
            finished=finished,
            max_jobs_per_server=max_jobs_per_server,
            next_tick=next_tick,
            now=now,
            policy=policy,
            queues=queues,
            running=running,
            servers=servers,
            variant=variant,
            version=version,
            weights=weights,
            withdrawn=withdrawn,
        )

        return rms_state
