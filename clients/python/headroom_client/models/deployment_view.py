from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.deployment_statistics import DeploymentStatistics
    from ..models.deployment_view_expected_cores_type_0 import DeploymentViewExpectedCoresType0
    from ..models.deployment_view_posterior import DeploymentViewPosterior
    from ..models.deployment_view_variance_type_0 import DeploymentViewVarianceType0
    from ..models.migrate_answer import MigrateAnswer


T = TypeVar("T", bound="DeploymentView")


@_attrs_define
class DeploymentView:
    """
    Attributes:
        alive (bool):
        born (float):
        category (None | str):
        cores (int):
        id (str):
        migrate (MigrateAnswer | None): What its next scale-out will be answered.
        posterior (DeploymentViewPosterior):
        statistics (DeploymentStatistics):
        expected_cores (DeploymentViewExpectedCoresType0 | None | Unset): Live moment deployments only.
        variance (DeploymentViewVarianceType0 | None | Unset):
    """

    alive: bool
    born: float
    category: None | str
    cores: int
    id: str
    migrate: MigrateAnswer | None
    posterior: DeploymentViewPosterior
    statistics: DeploymentStatistics
    expected_cores: DeploymentViewExpectedCoresType0 | None | Unset = UNSET
    variance: DeploymentViewVarianceType0 | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.deployment_view_expected_cores_type_0 import DeploymentViewExpectedCoresType0  # noqa: PLC0415
        from ..models.deployment_view_variance_type_0 import DeploymentViewVarianceType0  # noqa: PLC0415
        from ..models.migrate_answer import MigrateAnswer  # noqa: PLC0415

        alive = self.alive

        born = self.born

        category: None | str
        category = self.category

        cores = self.cores

        id = self.id

        migrate: dict[str, Any] | None
        if isinstance(self.migrate, MigrateAnswer):
            migrate = self.migrate.to_dict()
        else:
            migrate = self.migrate

        posterior = self.posterior.to_dict()

        statistics = self.statistics.to_dict()

        expected_cores: dict[str, Any] | None | Unset
        if isinstance(self.expected_cores, Unset):
            expected_cores = UNSET
        elif isinstance(self.expected_cores, DeploymentViewExpectedCoresType0):
            expected_cores = self.expected_cores.to_dict()
        else:
            expected_cores = self.expected_cores

        variance: dict[str, Any] | None | Unset
        if isinstance(self.variance, Unset):
            variance = UNSET
        elif isinstance(self.variance, DeploymentViewVarianceType0):
            variance = self.variance.to_dict()
        else:
            variance = self.variance

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "alive": alive,
                "born": born,
                "category": category,
                "cores": cores,
                "id": id,
                "migrate": migrate,
                "posterior": posterior,
                "statistics": statistics,
            }
        )
        if expected_cores is not UNSET:
            field_dict["expected_cores"] = expected_cores
        if variance is not UNSET:
            field_dict["variance"] = variance

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.deployment_statistics import DeploymentStatistics  # noqa: PLC0415
        from ..models.deployment_view_expected_cores_type_0 import DeploymentViewExpectedCoresType0  # noqa: PLC0415
        from ..models.deployment_view_posterior import DeploymentViewPosterior  # noqa: PLC0415
        from ..models.deployment_view_variance_type_0 import DeploymentViewVarianceType0  # noqa: PLC0415
        from ..models.migrate_answer import MigrateAnswer  # noqa: PLC0415

        d = dict(src_dict)
        alive = d.pop("alive")

        born = d.pop("born")

        def _parse_category(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        category = _parse_category(d.pop("category"))

        cores = d.pop("cores")

        id = d.pop("id")

        def _parse_migrate(data: object) -> MigrateAnswer | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                migrate_type_0 = MigrateAnswer.from_dict(data)

                return migrate_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MigrateAnswer | None, data)

        migrate = _parse_migrate(d.pop("migrate"))

        posterior = DeploymentViewPosterior.from_dict(d.pop("posterior"))

        statistics = DeploymentStatistics.from_dict(d.pop("statistics"))

        def _parse_expected_cores(data: object) -> DeploymentViewExpectedCoresType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                expected_cores_type_0 = DeploymentViewExpectedCoresType0.from_dict(data)

                return expected_cores_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DeploymentViewExpectedCoresType0 | None | Unset, data)

        expected_cores = _parse_expected_cores(d.pop("expected_cores", UNSET))

        def _parse_variance(data: object) -> DeploymentViewVarianceType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                variance_type_0 = DeploymentViewVarianceType0.from_dict(data)

                return variance_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DeploymentViewVarianceType0 | None | Unset, data)

        variance = _parse_variance(d.pop("variance", UNSET))

        deployment_view = cls(
            alive=alive,
            born=born,
            category=category,
            cores=cores,
            id=id,
            migrate=migrate,
            posterior=posterior,
            statistics=statistics,
            expected_cores=expected_cores,
            variance=variance,
        )

        return deployment_view
