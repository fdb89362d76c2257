from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.server_view_group_type_0 import ServerViewGroupType0
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.server_view_capacity import ServerViewCapacity
    from ..models.server_view_configuration_type_0 import ServerViewConfigurationType0
    from ..models.server_view_jobs_per_type import ServerViewJobsPerType
    from ..models.server_view_used import ServerViewUsed


T = TypeVar("T", bound="ServerView")


@_attrs_define
class ServerView:
    """
    Attributes:
        capacity (ServerViewCapacity):
        jobs (list[str]):
        jobs_per_type (ServerViewJobsPerType):
        pool (str):
        server_id (str):
        used (ServerViewUsed):
        configuration (None | ServerViewConfigurationType0 | Unset): DRA: the server's configuration.
        group (None | ServerViewGroupType0 | Unset):
        index (int | None | Unset):
        rank (int | None | Unset):
    """

    capacity: ServerViewCapacity
    jobs: list[str]
    jobs_per_type: ServerViewJobsPerType
    pool: str
    server_id: str
    used: ServerViewUsed
    configuration: None | ServerViewConfigurationType0 | Unset = UNSET
    group: None | ServerViewGroupType0 | Unset = UNSET
    index: int | None | Unset = UNSET
    rank: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.server_view_configuration_type_0 import ServerViewConfigurationType0  # noqa: PLC0415

        capacity = self.capacity.to_dict()

        jobs = self.jobs

        jobs_per_type = self.jobs_per_type.to_dict()

        pool = self.pool

        server_id = self.server_id

        used = self.used.to_dict()

        configuration: dict[str, Any] | None | Unset
        if isinstance(self.configuration, Unset):
            configuration = UNSET
        elif isinstance(self.configuration, ServerViewConfigurationType0):
            configuration = self.configuration.to_dict()
        else:
            configuration = self.configuration

        group: None | str | Unset
        if isinstance(self.group, Unset):
            group = UNSET
        elif isinstance(self.group, ServerViewGroupType0):
            group = self.group.value
        else:
            group = self.group

        index: int | None | Unset
        if isinstance(self.index, Unset):
            index = UNSET
        else:
            index = self.index

        rank: int | None | Unset
        if isinstance(self.rank, Unset):
            rank = UNSET
        else:
            rank = self.rank

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "capacity": capacity,
                "jobs": jobs,
                "jobs_per_type": jobs_per_type,
                "pool": pool,
                "server_id": server_id,
                "used": used,
            }
        )
        if configuration is not UNSET:
            field_dict["configuration"] = configuration
        if group is not UNSET:
            field_dict["group"] = group
        if index is not UNSET:
            field_dict["index"] = index
        if rank is not UNSET:
            field_dict["rank"] = rank

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.server_view_capacity import ServerViewCapacity  # noqa: PLC0415
        from ..models.server_view_configuration_type_0 import ServerViewConfigurationType0  # noqa: PLC0415
        from ..models.server_view_jobs_per_type import ServerViewJobsPerType  # noqa: PLC0415
        from ..models.server_view_used import ServerViewUsed  # noqa: PLC0415

        d = dict(src_dict)
        capacity = ServerViewCapacity.from_dict(d.pop("capacity"))

        jobs = cast(list[str], d.pop("jobs"))

        jobs_per_type = ServerViewJobsPerType.from_dict(d.pop("jobs_per_type"))

        pool = d.pop("pool")

        server_id = d.pop("server_id")

        used = ServerViewUsed.from_dict(d.pop("used"))

        def _parse_configuration(data: object) -> None | ServerViewConfigurationType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                configuration_type_0 = ServerViewConfigurationType0.from_dict(data)

                return configuration_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ServerViewConfigurationType0 | Unset, data)

        configuration = _parse_configuration(d.pop("configuration", UNSET))

        def _parse_group(data: object) -> None | ServerViewGroupType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                group_type_0 = ServerViewGroupType0(data)

                return group_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ServerViewGroupType0 | Unset, data)

        group = _parse_group(d.pop("group", UNSET))

        def _parse_index(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        index = _parse_index(d.pop("index", UNSET))

        def _parse_rank(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        rank = _parse_rank(d.pop("rank", UNSET))

        server_view = cls(
            capacity=capacity,
            jobs=jobs,
            jobs_per_type=jobs_per_type,
            pool=pool,
            server_id=server_id,
            used=used,
            configuration=configuration,
            group=group,
            index=index,
            rank=rank,
        )

        return server_view
