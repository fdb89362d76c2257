"""/v1/keys: an owner's admin manages that owner's API keys."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response, status

from app.api.problems import responses
from app.api.routes.deps import Auth, Ctx
from app.api.schemas.keys import KeyCreate, KeyCreated, KeyList
from app.service import auth

router = APIRouter(prefix="/v1/keys", tags=["keys"], responses=responses(401, 403))


@router.post("", status_code=status.HTTP_201_CREATED, response_model=KeyCreated,
             operation_id="createKey", summary="Create an API key for your owner",
             responses=responses(400, 413, 422))
def create_key(body: KeyCreate, ctx: Ctx, principal: Auth) -> dict[str, Any]:
    principal.require("admin")
    return auth.create_key(ctx, principal.owner, list(body.scopes), body.clusters,
                           body.description, created_by=principal.minter_id)


@router.get("", response_model=KeyList, operation_id="listKeys", summary="Your owner's keys")
def list_keys(ctx: Ctx, principal: Auth) -> dict[str, Any]:
    principal.require("admin")
    return {"items": auth.list_keys(ctx, principal.owner)}


@router.delete("/{key_id}", status_code=status.HTTP_204_NO_CONTENT, operation_id="revokeKey",
               summary="Revoke a key (other processes notice within HEADROOM_AUTH_CACHE_SECONDS); "
                       "keys it minted stay valid",
               responses=responses(404))
def revoke_key(key_id: str, ctx: Ctx, principal: Auth) -> Response:
    principal.require("admin")
    auth.revoke_key(ctx, principal.owner, key_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
