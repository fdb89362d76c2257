from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.server_summary_group_type_0 import ServerSummaryGroupType0
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.server_summary_configuration_type_0 import ServerSummaryConfigurationType0
    from ..models.server_summary_jobs_per_type import ServerSummaryJobsPerType


T = TypeVar("T", bound="ServerSummary")


@_attrs_define
class ServerSummary:
    """
    Attributes:
        fill (float): The fullest dimension's used / capacity, 0 to 1.
        jobs (int):
        jobs_per_type (ServerSummaryJobsPerType):
        pool (str):
        server_id (str):
        configuration (None | ServerSummaryConfigurationType0 | Unset): DRA only: the server's configuration (slots per
            job type).
        group (None | ServerSummaryGroupType0 | Unset): DRA only: whether it is in its configuration's Accept Group.
        rank (int | None | Unset): DRA only: its configuration's rank in GPA.
    """

    fill: float
    jobs: int
    jobs_per_type: ServerSummaryJobsPerType
    pool: str
    server_id: str
    configuration: None | ServerSummaryConfigurationType0 | Unset = UNSET
    group: None | ServerSummaryGroupType0 | Unset = UNSET
    rank: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.server_summary_configuration_type_0 import ServerSummaryConfigurationType0  # noqa: PLC0415

        fill = self.fill

        jobs = self.jobs

        jobs_per_type = self.jobs_per_type.to_dict()

        pool = self.pool

        server_id = self.server_id

        configuration: dict[str, Any] | None | Unset
        if isinstance(self.configuration, Unset):
            configuration = UNSET
        elif isinstance(self.configuration, ServerSummaryConfigurationType0):
            configuration = self.configuration.to_dict()
        else:
            configuration = self.configuration

        group: None | str | Unset
        if isinstance(self.group, Unset):
            group = UNSET
        elif isinstance(self.group, ServerSummaryGroupType0):
            group = self.group.value
        else:
            group = self.group

        rank: int | None | Unset
        if isinstance(self.rank, Unset):
            rank = UNSET
        else:
            rank = self.rank

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "fill": fill,
                "jobs": jobs,
                "jobs_per_type": jobs_per_type,
                "pool": pool,
                "server_id": server_id,
            }
        )
        if configuration is not UNSET:
            field_dict["configuration"] = configuration
        if group is not UNSET:
            field_dict["group"] = group
        if rank is not UNSET:
            field_dict["rank"] = rank

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.server_summary_configuration_type_0 import ServerSummaryConfigurationType0  # noqa: PLC0415
        from ..models.server_summary_jobs_per_type import ServerSummaryJobsPerType  # noqa: PLC0415

        d = dict(src_dict)
        fill = d.pop("fill")

        jobs = d.pop("jobs")

        jobs_per_type = ServerSummaryJobsPerType.from_dict(d.pop("jobs_per_type"))

        pool = d.pop("pool")

        server_id = d.pop("server_id")

        def _parse_configuration(data: object) -> None | ServerSummaryConfigurationType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                configuration_type_0 = ServerSummaryConfigurationType0.from_dict(data)

                return configuration_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ServerSummaryConfigurationType0 | Unset, data)

        configuration = _parse_configuration(d.pop("configuration", UNSET))

        def _parse_group(data: object) -> None | ServerSummaryGroupType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                group_type_0 = ServerSummaryGroupType0(data)

                return group_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ServerSummaryGroupType0 | Unset, data)

        group = _parse_group(d.pop("group", UNSET))

        def _parse_rank(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        rank = _parse_rank(d.pop("rank", UNSET))

        server_summary = cls(
            fill=fill,
            jobs=jobs,
            jobs_per_type=jobs_per_type,
            pool=pool,
            server_id=server_id,
            configuration=configuration,
            group=group,
            rank=rank,
        )

        server_summary.additional_properties = d
        return server_summary

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
