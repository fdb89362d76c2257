"""/v1/clusters: declare, read, list and delete clusters; read their log and state.

Two routes depend on the families an application serves: what a declaration body may be, and
what ``/state`` answers (the union of those families' models). ``router_for`` adds them for a
registry to the routes that do not."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Annotated, Any, Literal, cast

from fastapi import APIRouter, Depends, Header, Query, Request, Response, status
from fastapi.responses import JSONResponse
from pydantic import BeforeValidator

from app.api.problems import responses
from app.api.routes.deps import (
    Auth,
    Ctx,
    IdempotencyKey,
    SentBody,
    if_match_generation,
    require_cluster,
)
from app.api.schemas.clusters import (
    ClusterCreate,
    ClusterOut,
    ClusterPage,
    ClusterPreview,
    ClusterUpdate,
    ServerPage,
    spec_errors,
)
from app.api.schemas.common import CLIENT_ID_PATTERN, NAME_PATTERN
from app.api.schemas.events import DecisionSummary, EventPage
from app.api.schemas.state import ServerView
from app.errors import Unprocessable
from app.families.base import Family, FamilyRegistry
from app.policies.capabilities import HasServers, ShowsAdmissible
from app.policies.errors import build_declared
from app.policies.protocol import PolicyAdapter
from app.service import calibrator
from app.service import clusters as service
from app.service.engines import ClusterRow
from app.service.events import read_adapter
from app.service.log import LogFilter, decision_summary, list_events

PREFIX, TAGS = "/v1/clusters", ["clusters"]
router = APIRouter(prefix=PREFIX, tags=TAGS, responses=responses(401, 403))
BODY = responses(400, 413, 422)
# The routes here serve every family whose clusters are created under /v1/clusters.
CLUSTERS = "clusters"
# Decisions and reason codes are lower-case identifiers (placed, no_server_fits, ...).
CODE_PATTERN = r"^[a-z][a-z0-9_]{0,63}$"


def _true_or_false(value: Any) -> Any:
    """A query flag is ``true`` or ``false``, as the JSON bodies' dry_run is (strict models):
    FastAPI's bool would also read 1, on, yes or t as true, and 0, off, no or f as false."""
    if value in ("true", "false"):
        return value == "true"
    raise ValueError("must be true or false")


def router_for(registry: FamilyRegistry) -> APIRouter:
    """The /v1/clusters routes serving ``registry``'s families of the collection."""
    own = APIRouter(responses=router.responses)
    create = _typed(create_cluster, body=registry.create_body(CLUSTERS))
    own.add_api_route(PREFIX, create, methods=["POST"], tags=TAGS,
                      status_code=status.HTTP_201_CREATED,
                      response_model=ClusterOut, operation_id="createCluster",
                      summary="Declare a cluster (or, with dry_run, preview what it makes)",
                      responses={**BODY, **responses(409), 200: {
                          "model": ClusterPreview,
                          "description": "dry_run=true: the cluster the declaration would "
                                         "make, with no id, version, generation or times: "
                                         "nothing is created."}})
    own.include_router(router)
    # What /state answers, by policy kind: documented, not re-validated on the way out (the
    # engines' views are returned as they are; tests/api/test_state_views.py holds them to
    # the models).
    own.add_api_route(PREFIX + "/{cluster_id}/state", state, methods=["GET"], tags=TAGS,
                      operation_id="getClusterState", response_model=None,
                      summary="What the policy engine holds now",
                      responses={200: {"model": registry.state_view(CLUSTERS),
                                       "description": "The engine's view, by its policy kind"},
                                 **responses(404, 409)})
    return own


def _typed(endpoint: Callable[..., Any], **annotations: Any) -> Callable[..., Any]:
    """``endpoint`` with some parameters' annotations replaced, for a model built at run
    time: FastAPI reads a parameter's model from its annotation."""
    def call(*args: Any, **kwargs: Any) -> Any:
        return endpoint(*args, **kwargs)

    signature = inspect.signature(endpoint, eval_str=True)
    call.__signature__ = signature.replace(parameters=[  # type: ignore[attr-defined]
        p.replace(annotation=annotations.get(p.name, p.annotation))
        for p in signature.parameters.values()])
    call.__name__ = endpoint.__name__
    return call


# A strict flag in the query: only "true" or "false" (_true_or_false), and once.
DryRunQuery = Annotated[bool, BeforeValidator(_true_or_false), Query(
    description="true: validate and resolve the declaration as creation does and answer 200 "
                "with the cluster it would make (no id, version, generation or times; its name "
                "is not checked against existing clusters); nothing is written, and an "
                "Idempotency-Key is neither read nor recorded.")]


async def _dry_run(request: Request, dry_run: DryRunQuery = False) -> bool:
    if len(request.query_params.getlist("dry_run")) > 1:  # which one was meant?
        raise Unprocessable("dry_run given more than once",
                            errors=[{"field": "dry_run", "message": "given more than once"}])
    return dry_run


DryRun = Annotated[bool, Depends(_dry_run)]


# Served by router_for, which annotates ``body`` with the registry's create body.
def create_cluster(body: Any, ctx: Ctx, principal: Auth, response: Response, sent: SentBody,
                   dry_run: DryRun, idempotency_key: IdempotencyKey = None) -> Any:
    principal.require("admin")
    family, spec = _declared(ctx, body)
    if dry_run:
        return JSONResponse(ClusterPreview.model_validate(
            {**spec, "owner": principal.owner, "family": family.name,
             "admissible": _admissible(family, spec)}).model_dump(mode="json"))
    view, replayed = service.create_cluster(ctx, spec, principal.owner, idempotency_key,
                                           sent=sent)
    response.headers["Location"] = f"/v1/clusters/{view['id']}"
    response.headers["ETag"] = f'"{view["generation"]}"'
    if replayed:
        response.headers["Idempotent-Replayed"] = "true"
    # The stored cluster's (a replay's may differ from this request's: a calibration since).
    return {**_with_family(ctx, view), "admissible": _admissible(family, view)}


def _declared(ctx: Ctx, body: Any) -> tuple[Family[Any], dict[str, Any]]:
    """The family and the spec a new declaration is stored as, checked as the engine builds
    it; refused with the 422 that names the field."""
    if isinstance(body, ClusterCreate):
        errors = spec_errors(body, ctx.settings.max_servers, ctx.settings.max_job_types)
        if errors:
            raise Unprocessable("; ".join(f"{e['field']}: {e['message']}" for e in errors),
                                errors=errors)
    family = ctx.families.family_for(body.policy.kind)
    spec = family.declaration(body, ctx.settings)  # the family's defaults, resolved once
    spec = calibrator.from_cache(ctx, spec)  # a moment threshold calibrated already
    # the engine's own checks, e.g. DRA's (the body's model admits declared kinds only)
    build_declared(family.build, spec)
    return family, spec


def _admissible(family: Family[Any], spec: dict[str, Any]) -> dict[str, Any] | None:
    """What the empty cluster of ``spec`` can admit, for a family that says (moments)."""
    if not family.has(ShowsAdmissible):
        return None
    return cast(ShowsAdmissible, family.build(spec)).admissible()


def _with_family(ctx: Ctx, view: dict[str, Any]) -> dict[str, Any]:
    """The view with its family's name, as its kind's declaration says now (a stored answer
    replayed to a retry gets it too)."""
    return {**view, "family": ctx.families.family_for(view["policy"]["kind"]).name}


@router.get("", response_model=ClusterPage, operation_id="listClusters",
            summary="List clusters by name", responses=responses(422))
def list_clusters(ctx: Ctx, principal: Auth,
                  limit: Annotated[int, Query(ge=1, le=500)] = 100,
                  cursor: Annotated[str | None, Query(pattern=NAME_PATTERN)] = None,
                  name: Annotated[str | None, Query(
                      pattern=NAME_PATTERN, description="Only the cluster of this name.")] = None
                  ) -> dict[str, Any]:
    principal.require("read")
    owner = None if ctx.settings.auth_disabled else principal.owner
    items, nxt = service.list_clusters(ctx, owner, limit, cursor, ctx.families.kinds("clusters"),
                                       name=name)
    return {"items": [_with_family(ctx, v) for v in items], "next_cursor": nxt}


@router.get("/{cluster_id}", response_model=ClusterOut, operation_id="getCluster",
            summary="Read a cluster's declaration", responses=responses(404, 409))
def get_cluster(cluster_id: str, ctx: Ctx, principal: Auth, response: Response,
                request: Request) -> dict[str, Any]:
    require_cluster(request, principal, cluster_id, "read", CLUSTERS)
    view = service.get_cluster(ctx, cluster_id)
    response.headers["ETag"] = f'"{view["generation"]}"'
    return _with_family(ctx, view)


@router.patch("/{cluster_id}", response_model=ClusterOut, operation_id="updateCluster",
              summary="Rename a cluster (send If-Match with its ETag to avoid lost updates)",
              responses={**BODY, **responses(404, 409, 412, 503)})
def update_cluster(cluster_id: str, body: ClusterUpdate, ctx: Ctx, principal: Auth,
                   response: Response, request: Request,
                   if_match: Annotated[str | None, Header(alias="If-Match")] = None
                   ) -> dict[str, Any]:
    require_cluster(request, principal, cluster_id, "admin", CLUSTERS)
    view = service.rename_cluster(ctx, cluster_id, body.name, if_match_generation(if_match))
    response.headers["ETag"] = f'"{view["generation"]}"'
    return _with_family(ctx, view)


@router.delete("/{cluster_id}", status_code=status.HTTP_204_NO_CONTENT,
               operation_id="deleteCluster", summary="Delete a cluster and its log",
               responses=responses(404, 409, 412, 422, 503))
def delete_cluster(cluster_id: str, ctx: Ctx, principal: Auth, request: Request,
                   if_match: Annotated[str | None, Header(alias="If-Match")] = None) -> Response:
    require_cluster(request, principal, cluster_id, "admin", CLUSTERS)
    service.delete_cluster(ctx, cluster_id, if_match_generation(if_match))
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.get("/{cluster_id}/events", response_model=EventPage, operation_id="listEvents",
            summary="The cluster's decision log, oldest first (or newest first), filtered",
            responses=responses(404, 409, 422))
def events(cluster_id: str, ctx: Ctx, principal: Auth, request: Request,
           limit: Annotated[int, Query(ge=1, le=1000)] = 100,
           cursor: Annotated[str | None, Query(
               pattern=r"^[0-9]{1,18}$",
               description="The previous page's next_cursor: events after it (oldest first) "
                           "or before it (newest first).")] = None,
           order: Annotated[Literal["asc", "desc"], Query(
               description="asc: oldest first (tail the log with the cursor); desc: newest "
                           "first.")] = "asc",
           decision: Annotated[str | None, Query(
               pattern=CODE_PATTERN, description="Only this decision, e.g. rejected.")] = None,
           reason: Annotated[str | None, Query(
               pattern=CODE_PATTERN, description="Only this reason code.")] = None,
           job_id: Annotated[str | None, Query(
               pattern=CLIENT_ID_PATTERN,
               description="Only events about this job (or deployment): those that name "
                           "it, the gang it came in, and the one that preempted it.")] = None
           ) -> dict[str, Any]:
    require_cluster(request, principal, cluster_id, "read", CLUSTERS)
    where = LogFilter(decision=decision, reason=reason, job=job_id)
    items, nxt = list_events(ctx, cluster_id, limit, int(cursor) if cursor else 0, where,
                             newest_first=order == "desc")
    return {"items": items, "next_cursor": nxt}


@router.get("/{cluster_id}/decisions", response_model=DecisionSummary,
            operation_id="getDecisionSummary",
            summary="Decisions and reasons counted over the last `window` events",
            responses=responses(404, 409, 422))
def decisions(cluster_id: str, ctx: Ctx, principal: Auth, request: Request,
              window: Annotated[int, Query(ge=1, le=10_000)] = 500) -> dict[str, Any]:
    require_cluster(request, principal, cluster_id, "read", CLUSTERS)
    return decision_summary(ctx, cluster_id, window)


def state(cluster_id: str, ctx: Ctx, principal: Auth, request: Request) -> dict[str, Any]:
    require_cluster(request, principal, cluster_id, "read", CLUSTERS)

    def reader(adapter: PolicyAdapter[Any], cluster: ClusterRow) -> dict[str, Any]:
        return {"cluster_id": cluster.id, "version": cluster.version,
                **cluster.family.describe(adapter, cluster.created_at)}

    view = read_adapter(ctx, cluster_id, reader)
    derivation = view.get("threshold_derivation") or {}
    if derivation.get("status") == "calibrating":  # a moment cluster's, with its progress
        view["calibration"] = calibrator.progress(ctx, derivation["calibration"]["key"])
    return view


@router.get("/{cluster_id}/servers", response_model=ServerPage, operation_id="listServers",
            summary="Servers in order, each with its fill and (DRA) configuration and group",
            responses=responses(404, 409, 422))
def servers(cluster_id: str, ctx: Ctx, principal: Auth, request: Request,
            limit: Annotated[int, Query(ge=1, le=1000)] = 500,
            cursor: Annotated[str | None, Query(pattern=r"^[0-9]{1,9}$")] = None
            ) -> dict[str, Any]:
    require_cluster(request, principal, cluster_id, "read", CLUSTERS, HasServers)
    start = int(cursor) if cursor else 0

    def reader(adapter: HasServers, _cluster: ClusterRow) -> dict[str, Any]:
        ids = adapter.model.server_ids
        items = [_server_summary(adapter.server_view(sid))
                 for sid in ids[start:start + limit]]
        more = start + limit < len(ids)
        return {"items": items, "total": len(ids),
                "next_cursor": str(start + limit) if more else None}

    return read_adapter(ctx, cluster_id, reader, HasServers)


def _server_summary(view: dict[str, Any]) -> dict[str, Any]:
    fill = max((view["used"][d] / c for d, c in view["capacity"].items() if c > 0), default=0.0)
    return {"server_id": view["server_id"], "pool": view["pool"], "fill": fill,
            "jobs": len(view["jobs"]), "jobs_per_type": view["jobs_per_type"],
            "configuration": view.get("configuration"), "rank": view.get("rank"),
            "group": view.get("group")}


@router.get("/{cluster_id}/servers/{server_id}", operation_id="getServer", response_model=None,
            summary="One server: configuration, jobs, group",
            responses={200: {"model": ServerView, "description": "The server"}, **responses(404, 409)})
def server(cluster_id: str, server_id: str, ctx: Ctx, principal: Auth, request: Request
           ) -> dict[str, Any]:
    require_cluster(request, principal, cluster_id, "read", CLUSTERS, HasServers)
    return read_adapter(ctx, cluster_id, lambda adapter, _c: adapter.server_view(server_id),
                        HasServers)
