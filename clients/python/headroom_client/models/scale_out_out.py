from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.scale_out_out_decision import ScaleOutOutDecision
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.migrate_answer import MigrateAnswer
    from ..models.scale_out_out_details_type_0 import ScaleOutOutDetailsType0


T = TypeVar("T", bound="ScaleOutOut")


@_attrs_define
class ScaleOutOut:
    """
    Attributes:
        active_cores (int):
        decision (ScaleOutOutDecision):
        event_seq (int):
        replayed (bool):
        sla_failure_rate (float):
        details (None | ScaleOutOutDetailsType0 | Unset):
        migrate (MigrateAnswer | None | Unset): Set when this deployment's own moments (as of the last admission) expect
            it to need `share` of the cluster or more, or it holds that much now, or when the cluster's expected cores (plus
            policy.overflow_sd standard deviations) reach its capacity and this deployment has the largest expected peak:
            move it to a larger cluster. No admission decision protects the SLA from deployments already admitted; this
            cluster will refuse their scale-outs once they have grown into the rest. The same deployments /state's
            outgrowing lists; null otherwise and for the zeroth moment.
        reason (Literal['quota_exceeded'] | None | Unset): Where tenants' quotas refused it: the deployment's tenant
            would exceed its quota (`details.quota`); not counted as the cluster's scale-out failure.
    """

    active_cores: int
    decision: ScaleOutOutDecision
    event_seq: int
    replayed: bool
    sla_failure_rate: float
    details: None | ScaleOutOutDetailsType0 | Unset = UNSET
    migrate: MigrateAnswer | None | Unset = UNSET
    reason: Literal["quota_exceeded"] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.migrate_answer import MigrateAnswer  # noqa: PLC0415
        from ..models.scale_out_out_details_type_0 import ScaleOutOutDetailsType0  # noqa: PLC0415

        active_cores = self.active_cores

        decision = self.decision.value

        event_seq = self.event_seq

        replayed = self.replayed

        sla_failure_rate = self.sla_failure_rate

        details: dict[str, Any] | None | Unset
        if isinstance(self.details, Unset):
            details = UNSET
        elif isinstance(self.details, ScaleOutOutDetailsType0):
            details = self.details.to_dict()
        else:
            details = self.details

        migrate: dict[str, Any] | None | Unset
        if isinstance(self.migrate, Unset):
            migrate = UNSET
        elif isinstance(self.migrate, MigrateAnswer):
            migrate = self.migrate.to_dict()
        else:
            migrate = self.migrate

        reason: Literal["quota_exceeded"] | None | Unset
        if isinstance(self.reason, Unset):
            reason = UNSET
        else:
            reason = self.reason

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "active_cores": active_cores,
                "decision": decision,
                "event_seq": event_seq,
                "replayed": replayed,
                "sla_failure_rate": sla_failure_rate,
            }
        )
        if details is not UNSET:
            field_dict["details"] = details
        if migrate is not UNSET:
            field_dict["migrate"] = migrate
        if reason is not UNSET:
            field_dict["reason"] = reason

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.migrate_answer import MigrateAnswer  # noqa: PLC0415
        from ..models.scale_out_out_details_type_0 import ScaleOutOutDetailsType0  # noqa: PLC0415

        d = dict(src_dict)
        active_cores = d.pop("active_cores")

        decision = ScaleOutOutDecision(d.pop("decision"))

        event_seq = d.pop("event_seq")

        replayed = d.pop("replayed")

        sla_failure_rate = d.pop("sla_failure_rate")

        def _parse_details(data: object) -> None | ScaleOutOutDetailsType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                details_type_0 = ScaleOutOutDetailsType0.from_dict(data)

                return details_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ScaleOutOutDetailsType0 | Unset, data)

        details = _parse_details(d.pop("details", UNSET))

        def _parse_migrate(data: object) -> MigrateAnswer | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                migrate_type_0 = MigrateAnswer.from_dict(data)

                return migrate_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MigrateAnswer | None | Unset, data)

        migrate = _parse_migrate(d.pop("migrate", UNSET))

        def _parse_reason(data: object) -> Literal["quota_exceeded"] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            reason_type_0 = cast(Literal["quota_exceeded"], data)
            if reason_type_0 != "quota_exceeded":
                raise ValueError(f"reason_type_0 must match const 'quota_exceeded', got '{reason_type_0}'")
            return reason_type_0
            return cast(Literal["quota_exceeded"] | None | Unset, data)

        reason = _parse_reason(d.pop("reason", UNSET))

        scale_out_out = cls(
            active_cores=active_cores,
            decision=decision,
            event_seq=event_seq,
            replayed=replayed,
            sla_failure_rate=sla_failure_rate,
            details=details,
            migrate=migrate,
            reason=reason,
        )

        scale_out_out.additional_properties = d
        return scale_out_out

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
