from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from attrs import define as _attrs_define

from ..models.dra_state_migrations import DraStateMigrations
from ..models.dra_state_preemption import DraStatePreemption
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.configuration_search import ConfigurationSearch
    from ..models.dra_configuration import DraConfiguration
    from ..models.dra_state_free_slots_in_accept_group import DraStateFreeSlotsInAcceptGroup
    from ..models.dra_state_jobs_per_type import DraStateJobsPerType
    from ..models.gpa_refresh import GpaRefresh
    from ..models.migration_tally import MigrationTally
    from ..models.tenancy_view import TenancyView


T = TypeVar("T", bound="DraState")


@_attrs_define
class DraState:
    """
    Attributes:
        cluster_id (str):
        configuration_search (ConfigurationSearch):
        configurations (list[DraConfiguration]):
        free_slots_in_accept_group (DraStateFreeSlotsInAcceptGroup):
        g (float): Reserved slots g(L) the policy keeps.
        gpa_refresh (GpaRefresh):
        istar (int):
        jobs (int): Jobs holding a slot.
        jobs_per_type (DraStateJobsPerType):
        migration_tally (MigrationTally):
        migrations (DraStateMigrations):
        policy (Literal['dra']):
        preemption (DraStatePreemption):
        preemptions (int):
        reward_rate (float): Σ reward over the jobs in service.
        servers (int):
        version (int): Events applied to the cluster so far.
        tenancy (None | TenancyView | Unset): Where the cluster declares tenants: each one's usage, quota, borrowing,
            preemptions and refusals, and the quotas' generation.
    """

    cluster_id: str
    configuration_search: ConfigurationSearch
    configurations: list[DraConfiguration]
    free_slots_in_accept_group: DraStateFreeSlotsInAcceptGroup
    g: float
    gpa_refresh: GpaRefresh
    istar: int
    jobs: int
    jobs_per_type: DraStateJobsPerType
    migration_tally: MigrationTally
    migrations: DraStateMigrations
    policy: Literal["dra"]
    preemption: DraStatePreemption
    preemptions: int
    reward_rate: float
    servers: int
    version: int
    tenancy: None | TenancyView | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.tenancy_view import TenancyView  # noqa: PLC0415

        cluster_id = self.cluster_id

        configuration_search = self.configuration_search.to_dict()

        configurations = []
        for configurations_item_data in self.configurations:
            configurations_item = configurations_item_data.to_dict()
            configurations.append(configurations_item)

        free_slots_in_accept_group = self.free_slots_in_accept_group.to_dict()

        g = self.g

        gpa_refresh = self.gpa_refresh.to_dict()

        istar = self.istar

        jobs = self.jobs

        jobs_per_type = self.jobs_per_type.to_dict()

        migration_tally = self.migration_tally.to_dict()

        migrations = self.migrations.value

        policy = self.policy

        preemption = self.preemption.value

        preemptions = self.preemptions

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
                "configuration_search": configuration_search,
                "configurations": configurations,
                "free_slots_in_accept_group": free_slots_in_accept_group,
                "g": g,
                "gpa_refresh": gpa_refresh,
                "istar": istar,
                "jobs": jobs,
                "jobs_per_type": jobs_per_type,
                "migration_tally": migration_tally,
                "migrations": migrations,
                "policy": policy,
                "preemption": preemption,
                "preemptions": preemptions,
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
        from ..models.configuration_search import ConfigurationSearch  # noqa: PLC0415
        from ..models.dra_configuration import DraConfiguration  # noqa: PLC0415
        from ..models.dra_state_free_slots_in_accept_group import DraStateFreeSlotsInAcceptGroup  # noqa: PLC0415
        from ..models.dra_state_jobs_per_type import DraStateJobsPerType  # noqa: PLC0415
        from ..models.gpa_refresh import GpaRefresh  # noqa: PLC0415
        from ..models.migration_tally import MigrationTally  # noqa: PLC0415
        from ..models.tenancy_view import TenancyView  # noqa: PLC0415

        d = dict(src_dict)
        cluster_id = d.pop("cluster_id")

        configuration_search = ConfigurationSearch.from_dict(d.pop("configuration_search"))

        configurations = []
        _configurations = d.pop("configurations")
        for configurations_item_data in _configurations:
            configurations_item = DraConfiguration.from_dict(configurations_item_data)

            configurations.append(configurations_item)

        free_slots_in_accept_group = DraStateFreeSlotsInAcceptGroup.from_dict(d.pop("free_slots_in_accept_group"))

        g = d.pop("g")

        gpa_refresh = GpaRefresh.from_dict(d.pop("gpa_refresh"))

        istar = d.pop("istar")

        jobs = d.pop("jobs")

        jobs_per_type = DraStateJobsPerType.from_dict(d.pop("jobs_per_type"))

        migration_tally = MigrationTally.from_dict(d.pop("migration_tally"))

        migrations = DraStateMigrations(d.pop("migrations"))

        policy = cast(Literal["dra"], d.pop("policy"))
        if policy != "dra":
            raise ValueError(f"policy must match const 'dra', got '{policy}'")

        preemption = DraStatePreemption(d.pop("preemption"))

        preemptions = d.pop("preemptions")

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

        dra_state = cls(
            cluster_id=cluster_id,
            configuration_search=configuration_search,
            configurations=configurations,
            free_slots_in_accept_group=free_slots_in_accept_group,
            g=g,
            gpa_refresh=gpa_refresh,
            istar=istar,
            jobs=jobs,
            jobs_per_type=jobs_per_type,
            migration_tally=migration_tally,
            migrations=migrations,
            policy=policy,
            preemption=preemption,
            preemptions=preemptions,
            reward_rate=reward_rate,
            servers=servers,
            version=version,
            tenancy=tenancy,
        )

        return dra_state
