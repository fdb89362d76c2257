from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.admissible_view import AdmissibleView
    from ..models.cluster_out_job_types_type_0_item import ClusterOutJobTypesType0Item
    from ..models.cluster_out_policy import ClusterOutPolicy
    from ..models.cluster_out_server_pools_type_0_item import ClusterOutServerPoolsType0Item
    from ..models.cluster_out_tenants_type_0_item import ClusterOutTenantsType0Item


T = TypeVar("T", bound="ClusterOut")


@_attrs_define
class ClusterOut:
    """
    Attributes:
        created_at (datetime.datetime):
        family (str): The policy family of its kind (placement, queues, moments): which routes serve the cluster.
        generation (int): Changes with every admin update; use as If-Match.
        id (str):
        name (str):
        owner (str): The owner of the API key that declared it.
        policy (ClusterOutPolicy):
        updated_at (datetime.datetime):
        version (int): Number of events applied so far.
        admissible (AdmissibleView | None | Unset): Moment clusters, in the creation answer and a dry run: what the
            empty cluster can admit (GET .../state has it for the cluster as it is now); null for other families and where
            no engine is read (GET, list, rename).
        capacity_cores (int | None | Unset):
        dimensions (list[str] | None | Unset):
        job_types (list[ClusterOutJobTypesType0Item] | None | Unset):
        seed (int | None | Unset):
        server_pools (list[ClusterOutServerPoolsType0Item] | None | Unset):
        sla (float | None | Unset):
        tenants (list[ClusterOutTenantsType0Item] | None | Unset): The tenants as declared; a change of quotas since is
            in `GET .../state`.
    """

    created_at: datetime.datetime
    family: str
    generation: int
    id: str
    name: str
    owner: str
    policy: ClusterOutPolicy
    updated_at: datetime.datetime
    version: int
    admissible: AdmissibleView | None | Unset = UNSET
    capacity_cores: int | None | Unset = UNSET
    dimensions: list[str] | None | Unset = UNSET
    job_types: list[ClusterOutJobTypesType0Item] | None | Unset = UNSET
    seed: int | None | Unset = UNSET
    server_pools: list[ClusterOutServerPoolsType0Item] | None | Unset = UNSET
    sla: float | None | Unset = UNSET
    tenants: list[ClusterOutTenantsType0Item] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.admissible_view import AdmissibleView  # noqa: PLC0415

        created_at = self.created_at.isoformat()

        family = self.family

        generation = self.generation

        id = self.id

        name = self.name

        owner = self.owner

        policy = self.policy.to_dict()

        updated_at = self.updated_at.isoformat()

        version = self.version

        admissible: dict[str, Any] | None | Unset
        if isinstance(self.admissible, Unset):
            admissible = UNSET
        elif isinstance(self.admissible, AdmissibleView):
            admissible = self.admissible.to_dict()
        else:
            admissible = self.admissible

        capacity_cores: int | None | Unset
        if isinstance(self.capacity_cores, Unset):
            capacity_cores = UNSET
        else:
            capacity_cores = self.capacity_cores

        dimensions: list[str] | None | Unset
        if isinstance(self.dimensions, Unset):
            dimensions = UNSET
        elif isinstance(self.dimensions, list):
            dimensions = self.dimensions

        else:
            dimensions = self.dimensions

        job_types: list[dict[str, Any]] | None | Unset
        if isinstance(self.job_types, Unset):
            job_types = UNSET
        elif isinstance(self.job_types, list):
            job_types = []
            for job_types_type_0_item_data in self.job_types:
                job_types_type_0_item = job_types_type_0_item_data.to_dict()
                job_types.append(job_types_type_0_item)

        else:
            job_types = self.job_types

        seed: int | None | Unset
        if isinstance(self.seed, Unset):
            seed = UNSET
        else:
            seed = self.seed

        server_pools: list[dict[str, Any]] | None | Unset
        if isinstance(self.server_pools, Unset):
            server_pools = UNSET
        elif isinstance(self.server_pools, list):
            server_pools = []
            for server_pools_type_0_item_data in self.server_pools:
                server_pools_type_0_item = server_pools_type_0_item_data.to_dict()
                server_pools.append(server_pools_type_0_item)

        else:
            server_pools = self.server_pools

        sla: float | None | Unset
        if isinstance(self.sla, Unset):
            sla = UNSET
        else:
            sla = self.sla

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
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "family": family,
                "generation": generation,
                "id": id,
                "name": name,
                "owner": owner,
                "policy": policy,
                "updated_at": updated_at,
                "version": version,
            }
        )
        if admissible is not UNSET:
            field_dict["admissible"] = admissible
        if capacity_cores is not UNSET:
            field_dict["capacity_cores"] = capacity_cores
        if dimensions is not UNSET:
            field_dict["dimensions"] = dimensions
        if job_types is not UNSET:
            field_dict["job_types"] = job_types
        if seed is not UNSET:
            field_dict["seed"] = seed
        if server_pools is not UNSET:
            field_dict["server_pools"] = server_pools
        if sla is not UNSET:
            field_dict["sla"] = sla
        if tenants is not UNSET:
            field_dict["tenants"] = tenants

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.admissible_view import AdmissibleView  # noqa: PLC0415
        from ..models.cluster_out_job_types_type_0_item import ClusterOutJobTypesType0Item  # noqa: PLC0415
        from ..models.cluster_out_policy import ClusterOutPolicy  # noqa: PLC0415
        from ..models.cluster_out_server_pools_type_0_item import ClusterOutServerPoolsType0Item  # noqa: PLC0415
        from ..models.cluster_out_tenants_type_0_item import ClusterOutTenantsType0Item  # noqa: PLC0415

        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        family = d.pop("family")

        generation = d.pop("generation")

        id = d.pop("id")

        name = d.pop("name")

        owner = d.pop("owner")

        policy = ClusterOutPolicy.from_dict(d.pop("policy"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        version = d.pop("version")

        def _parse_admissible(data: object) -> AdmissibleView | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                admissible_type_0 = AdmissibleView.from_dict(data)

                return admissible_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AdmissibleView | None | Unset, data)

        admissible = _parse_admissible(d.pop("admissible", UNSET))

        def _parse_capacity_cores(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        capacity_cores = _parse_capacity_cores(d.pop("capacity_cores", UNSET))

        def _parse_dimensions(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                dimensions_type_0 = cast(list[str], data)

                return dimensions_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        dimensions = _parse_dimensions(d.pop("dimensions", UNSET))

        def _parse_job_types(data: object) -> list[ClusterOutJobTypesType0Item] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                job_types_type_0 = []
                _job_types_type_0 = data
                for job_types_type_0_item_data in _job_types_type_0:
                    job_types_type_0_item = ClusterOutJobTypesType0Item.from_dict(job_types_type_0_item_data)

                    job_types_type_0.append(job_types_type_0_item)

                return job_types_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ClusterOutJobTypesType0Item] | None | Unset, data)

        job_types = _parse_job_types(d.pop("job_types", UNSET))

        def _parse_seed(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        seed = _parse_seed(d.pop("seed", UNSET))

        def _parse_server_pools(data: object) -> list[ClusterOutServerPoolsType0Item] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                server_pools_type_0 = []
                _server_pools_type_0 = data
                for server_pools_type_0_item_data in _server_pools_type_0:
                    server_pools_type_0_item = ClusterOutServerPoolsType0Item.from_dict(server_pools_type_0_item_data)

                    server_pools_type_0.append(server_pools_type_0_item)

                return server_pools_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ClusterOutServerPoolsType0Item] | None | Unset, data)

        server_pools = _parse_server_pools(d.pop("server_pools", UNSET))

        def _parse_sla(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        sla = _parse_sla(d.pop("sla", UNSET))

        def _parse_tenants(data: object) -> list[ClusterOutTenantsType0Item] | None | Unset:
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
                    tenants_type_0_item = ClusterOutTenantsType0Item.from_dict(tenants_type_0_item_data)

                    tenants_type_0.append(tenants_type_0_item)

                return tenants_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ClusterOutTenantsType0Item] | None | Unset, data)

        tenants = _parse_tenants(d.pop("tenants", UNSET))

        cluster_out = cls(
            created_at=created_at,
            family=family,
            generation=generation,
            id=id,
            name=name,
            owner=owner,
            policy=policy,
            updated_at=updated_at,
            version=version,
            admissible=admissible,
            capacity_cores=capacity_cores,
            dimensions=dimensions,
            job_types=job_types,
            seed=seed,
            server_pools=server_pools,
            sla=sla,
            tenants=tenants,
        )

        cluster_out.additional_properties = d
        return cluster_out

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
