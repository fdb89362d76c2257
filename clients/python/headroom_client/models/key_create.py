from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.key_create_scopes_item import KeyCreateScopesItem
from ..types import UNSET, Unset

T = TypeVar("T", bound="KeyCreate")


@_attrs_define
class KeyCreate:
    """
    Attributes:
        scopes (list[KeyCreateScopesItem]):
        clusters (list[str] | None | Unset): Limit a write key (not admin) to these of your clusters, by name; the key
            is bound to their ids, so a later rename changes nothing. Null: all of the owner's.
        description (str | Unset):  Default: ''.
    """

    scopes: list[KeyCreateScopesItem]
    clusters: list[str] | None | Unset = UNSET
    description: str | Unset = ""

    def to_dict(self) -> dict[str, Any]:
        scopes = []
        for scopes_item_data in self.scopes:
            scopes_item = scopes_item_data.value
            scopes.append(scopes_item)

        clusters: list[str] | None | Unset
        if isinstance(self.clusters, Unset):
            clusters = UNSET
        elif isinstance(self.clusters, list):
            clusters = self.clusters

        else:
            clusters = self.clusters

        description = self.description

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "scopes": scopes,
            }
        )
        if clusters is not UNSET:
            field_dict["clusters"] = clusters
        if description is not UNSET:
            field_dict["description"] = description

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        scopes = []
        _scopes = d.pop("scopes")
        for scopes_item_data in _scopes:
            scopes_item = KeyCreateScopesItem(scopes_item_data)

            scopes.append(scopes_item)

        def _parse_clusters(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                clusters_type_0 = cast(list[str], data)

                return clusters_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        clusters = _parse_clusters(d.pop("clusters", UNSET))

        description = d.pop("description", UNSET)

        key_create = cls(
            scopes=scopes,
            clusters=clusters,
            description=description,
        )

        return key_create
