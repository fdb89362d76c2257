"""The toy's declaration body, events, answers and state view."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from app.ids import ClientId, Name
from tests.plugins.toy.engine import TOY_KINDS

ToyKind = Literal[tuple(TOY_KINDS)]  # type: ignore[valid-type]


class ToyPolicy(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: ToyKind


class ToyClusterCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: Name
    policy: ToyPolicy
    capacity: int = Field(ge=1, le=1000)


class TokensIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    event_id: ClientId
    holder: ClientId
    tokens: int = Field(ge=1, le=1000)


class TokensOut(BaseModel):
    decision: Literal["granted", "refused", "returned"]
    granted: int
    free: int
    reason: str
    event_seq: int | None
    replayed: bool
    dry_run: bool


class ToyState(BaseModel):
    model_config = ConfigDict(extra="forbid")
    policy: ToyKind
    cluster_id: str
    version: int
    capacity: int
    used: int
    holders: int
