from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.tenant_in_borrowing_limit_type_0 import TenantInBorrowingLimitType0
    from ..models.tenant_in_lending_limit_type_0 import TenantInLendingLimitType0
    from ..models.tenant_in_nominal import TenantInNominal
    from ..models.tenant_preemption import TenantPreemption


T = TypeVar("T", bound="TenantIn")


@_attrs_define
class TenantIn:
    """Vectors are keyed by the cluster's dimensions (every one, no other).

    Attributes:
        name (str):
        nominal (TenantInNominal): The quota the tenant is guaranteed.
        borrowing_limit (None | TenantInBorrowingLimitType0 | Unset): At most this much beyond nominal, borrowed from
            the cohort; none: no limit but the cohort's unused quota.
        cohort (None | str | Unset): Tenants of one cohort lend each other their unused nominal quota; none: the tenant
            has its nominal quota only.
        lending_limit (None | TenantInLendingLimitType0 | Unset): At most this much of its unused nominal quota is lent
            to the cohort; none: all of it.
        preemption (TenantPreemption | Unset):
        weight (float | Unset): Fair-sharing weight: a tenant's dominant share is divided by it. Default: 1.0.
    """

    name: str
    nominal: TenantInNominal
    borrowing_limit: None | TenantInBorrowingLimitType0 | Unset = UNSET
    cohort: None | str | Unset = UNSET
    lending_limit: None | TenantInLendingLimitType0 | Unset = UNSET
    preemption: TenantPreemption | Unset = UNSET
    weight: float | Unset = 1.0

    def to_dict(self) -> dict[str, Any]:
        from ..models.tenant_in_borrowing_limit_type_0 import TenantInBorrowingLimitType0  # noqa: PLC0415
        from ..models.tenant_in_lending_limit_type_0 import TenantInLendingLimitType0  # noqa: PLC0415

        name = self.name

        nominal = self.nominal.to_dict()

        borrowing_limit: dict[str, Any] | None | Unset
        if isinstance(self.borrowing_limit, Unset):
            borrowing_limit = UNSET
        elif isinstance(self.borrowing_limit, TenantInBorrowingLimitType0):
            borrowing_limit = self.borrowing_limit.to_dict()
        else:
            borrowing_limit = self.borrowing_limit

        cohort: None | str | Unset
        if isinstance(self.cohort, Unset):
            cohort = UNSET
        else:
            cohort = self.cohort

        lending_limit: dict[str, Any] | None | Unset
        if isinstance(self.lending_limit, Unset):
            lending_limit = UNSET
        elif isinstance(self.lending_limit, TenantInLendingLimitType0):
            lending_limit = self.lending_limit.to_dict()
        else:
            lending_limit = self.lending_limit

        preemption: dict[str, Any] | Unset = UNSET
        if not isinstance(self.preemption, Unset):
            preemption = self.preemption.to_dict()

        weight = self.weight

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
                "nominal": nominal,
            }
        )
        if borrowing_limit is not UNSET:
            field_dict["borrowing_limit"] = borrowing_limit
        if cohort is not UNSET:
            field_dict["cohort"] = cohort
        if lending_limit is not UNSET:
            field_dict["lending_limit"] = lending_limit
        if preemption is not UNSET:
            field_dict["preemption"] = preemption
        if weight is not UNSET:
            field_dict["weight"] = weight

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.tenant_in_borrowing_limit_type_0 import TenantInBorrowingLimitType0  # noqa: PLC0415
        from ..models.tenant_in_lending_limit_type_0 import TenantInLendingLimitType0  # noqa: PLC0415
        from ..models.tenant_in_nominal import TenantInNominal  # noqa: PLC0415
        from ..models.tenant_preemption import TenantPreemption  # noqa: PLC0415

        d = dict(src_dict)
        name = d.pop("name")

        nominal = TenantInNominal.from_dict(d.pop("nominal"))

        def _parse_borrowing_limit(data: object) -> None | TenantInBorrowingLimitType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                borrowing_limit_type_0 = TenantInBorrowingLimitType0.from_dict(data)

                return borrowing_limit_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TenantInBorrowingLimitType0 | Unset, data)

        borrowing_limit = _parse_borrowing_limit(d.pop("borrowing_limit", UNSET))

        def _parse_cohort(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        cohort = _parse_cohort(d.pop("cohort", UNSET))

        def _parse_lending_limit(data: object) -> None | TenantInLendingLimitType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                lending_limit_type_0 = TenantInLendingLimitType0.from_dict(data)

                return lending_limit_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TenantInLendingLimitType0 | Unset, data)

        lending_limit = _parse_lending_limit(d.pop("lending_limit", UNSET))

        _preemption = d.pop("preemption", UNSET)
        preemption: TenantPreemption | Unset
        if isinstance(_preemption, Unset):
            preemption = UNSET
        else:
            preemption = TenantPreemption.from_dict(_preemption)

        weight = d.pop("weight", UNSET)

        tenant_in = cls(
            name=name,
            nominal=nominal,
            borrowing_limit=borrowing_limit,
            cohort=cohort,
            lending_limit=lending_limit,
            preemption=preemption,
            weight=weight,
        )

        return tenant_in
