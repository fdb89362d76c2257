from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.queue_clock_view import QueueClockView
    from ..models.rms_state_clock_rates import RmsStateClockRates
    from ..models.rms_state_dummies import RmsStateDummies
    from ..models.rms_state_queues import RmsStateQueues
    from ..models.rms_state_running import RmsStateRunning
    from ..models.rms_state_waiting_for_quota_type_0 import RmsStateWaitingForQuotaType0
    from ..models.rms_state_weights import RmsStateWeights
    from ..models.rms_variant import RmsVariant
    from ..models.tenancy_view import TenancyView


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
        next_tick (float | None): When the next clock tick fires; null: never (a clock rate too small to fire within any
            float time).
        now (float):
        policy (Literal['rms']):
        queues (RmsStateQueues): Jobs waiting, per type.
        running (RmsStateRunning):
        servers (int):
        variant (RmsVariant):
        version (int): Events applied to the cluster so far.
        weights (RmsStateWeights):
        withdrawn (int):
        tenancy (None | TenancyView | Unset): Where the cluster declares tenants: each one's usage, quota, borrowing and
            jobs waiting for quota, and the quotas' generation.
        waiting_for_quota (None | RmsStateWaitingForQuotaType0 | Unset): Where the cluster declares tenants: jobs
            waiting for their tenant's quota, per type (not yet in `queues`).
    """

    arrived: int
    clock: QueueClockView
    clock_rates: RmsStateClockRates
    cluster_id: str
    dummies: RmsStateDummies
    finished: int
    max_jobs_per_server: int
    next_tick: float | None
    now: float
    policy: Literal["rms"]
    queues: RmsStateQueues
    running: RmsStateRunning
    servers: int
    variant: RmsVariant
    version: int
    weights: RmsStateWeights
    withdrawn: int
    tenancy: None | TenancyView | Unset = UNSET
    waiting_for_quota: None | RmsStateWaitingForQuotaType0 | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.rms_state_waiting_for_quota_type_0 import RmsStateWaitingForQuotaType0  # noqa: PLC0415
        from ..models.tenancy_view import TenancyView  # noqa: PLC0415

        arrived = self.arrived

        clock = self.clock.to_dict()

        clock_rates = self.clock_rates.to_dict()

        cluster_id = self.cluster_id

        dummies = self.dummies.to_dict()

        finished = self.finished

        max_jobs_per_server = self.max_jobs_per_server

        next_tick: float | None
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
        elif isinstance(self.waiting_for_quota, RmsStateWaitingForQuotaType0):
            waiting_for_quota = self.waiting_for_quota.to_dict()
        else:
            waiting_for_quota = self.waiting_for_quota

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
        if tenancy is not UNSET:
            field_dict["tenancy"] = tenancy
        if waiting_for_quota is not UNSET:
            field_dict["waiting_for_quota"] = waiting_for_quota

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.queue_clock_view import QueueClockView  # noqa: PLC0415
        from ..models.rms_state_clock_rates import RmsStateClockRates  # noqa: PLC0415
        from ..models.rms_state_dummies import RmsStateDummies  # noqa: PLC0415
        from ..models.rms_state_queues import RmsStateQueues  # noqa: PLC0415
        from ..models.rms_state_running import RmsStateRunning  # noqa: PLC0415
        from ..models.rms_state_waiting_for_quota_type_0 import RmsStateWaitingForQuotaType0  # noqa: PLC0415
        from ..models.rms_state_weights import RmsStateWeights  # noqa: PLC0415
        from ..models.rms_variant import RmsVariant  # noqa: PLC0415
        from ..models.tenancy_view import TenancyView  # noqa: PLC0415

        d = dict(src_dict)
        arrived = d.pop("arrived")

        clock = QueueClockView.from_dict(d.pop("clock"))

        clock_rates = RmsStateClockRates.from_dict(d.pop("clock_rates"))

        cluster_id = d.pop("cluster_id")

        dummies = RmsStateDummies.from_dict(d.pop("dummies"))

        finished = d.pop("finished")

        max_jobs_per_server = d.pop("max_jobs_per_server")

        def _parse_next_tick(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        next_tick = _parse_next_tick(d.pop("next_tick"))

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

        def _parse_waiting_for_quota(data: object) -> None | RmsStateWaitingForQuotaType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                waiting_for_quota_type_0 = RmsStateWaitingForQuotaType0.from_dict(data)

                return waiting_for_quota_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | RmsStateWaitingForQuotaType0 | Unset, data)

        waiting_for_quota = _parse_waiting_for_quota(d.pop("waiting_for_quota", UNSET))

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
            tenancy=tenancy,
            waiting_for_quota=waiting_for_quota,
        )

        return rms_state
