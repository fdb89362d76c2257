from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..models.fit_state_policy import FitStatePolicy

if TYPE_CHECKING:
    from ..models.fit_state_feasible_servers_per_type import FitStateFeasibleServersPerType
    from ..models.fit_state_jobs_per_type import FitStateJobsPerType


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
    """

    cluster_id: str
    feasible_servers_per_type: FitStateFeasibleServersPerType
    jobs: int
    jobs_per_type: FitStateJobsPerType
    policy: FitStatePolicy
    reward_rate: float
    servers: int
    version: int

    def to_dict(self) -> dict[str, Any]:
        cluster_id = self.cluster_id

        feasible_servers_per_type = self.feasible_servers_per_type.to_dict()

        jobs = self.jobs

        jobs_per_type = self.jobs_per_type.to_dict()

        policy = self.policy.value

        reward_rate = self.reward_rate

        servers = self.servers

        version = self.version

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

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.fit_state_feasible_servers_per_type import FitStateFeasibleServersPerType  # noqa: PLC0415
        from ..models.fit_state_jobs_per_type import FitStateJobsPerType  # noqa: PLC0415

        d = dict(src_dict)
        cluster_id = d.pop("cluster_id")

        feasible_servers_per_type = FitStateFeasibleServersPerType.from_dict(d.pop("feasible_servers_per_type"))

        jobs = d.pop("jobs")

        jobs_per_type = FitStateJobsPerType.from_dict(d.pop("jobs_per_type"))

        policy = FitStatePolicy(d.pop("policy"))

        reward_rate = d.pop("reward_rate")

        servers = d.pop("servers")

        version = d.pop("version")

        fit_state = cls(
            cluster_id=cluster_id,
            feasible_servers_per_type=feasible_servers_per_type,
            jobs=jobs,
            jobs_per_type=jobs_per_type,
            policy=policy,
            reward_rate=reward_rate,
            servers=servers,
            version=version,
        )

        return fit_state
