from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.gang_out import GangOut
    from ..models.placement_out import PlacementOut
    from ..models.queue_arrival_out import QueueArrivalOut
    from ..models.queue_release_out import QueueReleaseOut
    from ..models.release_out import ReleaseOut


T = TypeVar("T", bound="BatchOut")


@_attrs_define
class BatchOut:
    """
    Attributes:
        results (list[GangOut | PlacementOut | QueueArrivalOut | QueueReleaseOut | ReleaseOut]):
    """

    results: list[GangOut | PlacementOut | QueueArrivalOut | QueueReleaseOut | ReleaseOut]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.placement_out import PlacementOut  # noqa: PLC0415
        from ..models.queue_arrival_out import QueueArrivalOut  # noqa: PLC0415
        from ..models.queue_release_out import QueueReleaseOut  # noqa: PLC0415
        from ..models.release_out import ReleaseOut  # noqa: PLC0415

        results = []
        for results_item_data in self.results:
            results_item: dict[str, Any]
            if isinstance(results_item_data, PlacementOut):
                results_item = results_item_data.to_dict()
            elif isinstance(results_item_data, QueueArrivalOut):
                results_item = results_item_data.to_dict()
            elif isinstance(results_item_data, ReleaseOut):
                results_item = results_item_data.to_dict()
            elif isinstance(results_item_data, QueueReleaseOut):
                results_item = results_item_data.to_dict()
            else:
                results_item = results_item_data.to_dict()

            results.append(results_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "results": results,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.gang_out import GangOut  # noqa: PLC0415
        from ..models.placement_out import PlacementOut  # noqa: PLC0415
        from ..models.queue_arrival_out import QueueArrivalOut  # noqa: PLC0415
        from ..models.queue_release_out import QueueReleaseOut  # noqa: PLC0415
        from ..models.release_out import ReleaseOut  # noqa: PLC0415

        d = dict(src_dict)
        results = []
        _results = d.pop("results")
        for results_item_data in _results:

            def _parse_results_item(
                data: object,
            ) -> GangOut | PlacementOut | QueueArrivalOut | QueueReleaseOut | ReleaseOut:
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    results_item_type_0_type_0 = PlacementOut.from_dict(data)

                    return results_item_type_0_type_0
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    results_item_type_0_type_1 = QueueArrivalOut.from_dict(data)

                    return results_item_type_0_type_1
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    results_item_type_1_type_0 = ReleaseOut.from_dict(data)

                    return results_item_type_1_type_0
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    results_item_type_1_type_1 = QueueReleaseOut.from_dict(data)

                    return results_item_type_1_type_1
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                if not isinstance(data, dict):
                    raise TypeError()
                results_item_type_2 = GangOut.from_dict(data)

                return results_item_type_2

            results_item = _parse_results_item(results_item_data)

            results.append(results_item)

        batch_out = cls(
            results=results,
        )

        batch_out.additional_properties = d
        return batch_out

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
