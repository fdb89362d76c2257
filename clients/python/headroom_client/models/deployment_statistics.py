from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="DeploymentStatistics")


@_attrs_define
class DeploymentStatistics:
    """
    Attributes:
        age_time (float):
        arrival_extra_cores (float):
        core_deaths (float):
        core_time (float):
        extra_cores (float):
        scaleout_time (float):
        scaleouts (float):
        shutdowns (float):
        sized_arrivals (float):
    """

    age_time: float
    arrival_extra_cores: float
    core_deaths: float
    core_time: float
    extra_cores: float
    scaleout_time: float
    scaleouts: float
    shutdowns: float
    sized_arrivals: float

    def to_dict(self) -> dict[str, Any]:
        age_time = self.age_time

        arrival_extra_cores = self.arrival_extra_cores

        core_deaths = self.core_deaths

        core_time = self.core_time

        extra_cores = self.extra_cores

        scaleout_time = self.scaleout_time

        scaleouts = self.scaleouts

        shutdowns = self.shutdowns

        sized_arrivals = self.sized_arrivals

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "age_time": age_time,
                "arrival_extra_cores": arrival_extra_cores,
                "core_deaths": core_deaths,
                "core_time": core_time,
                "extra_cores": extra_cores,
                "scaleout_time": scaleout_time,
                "scaleouts": scaleouts,
                "shutdowns": shutdowns,
                "sized_arrivals": sized_arrivals,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        age_time = d.pop("age_time")

        arrival_extra_cores = d.pop("arrival_extra_cores")

        core_deaths = d.pop("core_deaths")

        core_time = d.pop("core_time")

        extra_cores = d.pop("extra_cores")

        scaleout_time = d.pop("scaleout_time")

        scaleouts = d.pop("scaleouts")

        shutdowns = d.pop("shutdowns")

        sized_arrivals = d.pop("sized_arrivals")

        deployment_statistics = cls(
            age_time=age_time,
            arrival_extra_cores=arrival_extra_cores,
            core_deaths=core_deaths,
            core_time=core_time,
            extra_cores=extra_cores,
            scaleout_time=scaleout_time,
            scaleouts=scaleouts,
            shutdowns=shutdowns,
            sized_arrivals=sized_arrivals,
        )

        return deployment_statistics
