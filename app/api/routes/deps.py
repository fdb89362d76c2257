"""Dependencies shared by the routers: the service context and the caller's API key."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from app.service.auth import Principal, authenticate, cluster_owner
from app.service.context import ServiceContext


# Dependencies are ``async def`` although they do no I/O worth awaiting: FastAPI runs a plain
# ``def`` dependency in the thread pool, one hand-off per dependency per request, which was
# measurable on the decision path. A key's database lookup (once per key per cache period
# and process) briefly runs on the event loop instead.
async def get_context(request: Request) -> ServiceContext:
    return request.app.state.ctx


Ctx = Annotated[ServiceContext, Depends(get_context)]

_bearer = HTTPBearer(auto_error=False, scheme_name="apiKey",
                     description="An API key from `headroom keys create`, sent as "
                                 "`Authorization: Bearer hr_...`.")


async def get_principal(ctx: Ctx, credentials: Annotated[HTTPAuthorizationCredentials | None,
                                                          Depends(_bearer)]) -> Principal:
    return authenticate(ctx, credentials.credentials if credentials else None)


Auth = Annotated[Principal, Depends(get_principal)]


def require_cluster(ctx: ServiceContext, principal: Principal, cluster_id: str,
                    scope: str) -> None:
    """403 unless the key may use ``scope`` on this cluster (404 if there is no cluster).

    With auth disabled (local development) every cluster is open, whoever created it.
    """
    owner, name = cluster_owner(ctx, cluster_id)
    if not ctx.settings.auth_disabled:
        principal.require_cluster(scope, owner, name)
