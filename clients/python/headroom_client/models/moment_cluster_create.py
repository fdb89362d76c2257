from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.moment_policy import MomentPolicy
    from ..models.tenant_in import TenantIn


T = TypeVar("T", bound="MomentClusterCreate")


@_attrs_define
class MomentClusterCreate:
    """
    Attributes:
        capacity_cores (int):
        name (str):
        policy (MomentPolicy):
        sla (float | Unset): Target scale-out failure rate τ: sets the derived threshold and the closed loop's target.
            Default: 0.0001.
        tenants (list[TenantIn] | None | Unset): The tenants its deployments run for, with quotas in cores (every vector
            is {"cores": n}; docs/tenants.md); none: one anonymous stream of deployments.
    """

    capacity_cores: int
    name: str
    policy: MomentPolicy
    sla: float | Unset = 0.0001
    tenants: list[TenantIn] | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        capacity_cores = self.capacity_cores

        name = self.name

        policy = self.policy.to_dict()

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

        field_dict.update(
            {
                "capacity_cores": capacity_cores,
                "name": name,
                "policy": policy,
            }
        )
        if sla is not UNSET:
            field_dict["sla"] = sla
        if tenants is not UNSET:
            field_dict["tenants"] = tenants

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.moment_policy import MomentPolicy  # noqa: PLC0415
        from ..models.tenant_in import TenantIn  # noqa: PLC0415

        d = dict(src_dict)
        capacity_cores = d.pop("capacity_cores")

        name = d.pop("name")

        policy = MomentPolicy.from_dict(d.pop("policy"))

        sla = d.pop("sla", UNSET)

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

        moment_cluster_create = cls(
            capacity_cores=capacity_cores,
            name=name,
            policy=policy,
            sla=sla,
            tenants=tenants,
        )

        return moment_cluster_create
