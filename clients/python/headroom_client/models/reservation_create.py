from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.reservation_create_initial_type_0 import ReservationCreateInitialType0
    from ..models.reservation_policy import ReservationPolicy
    from ..models.resource_in import ResourceIn


T = TypeVar("T", bound="ReservationCreate")


@_attrs_define
class ReservationCreate:
    """
    Attributes:
        name (str):
        resources (list[ResourceIn]):
        initial (None | ReservationCreateInitialType0 | Unset): Reservation in force for the first period (default:
            nothing).
        policy (ReservationPolicy | Unset):
    """

    name: str
    resources: list[ResourceIn]
    initial: None | ReservationCreateInitialType0 | Unset = UNSET
    policy: ReservationPolicy | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.reservation_create_initial_type_0 import ReservationCreateInitialType0  # noqa: PLC0415

        name = self.name

        resources = []
        for resources_item_data in self.resources:
            resources_item = resources_item_data.to_dict()
            resources.append(resources_item)

        initial: dict[str, Any] | None | Unset
        if isinstance(self.initial, Unset):
            initial = UNSET
        elif isinstance(self.initial, ReservationCreateInitialType0):
            initial = self.initial.to_dict()
        else:
            initial = self.initial

        policy: dict[str, Any] | Unset = UNSET
        if not isinstance(self.policy, Unset):
            policy = self.policy.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
                "resources": resources,
            }
        )
        if initial is not UNSET:
            field_dict["initial"] = initial
        if policy is not UNSET:
            field_dict["policy"] = policy

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.reservation_create_initial_type_0 import ReservationCreateInitialType0  # noqa: PLC0415
        from ..models.reservation_policy import ReservationPolicy  # noqa: PLC0415
        from ..models.resource_in import ResourceIn  # noqa: PLC0415

        d = dict(src_dict)
        name = d.pop("name")

        resources = []
        _resources = d.pop("resources")
        for resources_item_data in _resources:
            resources_item = ResourceIn.from_dict(resources_item_data)

            resources.append(resources_item)

        def _parse_initial(data: object) -> None | ReservationCreateInitialType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                initial_type_0 = ReservationCreateInitialType0.from_dict(data)

                return initial_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ReservationCreateInitialType0 | Unset, data)

        initial = _parse_initial(d.pop("initial", UNSET))

        _policy = d.pop("policy", UNSET)
        policy: ReservationPolicy | Unset
        if isinstance(_policy, Unset):
            policy = UNSET
        else:
            policy = ReservationPolicy.from_dict(_policy)

        reservation_create = cls(
            name=name,
            resources=resources,
            initial=initial,
            policy=policy,
        )

        return reservation_create
