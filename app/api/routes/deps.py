"""Dependencies shared by the routers: the service context and the caller's API key."""

from __future__ import annotations

import re
from functools import partial
from typing import Annotated, Any

import anyio.to_thread
from fastapi import Depends, Header, Request, status
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from app.api.json_body import sent_body
from app.api.schemas.common import CLIENT_ID_PATTERN
from app.api.throttle import authenticated
from app.errors import Unprocessable, WrongClusterKind
from app.families.base import Family
from app.service.auth import Principal, cluster_owner, cluster_owner_cached
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


async def get_principal(request: Request, ctx: Ctx,
                        credentials: Annotated[HTTPAuthorizationCredentials | None,
                                               Depends(_bearer)]) -> Principal:
    # Once per request: the request limits may have authenticated this key already.
    return authenticated(request.scope, ctx, credentials.credentials if credentials else None)


Auth = Annotated[Principal, Depends(get_principal)]

# The header form of an event id (and of a cluster creation's retry key): the same alphabet,
# so that a key accepted here is one the body would accept too.
IdempotencyKey = Annotated[str | None, Header(alias="Idempotency-Key",
                                              pattern=CLIENT_ID_PATTERN)]


# The JSON body exactly as the client wrote it (app/api/json_body.py's sent_body).
SentBody = Annotated[Any, Depends(sent_body)]


def require_cluster(request: Request, principal: Principal, cluster_id: str, scope: str,
                    collection: str | None = None, capability: type | None = None
                    ) -> Family[Any]:
    """The cluster's family, once the key may use ``scope`` on it and the route serves its
    family: the families whose declared routers hold this route, or every family of
    ``collection`` for the collection's own routes; with ``capability``, only those of them
    whose adapter has it (``Family.has``). No such cluster or stream, or another owner's: 404
    ``cluster_not_found``, the same answer for both. The owner's own cluster: 403 without the
    scope (or outside a write key's limit), and 409 ``wrong_cluster_kind`` naming its kind and
    routes when the route does not serve it; both come after the owner check, so neither is
    reachable across owners.

    With auth disabled (local development) every cluster is open, whoever created it.
    """
    ctx: ServiceContext = request.app.state.ctx
    owner, _name, kind = cluster_owner(ctx, cluster_id)
    if not ctx.settings.auth_disabled:
        principal.require_cluster(scope, owner, cluster_id)
    family = ctx.families.family_for(kind)
    served = ctx.families.in_collection(collection) if collection is not None else \
        ctx.families.serving(request.scope["endpoint"])
    if family not in served or (capability is not None and not family.has(capability)):
        routes = ctx.families.routes_of(family)
        raise WrongClusterKind(
            f"{cluster_id!r} is a {kind} cluster ({family.name}), which this route does not "
            f"serve; its routes: {', '.join(routes)}"
            + ("" if family.collection == "reservations" else
               " and /v1/clusters/{cluster_id} with its /events and /state"))
    return family


async def require_cluster_async(request: Request, principal: Principal, cluster_id: str,
                                scope: str) -> Family[Any]:
    """``require_cluster`` for a coroutine route: on the event loop when the cluster's owner
    is cached (no I/O), else in a worker thread (its database read must not stall the loop)."""
    if cluster_owner_cached(request.app.state.ctx, cluster_id):
        return require_cluster(request, principal, cluster_id, scope)
    return await anyio.to_thread.run_sync(
        partial(require_cluster, request, principal, cluster_id, scope))


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


# RFC 9110 §13.1.1 and §8.8.3: If-Match = "*" / #entity-tag, entity-tag = [ "W/" ] DQUOTE
# *etagc DQUOTE, etagc = %x21 / %x23-7E / obs-text; a list element may be empty. The header
# arrives decoded as Latin-1, so obs-text (bytes 0x80-0xFF) is \x80-\xff here.
_ENTITY_TAG = r'(W/)?"([\x21\x23-\x7e\x80-\xff]*)"'
# One list element and the comma (or end) after it; no two repetitions may match the same
# characters, so a hostile header costs linear time.
_ELEMENT = re.compile(rf"[ \t]*(?:{_ENTITY_TAG}[ \t]*)?(,|\Z)")
# The ETags this service issues: a cluster's generation, quoted, in ASCII digits without a
# leading zero (strong comparison is character by character: "01" is not "1"), at most 18
# ("²" or "١" are digits to str.isdigit but not to int()).
_GENERATION = re.compile(r"0|[1-9][0-9]{0,17}")


def if_match_generation(if_match: str | None) -> frozenset[int] | None:
    """The generations an If-Match header accepts; None for no header or "*".

    A header outside RFC 9110's grammar is a 422 naming If-Match. A well-formed one whose
    tags cannot match (weak tags, which strong comparison never matches; opaque tags this
    service never issues) gives an empty set, so the write answers 412 like a stale ETag:
    RFC 9110 §13.1.1 asks for 412 whenever no listed tag matches, and the client learns the
    same thing either way (fetch the ETag again). A header with no tag at all is refused as
    malformed: it is a client's empty template, not a condition."""
    if if_match is None or if_match.strip(" \t") == "*":
        return None
    tags, at = [], 0
    while True:
        element = _ELEMENT.match(if_match, at) if len(if_match) <= 4096 else None
        if element is None:
            break
        if element[2] is not None:
            tags.append((element[1], element[2]))
        if not element[3]:  # the end
            break
        at = element.end()
    if element is None or not tags:
        raise Unprocessable("If-Match must be \"*\" or a list of entity tags such as \"3\" "
                            "(RFC 9110)",
                            errors=[{"field": "If-Match", "message": "not an entity tag"}])
    return frozenset(int(opaque) for weak, opaque in tags
                     if not weak and _GENERATION.fullmatch(opaque))


def answer_with(family: Family[Any], kind: str, answer: dict[str, Any]) -> JSONResponse:
    """``answer`` serialised by the model its family declares for ``kind`` events, with 202
    for a decision the family takes later (a queued arrival). For routes whose answer model
    depends on the cluster's family."""
    model = family.answers[kind]
    code = status.HTTP_202_ACCEPTED if answer["decision"] in family.accepted else \
        status.HTTP_200_OK
    return JSONResponse(model.model_validate(answer).model_dump(mode="json"), status_code=code)
