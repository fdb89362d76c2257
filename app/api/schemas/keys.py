"""API keys."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from app.api.schemas.common import Name, StrictModel

Scope = Literal["admin", "write", "read"]


class KeyCreate(StrictModel):
    scopes: list[Scope] = Field(min_length=1, max_length=3)
    clusters: list[Name] | None = Field(
        None, max_length=1000,
        description="Cluster names a write key may post events to (null: all of the owner's).")
    description: str = Field("", max_length=200)


class KeyOut(BaseModel):
    id: str
    owner: str
    scopes: list[Scope]
    clusters: list[str] | None
    description: str
    created_at: str
    revoked_at: str | None


class KeyCreated(KeyOut):
    key: str = Field(description="The secret. Shown once, never again: store it now.")


class KeyList(BaseModel):
    items: list[KeyOut]
