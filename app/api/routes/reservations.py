"""/v1/reservations: streams that answer "how much to reserve next period" (THOR, §II-III).

A stream is serialised, logged, cached and made idempotent exactly like a placement cluster
(it is stored in the same table, with its policy kind telling the families apart)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Header, Query, Request, Response, status

from app.api.lean import lean
from app.api.problems import responses
from app.api.routes.deps import (
    Auth,
    Ctx,
    IdempotencyKey,
    SentBody,
    event_id_from,
    if_match_generation,
    require_cluster,
    require_cluster_async,
)
from app.api.schemas.common import NAME_PATTERN
from app.api.schemas.reservations import (
    Hindsight,
    HistoryPage,
    ObservationIn,
    ObservationOut,
    ReservationCreate,
    ReservationOut,
    ReservationPage,
)
from app.policies.errors import build_declared
from app.policies.thor.family import ReservationAdapter
from app.service import clusters as service
from app.service.decider import submit
from app.service.events import read_adapter
from app.service.hindsight import hindsight
from app.service.log import list_events
from app.store.models import Cluster, as_utc

router = APIRouter(prefix="/v1/reservations", tags=["reservations"],
                   responses=responses(401, 403))
BODY = responses(400, 413, 422)


def reservation_view(c: Cluster) -> dict[str, Any]:
    spec = c.spec
    return {"id": c.id, "owner": c.owner, "name": c.name, "resources": spec["resources"],
            "policy": spec["policy"], "initial": spec.get("initial"), "version": c.version,
            "generation": c.generation, "created_at": as_utc(c.created_at),
            "updated_at": as_utc(c.updated_at)}


def _declared_field(exc: Exception) -> str:
    """The declaration's field a refused build names: the engine names its parameters
    (``params.alpha``), which sit within the declaration's ``policy``."""
    field = getattr(exc, "field", None) or "policy.params"
    return f"policy.{field}" if field.startswith("params") else field


@router.post("", status_code=status.HTTP_201_CREATED, response_model=ReservationOut,
             operation_id="createReservation", summary="Start a reservation stream",
             responses={**BODY, **responses(409)})
def create(body: ReservationCreate, ctx: Ctx, principal: Auth, response: Response,
           sent: SentBody, idempotency_key: IdempotencyKey = None) -> dict[str, Any]:
    principal.require("admin")
    spec = body.model_dump(mode="json")
    build_declared(ReservationAdapter.build, spec, _declared_field)  # the policy's own checks
    view, replayed = service.create_cluster(ctx, spec, principal.owner, idempotency_key,
                                           sent=sent)
    response.headers["Location"] = f"/v1/reservations/{view['id']}"
    if replayed:
        response.headers["Idempotent-Replayed"] = "true"
    return service.get_cluster(ctx, view["id"], reservation_view)


@router.get("", response_model=ReservationPage, operation_id="listReservations",
            summary="List reservation streams by name", responses=responses(422))
def list_all(ctx: Ctx, principal: Auth, limit: Annotated[int, Query(ge=1, le=500)] = 100,
             cursor: Annotated[str | None, Query(pattern=NAME_PATTERN)] = None,
             name: Annotated[str | None, Query(
                 pattern=NAME_PATTERN, description="Only the stream of this name.")] = None
             ) -> dict[str, Any]:
    principal.require("read")
    owner = None if ctx.settings.auth_disabled else principal.owner
    items, nxt = service.list_clusters(ctx, owner, limit, cursor,
                                       ctx.families.kinds("reservations"), reservation_view,
                                       name=name)
    return {"items": items, "next_cursor": nxt}


@router.get("/{reservation_id}", response_model=ReservationOut, operation_id="getReservation",
            summary="A stream: reservation in force, violation rate vs ε, queues, cost so far",
            responses=responses(404, 409))
def get(reservation_id: str, ctx: Ctx, principal: Auth, request: Request) -> dict[str, Any]:
    require_cluster(request, principal, reservation_id, "read")
    view = service.get_cluster(ctx, reservation_id, reservation_view)
    view["state"] = read_adapter(ctx, reservation_id, lambda engine, _c: engine.describe())
    return view


@router.delete("/{reservation_id}", status_code=status.HTTP_204_NO_CONTENT,
               operation_id="deleteReservation", summary="Delete a stream and its history",
               responses=responses(404, 409, 412, 422, 503))
def delete(reservation_id: str, ctx: Ctx, principal: Auth, request: Request,
           if_match: Annotated[str | None, Header(alias="If-Match")] = None) -> Response:
    require_cluster(request, principal, reservation_id, "admin")
    service.delete_cluster(ctx, reservation_id, if_match_generation(if_match))
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post("/{reservation_id}/observations", response_model=ObservationOut,
             operation_id="postObservation",
             summary="Report a period's demand; get the reservation for the next period",
             responses={**BODY, **responses(404, 409, 503)})
@lean
async def observe(reservation_id: str, body: ObservationIn, ctx: Ctx, principal: Auth,
                  request: Request, idempotency_key: IdempotencyKey = None) -> dict[str, Any]:
    await require_cluster_async(request, principal, reservation_id, "write")
    event = {"kind": "observation", "period": body.period, "demand": body.demand,
             "event_id": event_id_from(body.event_id, idempotency_key)}
    return await submit(ctx, reservation_id, event)


@router.get("/{reservation_id}/history", response_model=HistoryPage,
            operation_id="getReservationHistory",
            summary="Per period: demand, reservation, violation (oldest first, cursor paging)",
            responses=responses(404, 409, 422))
def history(reservation_id: str, ctx: Ctx, principal: Auth, request: Request,
            limit: Annotated[int, Query(ge=1, le=1000)] = 100,
            cursor: Annotated[str | None, Query(pattern=r"^[0-9]{1,18}$")] = None
            ) -> dict[str, Any]:
    require_cluster(request, principal, reservation_id, "read")
    rows, nxt = list_events(ctx, reservation_id, limit, int(cursor) if cursor else 0)
    items = [{"period": r["response"]["period"], "demand": r["response"]["demand"],
              "reserved": r["response"]["reserved"], "violated": r["response"]["violated"],
              "next_reservation": r["response"]["next_reservation"],
              "event_id": r["event_id"], "created_at": r["created_at"]} for r in rows]
    return {"items": items, "next_cursor": nxt}


@router.get("/{reservation_id}/hindsight", response_model=Hindsight,
            operation_id="getReservationHindsight",
            summary="Cost and violations so far vs the static hindsight oracle x*",
            responses=responses(404, 409))
def oracle(reservation_id: str, ctx: Ctx, principal: Auth, request: Request) -> dict[str, Any]:
    require_cluster(request, principal, reservation_id, "read")
    return hindsight(ctx, reservation_id)
