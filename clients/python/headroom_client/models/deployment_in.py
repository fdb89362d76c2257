from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.deployment_prior import DeploymentPrior


T = TypeVar("T", bound="DeploymentIn")


@_attrs_define
class DeploymentIn:
    """
    Attributes:
        at (float): Event time in hours; never decreases per cluster.
        cores (int):
        deployment_id (str): Printable ASCII without spaces or "/", not starting with ".", at most 200 characters: it is
            a path segment of later requests.
        category (None | str | Unset): User label; deployments with the same label share a learnt prior (§7).
        dry_run (bool | Unset):  Default: False.
        event_id (None | str | Unset):
        prior (DeploymentPrior | None | Unset): {"gamma": {"lambda": [shape, rate], "mu": [...], "sigma": [...]}} and/or
            {"observations": {...}} pseudo-observations (§6).
        tenant (None | str | Unset): The tenant the job runs for; required where the cluster declares tenants. Its quota
            is in cores.
    """

    at: float
    cores: int
    deployment_id: str
    category: None | str | Unset = UNSET
    dry_run: bool | Unset = False
    event_id: None | str | Unset = UNSET
    prior: DeploymentPrior | None | Unset = UNSET
    tenant: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.deployment_prior import DeploymentPrior  # noqa: PLC0415

        at = self.at

        cores = self.cores

        deployment_id = self.deployment_id

        category: None | str | Unset
        if isinstance(self.category, Unset):
            category = UNSET
        else:
            category = self.category

        dry_run = self.dry_run

        event_id: None | str | Unset
        if isinstance(self.event_id, Unset):
            event_id = UNSET
        else:
            event_id = self.event_id

        prior: dict[str, Any] | None | Unset
        if isinstance(self.prior, Unset):
            prior = UNSET
        elif isinstance(self.prior, DeploymentPrior):
            prior = self.prior.to_dict()
        else:
            prior = self.prior

        tenant: None | str | Unset
        if isinstance(self.tenant, Unset):
            tenant = UNSET
        else:
            tenant = self.tenant

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "at": at,
                "cores": cores,
                "deployment_id": deployment_id,
            }
        )
        if category is not UNSET:
            field_dict["category"] = category
        if dry_run is not UNSET:
            field_dict["dry_run"] = dry_run
        if event_id is not UNSET:
            field_dict["event_id"] = event_id
        if prior is not UNSET:
            field_dict["prior"] = prior
        if tenant is not UNSET:
            field_dict["tenant"] = tenant

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.deployment_prior import DeploymentPrior  # noqa: PLC0415

        d = dict(src_dict)
        at = d.pop("at")

        cores = d.pop("cores")

        deployment_id = d.pop("deployment_id")

        def _parse_category(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        category = _parse_category(d.pop("category", UNSET))

        dry_run = d.pop("dry_run", UNSET)

        def _parse_event_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        event_id = _parse_event_id(d.pop("event_id", UNSET))

        def _parse_prior(data: object) -> DeploymentPrior | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                prior_type_0 = DeploymentPrior.from_dict(data)

                return prior_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DeploymentPrior | None | Unset, data)

        prior = _parse_prior(d.pop("prior", UNSET))

        def _parse_tenant(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        tenant = _parse_tenant(d.pop("tenant", UNSET))

        deployment_in = cls(
            at=at,
            cores=cores,
            deployment_id=deployment_id,
            category=category,
            dry_run=dry_run,
            event_id=event_id,
            prior=prior,
            tenant=tenant,
        )

        return deployment_in
