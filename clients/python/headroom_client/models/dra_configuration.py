from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.dra_configuration_configuration import DraConfigurationConfiguration


T = TypeVar("T", bound="DraConfiguration")


@_attrs_define
class DraConfiguration:
    """
    Attributes:
        accept_group (int):
        configuration (DraConfigurationConfiguration): Jobs per type a server of it holds.
        gpa_position (int | None): Its place in the greedy packing (null: not in it).
        gpa_target_servers (int):
        rank (int):
        reject_group (int):
        reward (float):
        servers (int):
    """

    accept_group: int
    configuration: DraConfigurationConfiguration
    gpa_position: int | None
    gpa_target_servers: int
    rank: int
    reject_group: int
    reward: float
    servers: int

    def to_dict(self) -> dict[str, Any]:
        accept_group = self.accept_group

        configuration = self.configuration.to_dict()

        gpa_position: int | None
        gpa_position = self.gpa_position

        gpa_target_servers = self.gpa_target_servers

        rank = self.rank

        reject_group = self.reject_group

        reward = self.reward

        servers = self.servers

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "accept_group": accept_group,
                "configuration": configuration,
                "gpa_position": gpa_position,
                "gpa_target_servers": gpa_target_servers,
                "rank": rank,
                "reject_group": reject_group,
                "reward": reward,
                "servers": servers,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.dra_configuration_configuration import DraConfigurationConfiguration  # noqa: PLC0415

        d = dict(src_dict)
        accept_group = d.pop("accept_group")

        configuration = DraConfigurationConfiguration.from_dict(d.pop("configuration"))

        def _parse_gpa_position(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        gpa_position = _parse_gpa_position(d.pop("gpa_position"))

        gpa_target_servers = d.pop("gpa_target_servers")

        rank = d.pop("rank")

        reject_group = d.pop("reject_group")

        reward = d.pop("reward")

        servers = d.pop("servers")

        dra_configuration = cls(
            accept_group=accept_group,
            configuration=configuration,
            gpa_position=gpa_position,
            gpa_target_servers=gpa_target_servers,
            rank=rank,
            reject_group=reject_group,
            reward=reward,
            servers=servers,
        )

        return dra_configuration
