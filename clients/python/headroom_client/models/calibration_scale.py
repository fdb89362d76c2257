from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.gamma_priors import GammaPriors


T = TypeVar("T", bound="CalibrationScale")


@_attrs_define
class CalibrationScale:
    """The simulated cluster of a calibration, as `headroom calibrate moment --json` writes
    it. The service checks capacity, steps, arrival_size_evidence and population_prior
    against the declaration; the rest is a record.

        Attributes:
            arrival_rate (float | None | Unset): Deployments per hour.
            arrival_size_evidence (bool | None | Unset):
            between (list[float] | None | Unset): [lo, hi]: the bracket the search was narrowed to.
            capacity (int | None | Unset):
            iterations (int | None | Unset): Binary-search steps.
            observations (int | None | Unset): Prior pseudo-observations per process (§6).
            population_prior (GammaPriors | None | Unset):
            seed (int | None | Unset): The first life's seed.
            steps (int | None | Unset): Steps per look-ahead horizon.
            years (float | None | Unset): Simulated years per life.
    """

    arrival_rate: float | None | Unset = UNSET
    arrival_size_evidence: bool | None | Unset = UNSET
    between: list[float] | None | Unset = UNSET
    capacity: int | None | Unset = UNSET
    iterations: int | None | Unset = UNSET
    observations: int | None | Unset = UNSET
    population_prior: GammaPriors | None | Unset = UNSET
    seed: int | None | Unset = UNSET
    steps: int | None | Unset = UNSET
    years: float | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.gamma_priors import GammaPriors  # noqa: PLC0415

        arrival_rate: float | None | Unset
        if isinstance(self.arrival_rate, Unset):
            arrival_rate = UNSET
        else:
            arrival_rate = self.arrival_rate

        arrival_size_evidence: bool | None | Unset
        if isinstance(self.arrival_size_evidence, Unset):
            arrival_size_evidence = UNSET
        else:
            arrival_size_evidence = self.arrival_size_evidence

        between: list[float] | None | Unset
        if isinstance(self.between, Unset):
            between = UNSET
        elif isinstance(self.between, list):
            between = self.between

        else:
            between = self.between

        capacity: int | None | Unset
        if isinstance(self.capacity, Unset):
            capacity = UNSET
        else:
            capacity = self.capacity

        iterations: int | None | Unset
        if isinstance(self.iterations, Unset):
            iterations = UNSET
        else:
            iterations = self.iterations

        observations: int | None | Unset
        if isinstance(self.observations, Unset):
            observations = UNSET
        else:
            observations = self.observations

        population_prior: dict[str, Any] | None | Unset
        if isinstance(self.population_prior, Unset):
            population_prior = UNSET
        elif isinstance(self.population_prior, GammaPriors):
            population_prior = self.population_prior.to_dict()
        else:
            population_prior = self.population_prior

        seed: int | None | Unset
        if isinstance(self.seed, Unset):
            seed = UNSET
        else:
            seed = self.seed

        steps: int | None | Unset
        if isinstance(self.steps, Unset):
            steps = UNSET
        else:
            steps = self.steps

        years: float | None | Unset
        if isinstance(self.years, Unset):
            years = UNSET
        else:
            years = self.years

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if arrival_rate is not UNSET:
            field_dict["arrival_rate"] = arrival_rate
        if arrival_size_evidence is not UNSET:
            field_dict["arrival_size_evidence"] = arrival_size_evidence
        if between is not UNSET:
            field_dict["between"] = between
        if capacity is not UNSET:
            field_dict["capacity"] = capacity
        if iterations is not UNSET:
            field_dict["iterations"] = iterations
        if observations is not UNSET:
            field_dict["observations"] = observations
        if population_prior is not UNSET:
            field_dict["population_prior"] = population_prior
        if seed is not UNSET:
            field_dict["seed"] = seed
        if steps is not UNSET:
            field_dict["steps"] = steps
        if years is not UNSET:
            field_dict["years"] = years

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.gamma_priors import GammaPriors  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_arrival_rate(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        arrival_rate = _parse_arrival_rate(d.pop("arrival_rate", UNSET))

        def _parse_arrival_size_evidence(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        arrival_size_evidence = _parse_arrival_size_evidence(d.pop("arrival_size_evidence", UNSET))

        def _parse_between(data: object) -> list[float] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                between_type_0 = cast(list[float], data)

                return between_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[float] | None | Unset, data)

        between = _parse_between(d.pop("between", UNSET))

        def _parse_capacity(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        capacity = _parse_capacity(d.pop("capacity", UNSET))

        def _parse_iterations(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        iterations = _parse_iterations(d.pop("iterations", UNSET))

        def _parse_observations(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        observations = _parse_observations(d.pop("observations", UNSET))

        def _parse_population_prior(data: object) -> GammaPriors | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                population_prior_type_0 = GammaPriors.from_dict(data)

                return population_prior_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(GammaPriors | None | Unset, data)

        population_prior = _parse_population_prior(d.pop("population_prior", UNSET))

        def _parse_seed(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        seed = _parse_seed(d.pop("seed", UNSET))

        def _parse_steps(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        steps = _parse_steps(d.pop("steps", UNSET))

        def _parse_years(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        years = _parse_years(d.pop("years", UNSET))

        calibration_scale = cls(
            arrival_rate=arrival_rate,
            arrival_size_evidence=arrival_size_evidence,
            between=between,
            capacity=capacity,
            iterations=iterations,
            observations=observations,
            population_prior=population_prior,
            seed=seed,
            steps=steps,
            years=years,
        )

        return calibration_scale
