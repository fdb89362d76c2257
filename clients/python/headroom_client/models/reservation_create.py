from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.ftl_policy import FtlPolicy
    from ..models.percentile_policy import PercentilePolicy
    from ..models.quantile_tracking_policy import QuantileTrackingPolicy
    from ..models.reservation_create_initial_type_0 import ReservationCreateInitialType0
    from ..models.resource_in import ResourceIn
    from ..models.thor_policy import ThorPolicy


T = TypeVar("T", bound="ReservationCreate")


@_attrs_define
class ReservationCreate:
    """
    Attributes:
        name (str):
        resources (list[ResourceIn]):
        initial (None | ReservationCreateInitialType0 | Unset): Reservation in force for the first period (default:
            nothing).
        policy (FtlPolicy | PercentilePolicy | QuantileTrackingPolicy | ThorPolicy | Unset):
    """

    name: str
    resources: list[ResourceIn]
    initial: None | ReservationCreateInitialType0 | Unset = UNSET
    policy: FtlPolicy | PercentilePolicy | QuantileTrackingPolicy | ThorPolicy | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.ftl_policy import FtlPolicy  # noqa: PLC0415
        from ..models.quantile_tracking_policy import QuantileTrackingPolicy  # noqa: PLC0415
        from ..models.reservation_create_initial_type_0 import ReservationCreateInitialType0  # noqa: PLC0415
        from ..models.thor_policy import ThorPolicy  # noqa: PLC0415

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

        policy: dict[str, Any] | Unset
        if isinstance(self.policy, Unset):
            policy = UNSET
        elif isinstance(self.policy, QuantileTrackingPolicy):
            policy = self.policy.to_dict()
        elif isinstance(self.policy, ThorPolicy):
            policy = self.policy.to_dict()
        elif isinstance(self.policy, FtlPolicy):
            policy = self.policy.to_dict()
        else:
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
        from ..models.ftl_policy import FtlPolicy  # noqa: PLC0415
        from ..models.percentile_policy import PercentilePolicy  # noqa: PLC0415
        from ..models.quantile_tracking_policy import QuantileTrackingPolicy  # noqa: PLC0415
        from ..models.reservation_create_initial_type_0 import ReservationCreateInitialType0  # noqa: PLC0415
        from ..models.resource_in import ResourceIn  # noqa: PLC0415
        from ..models.thor_policy import ThorPolicy  # noqa: PLC0415

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

        def _parse_policy(data: object) -> FtlPolicy | PercentilePolicy | QuantileTrackingPolicy | ThorPolicy | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                policy_type_0 = QuantileTrackingPolicy.from_dict(data)

                return policy_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                policy_type_1 = ThorPolicy.from_dict(data)

                return policy_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                policy_type_2 = FtlPolicy.from_dict(data)

                return policy_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            policy_type_3 = PercentilePolicy.from_dict(data)

            return policy_type_3

        policy = _parse_policy(d.pop("policy", UNSET))

        reservation_create = cls(
            name=name,
            resources=resources,
            initial=initial,
            policy=policy,
        )

        return reservation_create
