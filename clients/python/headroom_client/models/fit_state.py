from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.fit_state_policy import FitStatePolicy
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.fit_state_feasible_servers_per_type import FitStateFeasibleServersPerType
    from ..models.fit_state_jobs_per_type import FitStateJobsPerType
    from ..models.tenancy_view import TenancyView


T = TypeVar("T", bound="FitState")


@_attrs_define
class FitState:
    """
    Attributes:
        cluster_id (str):
        feasible_servers_per_type (FitStateFeasibleServersPerType): Servers with room for one more job of each type.
        jobs (int): Jobs holding a slot.
        jobs_per_type (FitStateJobsPerType):
        policy (FitStatePolicy):
        reward_rate (float): Σ reward over the jobs in service.
        servers (int):
        version (int): Events applied to the cluster so far.
        tenancy (None | TenancyView | Unset): Where the cluster declares tenants: each one's usage, quota, borrowing,
            preemptions and refusals, and the quotas' generation.
    """

    cluster_id: str
    feasible_servers_per_type: FitStateFeasibleServersPerType
    jobs: int
    jobs_per_type: FitStateJobsPerType
    policy: FitStatePolicy
    reward_rate: float
    servers: int
    version: int
    tenancy: None | TenancyView | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.tenancy_view import TenancyView  # noqa: PLC0415

        cluster_id = self.cluster_id

        feasible_servers_per_type = self.feasible_servers_per_type.to_dict()

        jobs = self.jobs

        jobs_per_type = self.jobs_per_type.to_dict()

        policy = self.policy.value

        reward_rate = self.reward_rate

        servers = self.servers

        version = self.version

        tenancy: dict[str, Any] | None | Unset
        if isinstance(self.tenancy, Unset):
            tenancy = UNSET
        elif isinstance(self.tenancy, TenancyView):
            tenancy = self.tenancy.to_dict()
        else:
            tenancy = self.tenancy

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "cluster_id": cluster_id,
                "feasible_servers_per_type": feasible_servers_per_type,
                "jobs": jobs,
                "jobs_per_type": jobs_per_type,
                "policy": policy,
                "reward_rate": reward_rate,
                "servers": servers,
                "version": version,
            }
        )
        if tenancy is not UNSET:
            field_dict["tenancy"] = tenancy

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.fit_state_feasible_servers_per_type import FitStateFeasibleServersPerType  # noqa: PLC0415
        from ..models.fit_state_jobs_per_type import FitStateJobsPerType  # noqa: PLC0415
        from ..models.tenancy_view import TenancyView  # noqa: PLC0415

        d = dict(src_dict)
        cluster_id = d.pop("cluster_id")

        feasible_servers_per_type = FitStateFeasibleServersPerType.from_dict(d.pop("feasible_servers_per_type"))

        jobs = d.pop("jobs")

        jobs_per_type = FitStateJobsPerType.from_dict(d.pop("jobs_per_type"))

        policy = FitStatePolicy(d.pop("policy"))

        reward_rate = d.pop("reward_rate")

        servers = d.pop("servers")

        version = d.pop("version")

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

        fit_state = cls(
            cluster_id=cluster_id,
            feasible_servers_per_type=feasible_servers_per_type,
            jobs=jobs,
            jobs_per_type=jobs_per_type,
            policy=policy,
            reward_rate=reward_rate,
            servers=servers,
            version=version,
            tenancy=tenancy,
        )

        return fit_state
