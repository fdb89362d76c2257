"""Dependencies shared by the routers: the service context and the caller's API key."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from app.api.schemas.common import CLIENT_ID_PATTERN
from app.errors import ClusterNotFound, ReservationNotFound, Unprocessable
from app.service.auth import Principal, authenticate, cluster_owner
from app.service.context import ServiceContext
from app.service.policies import MOMENT, PLACEMENT, QUEUE, RESERVATION, Family, family_for

# Routes under /v1/clusters/{id} that every cluster kind answers.
ANY_CLUSTER = (PLACEMENT, QUEUE, MOMENT)
# Clusters that take job arrivals and departures.
JOB_CLUSTERS = (PLACEMENT, QUEUE)


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

# The header form of an event id (and of a cluster creation's retry key): the same alphabet,
# so that a key accepted here is one the body would accept too.
IdempotencyKey = Annotated[str | None, Header(alias="Idempotency-Key",
                                              pattern=CLIENT_ID_PATTERN)]


def require_cluster(ctx: ServiceContext, principal: Principal, cluster_id: str,
                    scope: str, family: Family | tuple[Family, ...] = PLACEMENT) -> Family:
    """403 unless the key may use ``scope`` on this cluster (404 if there is no cluster, or
    if the id names a stream of another family: a reservation is not a cluster). Returns
    the cluster's family.

    With auth disabled (local development) every cluster is open, whoever created it.
    """
    families = family if isinstance(family, tuple) else (family,)
    owner, _name, kind = cluster_owner(ctx, cluster_id)
    if family_for(kind) not in families:
        if RESERVATION in families:
            raise ReservationNotFound(f"reservation {cluster_id!r} does not exist")
        raise ClusterNotFound(f"no such {'cluster' if len(families) > 1 else 'cluster of this kind'}"
                              f" {cluster_id!r}")
    if not ctx.settings.auth_disabled:
        principal.require_cluster(scope, owner, cluster_id)
    return family_for(kind)


def event_id_from(body_id: str | None, header_id: str | None) -> str:
    if body_id is not None and header_id is not None and body_id != header_id:
        raise Unprocessable("event_id and the Idempotency-Key header disagree",
                            errors=[{"field": "event_id", "message": "differs from header"}])
    event_id = body_id or header_id
    if event_id is None:
        raise Unprocessable("every event needs an event_id (or an Idempotency-Key header) "
                            "so that retries are safe",
                            errors=[{"field": "event_id", "message": "required"}])
    return event_id


def if_match_generation(if_match: str | None) -> int | None:
    if if_match is None or if_match.strip() == "*":
        return None
    raw = if_match.strip().removeprefix("W/").strip('"')
    if not raw.isdigit():
        raise Unprocessable("If-Match must be a generation ETag such as \"3\"",
                            errors=[{"field": "If-Match", "message": "not an ETag we issued"}])
    return int(raw)
