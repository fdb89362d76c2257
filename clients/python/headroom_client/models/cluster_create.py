from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.best_fit_policy import BestFitPolicy
    from ..models.dra_policy import DraPolicy
    from ..models.first_fit_policy import FirstFitPolicy
    from ..models.greedy_queue_policy import GreedyQueuePolicy
    from ..models.job_type_in import JobTypeIn
    from ..models.power_of_d_policy import PowerOfDPolicy
    from ..models.rms_policy import RmsPolicy
    from ..models.server_pool_in import ServerPoolIn
    from ..models.tenant_in import TenantIn


T = TypeVar("T", bound="ClusterCreate")


@_attrs_define
class ClusterCreate:
    """Vectors are keyed by the declared ``dimensions`` (every one, no other).

    Attributes:
        dimensions (list[str]):
        job_types (list[JobTypeIn]):
        name (str):
        policy (BestFitPolicy | DraPolicy | FirstFitPolicy | GreedyQueuePolicy | PowerOfDPolicy | RmsPolicy):
        server_pools (list[ServerPoolIn]):
        seed (int | Unset): Seeds the policy's random generator (power-of-d, RMS). Default: 0.
        tenants (list[TenantIn] | None | Unset): The tenants its arrivals run for, with their quotas (docs/tenants.md);
            none: one anonymous stream of jobs.
    """

    dimensions: list[str]
    job_types: list[JobTypeIn]
    name: str
    policy: BestFitPolicy | DraPolicy | FirstFitPolicy | GreedyQueuePolicy | PowerOfDPolicy | RmsPolicy
    server_pools: list[ServerPoolIn]
    seed: int | Unset = 0
    tenants: list[TenantIn] | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.best_fit_policy import BestFitPolicy  # noqa: PLC0415
        from ..models.dra_policy import DraPolicy  # noqa: PLC0415
        from ..models.first_fit_policy import FirstFitPolicy  # noqa: PLC0415
        from ..models.power_of_d_policy import PowerOfDPolicy  # noqa: PLC0415
        from ..models.rms_policy import RmsPolicy  # noqa: PLC0415

        dimensions = self.dimensions

        job_types = []
        for job_types_item_data in self.job_types:
            job_types_item = job_types_item_data.to_dict()
            job_types.append(job_types_item)

        name = self.name

        policy: dict[str, Any]
        if isinstance(self.policy, DraPolicy):
            policy = self.policy.to_dict()
        elif isinstance(self.policy, FirstFitPolicy):
            policy = self.policy.to_dict()
        elif isinstance(self.policy, BestFitPolicy):
            policy = self.policy.to_dict()
        elif isinstance(self.policy, PowerOfDPolicy):
            policy = self.policy.to_dict()
        elif isinstance(self.policy, RmsPolicy):
            policy = self.policy.to_dict()
        else:
            policy = self.policy.to_dict()

        server_pools = []
        for server_pools_item_data in self.server_pools:
            server_pools_item = server_pools_item_data.to_dict()
            server_pools.append(server_pools_item)

        seed = self.seed

        tenants: list[dict[str, Any]] | None | Unset
        if isinstance(self.tenants, Unset):
            tenants = UNSET
        elif isinstance(self.tenants, list):
            tenants = []
            for tenants_type_0_item_data in self.tenants:
                tenants_type_0_item = tenants_type_0_item_data.to_dict()
                tenants.append(tenants_type_0_item)

        else:
            tenants = self.tenants

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "dimensions": dimensions,
                "job_types": job_types,
                "name": name,
                "policy": policy,
                "server_pools": server_pools,
            }
        )
        if seed is not UNSET:
            field_dict["seed"] = seed
        if tenants is not UNSET:
            field_dict["tenants"] = tenants

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.best_fit_policy import BestFitPolicy  # noqa: PLC0415
        from ..models.dra_policy import DraPolicy  # noqa: PLC0415
        from ..models.first_fit_policy import FirstFitPolicy  # noqa: PLC0415
        from ..models.greedy_queue_policy import GreedyQueuePolicy  # noqa: PLC0415
        from ..models.job_type_in import JobTypeIn  # noqa: PLC0415
        from ..models.power_of_d_policy import PowerOfDPolicy  # noqa: PLC0415
        from ..models.rms_policy import RmsPolicy  # noqa: PLC0415
        from ..models.server_pool_in import ServerPoolIn  # noqa: PLC0415
        from ..models.tenant_in import TenantIn  # noqa: PLC0415

        d = dict(src_dict)
        dimensions = cast(list[str], d.pop("dimensions"))

        job_types = []
        _job_types = d.pop("job_types")
        for job_types_item_data in _job_types:
            job_types_item = JobTypeIn.from_dict(job_types_item_data)

            job_types.append(job_types_item)

        name = d.pop("name")

        def _parse_policy(
            data: object,
        ) -> BestFitPolicy | DraPolicy | FirstFitPolicy | GreedyQueuePolicy | PowerOfDPolicy | RmsPolicy:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                policy_type_0 = DraPolicy.from_dict(data)

                return policy_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                policy_type_1 = FirstFitPolicy.from_dict(data)

                return policy_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                policy_type_2 = BestFitPolicy.from_dict(data)

                return policy_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                policy_type_3 = PowerOfDPolicy.from_dict(data)

                return policy_type_3
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                policy_type_4 = RmsPolicy.from_dict(data)

                return policy_type_4
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            policy_type_5 = GreedyQueuePolicy.from_dict(data)

            return policy_type_5

        policy = _parse_policy(d.pop("policy"))

        server_pools = []
        _server_pools = d.pop("server_pools")
        for server_pools_item_data in _server_pools:
            server_pools_item = ServerPoolIn.from_dict(server_pools_item_data)

            server_pools.append(server_pools_item)

        seed = d.pop("seed", UNSET)

        def _parse_tenants(data: object) -> list[TenantIn] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                tenants_type_0 = []
                _tenants_type_0 = data
                for tenants_type_0_item_data in _tenants_type_0:
                    tenants_type_0_item = TenantIn.from_dict(tenants_type_0_item_data)

                    tenants_type_0.append(tenants_type_0_item)

                return tenants_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[TenantIn] | None | Unset, data)

        tenants = _parse_tenants(d.pop("tenants", UNSET))

        cluster_create = cls(
            dimensions=dimensions,
            job_types=job_types,
            name=name,
            policy=policy,
            server_pools=server_pools,
            seed=seed,
            tenants=tenants,
        )

        return cluster_create
