from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="TenantPreemption")


@_attrs_define
class TenantPreemption:
    """
    Attributes:
        reclaim (bool | Unset): An arrival that keeps the tenant within its nominal quota may preempt the jobs of cohort
            tenants that borrow. Default: True.
        within_tenant (bool | Unset): A job may preempt the tenant's own jobs of lower priority. Default: True.
    """

    reclaim: bool | Unset = True
    within_tenant: bool | Unset = True

    def to_dict(self) -> dict[str, Any]:
        reclaim = self.reclaim

        within_tenant = self.within_tenant

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if reclaim is not UNSET:
            field_dict["reclaim"] = reclaim
        if within_tenant is not UNSET:
            field_dict["within_tenant"] = within_tenant

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        reclaim = d.pop("reclaim", UNSET)

        within_tenant = d.pop("within_tenant", UNSET)

        tenant_preemption = cls(
            reclaim=reclaim,
            within_tenant=within_tenant,
        )

        return tenant_preemption
