from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.key_out_scopes_item import KeyOutScopesItem

T = TypeVar("T", bound="KeyOut")


@_attrs_define
class KeyOut:
    """
    Attributes:
        cluster_ids (list[str] | None): The limit itself: cluster ids.
        clusters (list[str] | None): Current names of the clusters the key is limited to (null: all).
        created_at (str):
        created_by (None | str): Id of the key that minted this one; null when made by the CLI. Revoking that key leaves
            this one valid.
        description (str):
        id (str):
        owner (str):
        revoked_at (None | str):
        scopes (list[KeyOutScopesItem]):
    """

    cluster_ids: list[str] | None
    clusters: list[str] | None
    created_at: str
    created_by: None | str
    description: str
    id: str
    owner: str
    revoked_at: None | str
    scopes: list[KeyOutScopesItem]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        cluster_ids: list[str] | None
        if isinstance(self.cluster_ids, list):
            cluster_ids = self.cluster_ids

        else:
            cluster_ids = self.cluster_ids

        clusters: list[str] | None
        if isinstance(self.clusters, list):
            clusters = self.clusters

        else:
            clusters = self.clusters

        created_at = self.created_at

        created_by: None | str
        created_by = self.created_by

        description = self.description

        id = self.id

        owner = self.owner

        revoked_at: None | str
        revoked_at = self.revoked_at

        scopes = []
        for scopes_item_data in self.scopes:
            scopes_item = scopes_item_data.value
            scopes.append(scopes_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cluster_ids": cluster_ids,
                "clusters": clusters,
                "created_at": created_at,
                "created_by": created_by,
                "description": description,
                "id": id,
                "owner": owner,
                "revoked_at": revoked_at,
                "scopes": scopes,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_cluster_ids(data: object) -> list[str] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                cluster_ids_type_0 = cast(list[str], data)

                return cluster_ids_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None, data)

        cluster_ids = _parse_cluster_ids(d.pop("cluster_ids"))

        def _parse_clusters(data: object) -> list[str] | None:
            if data is None:
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                clusters_type_0 = cast(list[str], data)

                return clusters_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None, data)

        clusters = _parse_clusters(d.pop("clusters"))

        created_at = d.pop("created_at")

        def _parse_created_by(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        created_by = _parse_created_by(d.pop("created_by"))

        description = d.pop("description")

        id = d.pop("id")

        owner = d.pop("owner")

        def _parse_revoked_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        revoked_at = _parse_revoked_at(d.pop("revoked_at"))

        scopes = []
        _scopes = d.pop("scopes")
        for scopes_item_data in _scopes:
            scopes_item = KeyOutScopesItem(scopes_item_data)

            scopes.append(scopes_item)

        key_out = cls(
            cluster_ids=cluster_ids,
            clusters=clusters,
            created_at=created_at,
            created_by=created_by,
            description=description,
            id=id,
            owner=owner,
            revoked_at=revoked_at,
            scopes=scopes,
        )

        key_out.additional_properties = d
        return key_out

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
