from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.tenant_view_borrowed import TenantViewBorrowed
    from ..models.tenant_view_nominal import TenantViewNominal
    from ..models.tenant_view_usage import TenantViewUsage


T = TypeVar("T", bound="TenantView")


@_attrs_define
class TenantView:
    """
    Attributes:
        borrowed (TenantViewBorrowed):
        cohort (None | str):
        declared (bool): False for a tenant a quota change removed while its jobs still run.
        dominant_share (float): Its fair-sharing value: what it borrows of the cohort's lendable quota, on the resource
            where that is most, over its weight; 0 within its nominal quota.
        jobs (int):
        name (str):
        nominal (TenantViewNominal):
        preempted (int): Its jobs preempted so far.
        refused (int): Its arrivals and gangs refused so far.
        usage (TenantViewUsage):
        weight (float | None):
        waiting (int | None | Unset): Queued clusters: its jobs waiting for quota.
    """

    borrowed: TenantViewBorrowed
    cohort: None | str
    declared: bool
    dominant_share: float
    jobs: int
    name: str
    nominal: TenantViewNominal
    preempted: int
    refused: int
    usage: TenantViewUsage
    weight: float | None
    waiting: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        borrowed = self.borrowed.to_dict()

        cohort: None | str
        cohort = self.cohort

        declared = self.declared

        dominant_share = self.dominant_share

        jobs = self.jobs

        name = self.name

        nominal = self.nominal.to_dict()

        preempted = self.preempted

        refused = self.refused

        usage = self.usage.to_dict()

        weight: float | None
        weight = self.weight

        waiting: int | None | Unset
        if isinstance(self.waiting, Unset):
            waiting = UNSET
        else:
            waiting = self.waiting

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "borrowed": borrowed,
                "cohort": cohort,
                "declared": declared,
                "dominant_share": dominant_share,
                "jobs": jobs,
                "name": name,
                "nominal": nominal,
                "preempted": preempted,
                "refused": refused,
                "usage": usage,
                "weight": weight,
            }
        )
        if waiting is not UNSET:
            field_dict["waiting"] = waiting

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.tenant_view_borrowed import TenantViewBorrowed  # noqa: PLC0415
        from ..models.tenant_view_nominal import TenantViewNominal  # noqa: PLC0415
        from ..models.tenant_view_usage import TenantViewUsage  # noqa: PLC0415

        d = dict(src_dict)
        borrowed = TenantViewBorrowed.from_dict(d.pop("borrowed"))

        def _parse_cohort(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        cohort = _parse_cohort(d.pop("cohort"))

        declared = d.pop("declared")

        dominant_share = d.pop("dominant_share")

        jobs = d.pop("jobs")

        name = d.pop("name")

        nominal = TenantViewNominal.from_dict(d.pop("nominal"))

        preempted = d.pop("preempted")

        refused = d.pop("refused")

        usage = TenantViewUsage.from_dict(d.pop("usage"))

        def _parse_weight(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        weight = _parse_weight(d.pop("weight"))

        def _parse_waiting(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        waiting = _parse_waiting(d.pop("waiting", UNSET))

        tenant_view = cls(
            borrowed=borrowed,
            cohort=cohort,
            declared=declared,
            dominant_share=dominant_share,
            jobs=jobs,
            name=name,
            nominal=nominal,
            preempted=preempted,
            refused=refused,
            usage=usage,
            weight=weight,
            waiting=waiting,
        )

        tenant_view.additional_properties = d
        return tenant_view

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
