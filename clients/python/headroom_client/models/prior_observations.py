from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="PriorObservations")


@_attrs_define
class PriorObservations:
    """Pseudo-observations added to the deployment's statistics (§6 fn. 13).

    Attributes:
        age_time (float | Unset): Hours alive. Default: 0.0.
        core_deaths (float | Unset):  Default: 0.0.
        core_time (float | Unset): Core-hours. Default: 0.0.
        extra_cores (float | Unset):  Default: 0.0.
        scaleout_time (float | Unset): Hours of scale-out counting. Default: 0.0.
        scaleouts (float | Unset):  Default: 0.0.
        shutdowns (float | Unset):  Default: 0.0.
    """

    age_time: float | Unset = 0.0
    core_deaths: float | Unset = 0.0
    core_time: float | Unset = 0.0
    extra_cores: float | Unset = 0.0
    scaleout_time: float | Unset = 0.0
    scaleouts: float | Unset = 0.0
    shutdowns: float | Unset = 0.0

    def to_dict(self) -> dict[str, Any]:
        age_time = self.age_time

        core_deaths = self.core_deaths

        core_time = self.core_time

        extra_cores = self.extra_cores

        scaleout_time = self.scaleout_time

        scaleouts = self.scaleouts

        shutdowns = self.shutdowns

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if age_time is not UNSET:
            field_dict["age_time"] = age_time
        if core_deaths is not UNSET:
            field_dict["core_deaths"] = core_deaths
        if core_time is not UNSET:
            field_dict["core_time"] = core_time
        if extra_cores is not UNSET:
            field_dict["extra_cores"] = extra_cores
        if scaleout_time is not UNSET:
            field_dict["scaleout_time"] = scaleout_time
        if scaleouts is not UNSET:
            field_dict["scaleouts"] = scaleouts
        if shutdowns is not UNSET:
            field_dict["shutdowns"] = shutdowns

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        age_time = d.pop("age_time", UNSET)

        core_deaths = d.pop("core_deaths", UNSET)

        core_time = d.pop("core_time", UNSET)

        extra_cores = d.pop("extra_cores", UNSET)

        scaleout_time = d.pop("scaleout_time", UNSET)

        scaleouts = d.pop("scaleouts", UNSET)

        shutdowns = d.pop("shutdowns", UNSET)

        prior_observations = cls(
            age_time=age_time,
            core_deaths=core_deaths,
            core_time=core_time,
            extra_cores=extra_cores,
            scaleout_time=scaleout_time,
            scaleouts=scaleouts,
            shutdowns=shutdowns,
        )

        return prior_observations
