from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.scale_out_out_decision import ScaleOutOutDecision
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.migrate_answer import MigrateAnswer


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
        migrate (MigrateAnswer | None | Unset): Set when this deployment's own moments (as of the last admission) expect
            it to need `share` of the cluster or more, or it holds that much now, or when the cluster's expected cores (plus
            policy.overflow_sd standard deviations) reach its capacity and this deployment has the largest expected peak:
            move it to a larger cluster. No admission decision protects the SLA from deployments already admitted; this
            cluster will refuse their scale-outs once they have grown into the rest. The same deployments /state's
            outgrowing lists; null otherwise and for the zeroth moment.
    """

    active_cores: int
    decision: ScaleOutOutDecision
    event_seq: int
    replayed: bool
    sla_failure_rate: float
    migrate: MigrateAnswer | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.migrate_answer import MigrateAnswer  # noqa: PLC0415

        active_cores = self.active_cores

        decision = self.decision.value

        event_seq = self.event_seq

        replayed = self.replayed

        sla_failure_rate = self.sla_failure_rate

        migrate: dict[str, Any] | None | Unset
        if isinstance(self.migrate, Unset):
            migrate = UNSET
        elif isinstance(self.migrate, MigrateAnswer):
            migrate = self.migrate.to_dict()
        else:
            migrate = self.migrate

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
        if migrate is not UNSET:
            field_dict["migrate"] = migrate

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.migrate_answer import MigrateAnswer  # noqa: PLC0415

        d = dict(src_dict)
        active_cores = d.pop("active_cores")

        decision = ScaleOutOutDecision(d.pop("decision"))

        event_seq = d.pop("event_seq")

        replayed = d.pop("replayed")

        sla_failure_rate = d.pop("sla_failure_rate")

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

        scale_out_out = cls(
            active_cores=active_cores,
            decision=decision,
            event_seq=event_seq,
            replayed=replayed,
            sla_failure_rate=sla_failure_rate,
            migrate=migrate,
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
