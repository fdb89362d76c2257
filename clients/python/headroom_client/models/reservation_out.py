from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.reservation_out_initial_type_0 import ReservationOutInitialType0
    from ..models.reservation_out_policy import ReservationOutPolicy
    from ..models.reservation_out_resources_item import ReservationOutResourcesItem
    from ..models.reservation_out_state_type_0 import ReservationOutStateType0


T = TypeVar("T", bound="ReservationOut")


@_attrs_define
class ReservationOut:
    """
    Attributes:
        created_at (datetime.datetime):
        generation (int):
        id (str):
        initial (None | ReservationOutInitialType0):
        name (str):
        owner (str):
        policy (ReservationOutPolicy):
        resources (list[ReservationOutResourcesItem]):
        updated_at (datetime.datetime):
        version (int):
        state (None | ReservationOutStateType0 | Unset): Reservation in force, violation rate vs ε, queues, cost so far.
    """

    created_at: datetime.datetime
    generation: int
    id: str
    initial: None | ReservationOutInitialType0
    name: str
    owner: str
    policy: ReservationOutPolicy
    resources: list[ReservationOutResourcesItem]
    updated_at: datetime.datetime
    version: int
    state: None | ReservationOutStateType0 | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.reservation_out_initial_type_0 import ReservationOutInitialType0  # noqa: PLC0415
        from ..models.reservation_out_state_type_0 import ReservationOutStateType0  # noqa: PLC0415

        created_at = self.created_at.isoformat()

        generation = self.generation

        id = self.id

        initial: dict[str, Any] | None
        if isinstance(self.initial, ReservationOutInitialType0):
            initial = self.initial.to_dict()
        else:
            initial = self.initial

        name = self.name

        owner = self.owner

        policy = self.policy.to_dict()

        resources = []
        for resources_item_data in self.resources:
            resources_item = resources_item_data.to_dict()
            resources.append(resources_item)

        updated_at = self.updated_at.isoformat()

        version = self.version

        state: dict[str, Any] | None | Unset
        if isinstance(self.state, Unset):
            state = UNSET
        elif isinstance(self.state, ReservationOutStateType0):
            state = self.state.to_dict()
        else:
            state = self.state

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "generation": generation,
                "id": id,
                "initial": initial,
                "name": name,
                "owner": owner,
                "policy": policy,
                "resources": resources,
                "updated_at": updated_at,
                "version": version,
            }
        )
        if state is not UNSET:
            field_dict["state"] = state

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.reservation_out_initial_type_0 import ReservationOutInitialType0  # noqa: PLC0415
        from ..models.reservation_out_policy import ReservationOutPolicy  # noqa: PLC0415
        from ..models.reservation_out_resources_item import ReservationOutResourcesItem  # noqa: PLC0415
        from ..models.reservation_out_state_type_0 import ReservationOutStateType0  # noqa: PLC0415

        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        generation = d.pop("generation")

        id = d.pop("id")

        def _parse_initial(data: object) -> None | ReservationOutInitialType0:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                initial_type_0 = ReservationOutInitialType0.from_dict(data)

                return initial_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ReservationOutInitialType0, data)

        initial = _parse_initial(d.pop("initial"))

        name = d.pop("name")

        owner = d.pop("owner")

        policy = ReservationOutPolicy.from_dict(d.pop("policy"))

        resources = []
        _resources = d.pop("resources")
        for resources_item_data in _resources:
            resources_item = ReservationOutResourcesItem.from_dict(resources_item_data)

            resources.append(resources_item)

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        version = d.pop("version")

        def _parse_state(data: object) -> None | ReservationOutStateType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                state_type_0 = ReservationOutStateType0.from_dict(data)

                return state_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ReservationOutStateType0 | Unset, data)

        state = _parse_state(d.pop("state", UNSET))

        reservation_out = cls(
            created_at=created_at,
            generation=generation,
            id=id,
            initial=initial,
            name=name,
            owner=owner,
            policy=policy,
            resources=resources,
            updated_at=updated_at,
            version=version,
            state=state,
        )

        reservation_out.additional_properties = d
        return reservation_out

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
