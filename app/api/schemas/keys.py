"""API keys."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from app.api.schemas.common import Name, StrictModel

Scope = Literal["admin", "write", "read"]


class KeyCreate(StrictModel):
    model_config = {**StrictModel.model_config, "json_schema_extra": {"examples": [
        {"scopes": ["write"], "clusters": ["prod-east"], "description": "scheduler, us-east"}]}}

    scopes: list[Scope] = Field(min_length=1, max_length=3)
    clusters: list[Name] | None = Field(
        None, max_length=1000,
        description="Limit a write key (not admin) to these of your clusters, by name; the "
                    "key is bound to their ids, so a later rename changes nothing. Null: all "
                    "of the owner's.")
    description: str = Field("", max_length=200, pattern=r"^[^\x00]*$")  # Postgres: no NUL


class KeyOut(BaseModel):
    id: str
    owner: str
    scopes: list[Scope]
    clusters: list[str] | None = Field(
        description="Current names of the clusters the key is limited to (null: all).")
    cluster_ids: list[str] | None = Field(description="The limit itself: cluster ids.")
    description: str
    created_at: str
    created_by: str | None = Field(
        description="Id of the key that minted this one; null when made by the CLI. Revoking "
                    "that key leaves this one valid.")
    revoked_at: str | None


class KeyCreated(KeyOut):
    key: str = Field(description="The secret. Shown once, never again: store it now.")


class KeyList(BaseModel):
    items: list[KeyOut]
