"""What-if runs: replay a cluster's (or reservation stream's) own log under another policy.

``POST .../what-if`` checks the alternative as a declaration of the cluster's family (the rest
of the cluster's declaration kept) and queues a run (202, ``Location``); the service's
background loop computes it off the decision path (app/service/whatifs.py). ``GET`` reads a
run's status, progress and result, or the cluster's runs; ``DELETE`` cancels one. A write key
may start and cancel runs, a read key may read them; a run is its cluster's, so its owner's.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request, Response, status
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError

from app.api.problems import field_path, responses
from app.api.routes.clusters import _declared
from app.api.routes.deps import Auth, Ctx, SentBody, require_cluster
from app.api.schemas.whatif import WhatIfCreate, WhatIfPage, WhatIfRun
from app.errors import HeadroomError, Unprocessable
from app.families.base import Family
from app.policies import alternatives
from app.service import clusters as cluster_service
from app.service import whatifs
from app.service.context import ServiceContext

router = APIRouter(tags=["what-if"], responses=responses(401, 403))


def _alternative(ctx: ServiceContext, family: Family[Any], stored: dict[str, Any], policy: dict[str, Any],
                 sent: Any) -> dict[str, Any]:
    """The alternative's declaration: the cluster's (``stored``), with ``policy`` replaced and
    checked as a new declaration of the same family would be."""
    kind = policy.get("kind")
    if kind not in family.kinds:
        raise Unprocessable(
            f"policy.kind must be a kind of this cluster's family ({family.name}): "
            f"{', '.join(family.kinds)}",
            errors=[{"field": "policy.kind", "message": f"not a {family.name} kind"}])
    declaration = {**stored, "policy": policy}
    try:
        parsed = family.create_model.model_validate(declaration)
    except ValidationError as exc:
        raise RequestValidationError(
            [{**e, "loc": ("body", *e["loc"])} for e in exc.errors(include_context=False)],
            body=sent) from exc
    _, spec = _declared(ctx, parsed)
    derivation = (spec["policy"].get("derivation") or {})
    if derivation.get("status") == "calibrating":
        raise Unprocessable(
            "this alternative's threshold is not calibrated yet, and a what-if does not wait "
            "for a calibration: give policy.threshold (`headroom calibrate moment` prints one)",
            errors=[{"field": "policy.threshold", "message": "required for this declaration"}])
    return spec


def _advice_request(ctx: ServiceContext, family: Family[Any], stored: dict[str, Any], body: WhatIfCreate,
                    sent: Any) -> dict[str, Any]:
    """An advisor run's request: the objective (checked against the family) and every
    candidate the advisor tries, declared as ``_alternative`` declares one; a candidate this
    cluster cannot declare (a moment kind whose threshold would need a calibration) is
    skipped, with why."""
    assert body.advise is not None
    objective = body.advise.objective or alternatives.DEFAULT_OBJECTIVE[family.name]
    if family.name not in alternatives.OBJECTIVES[objective][0]:
        usable = [o for o, (fams, _) in alternatives.OBJECTIVES.items() if family.name in fams]
        raise Unprocessable(
            f"advise.objective {objective!r} does not apply to a {family.name} cluster: "
            f"{', '.join(usable)}",
            errors=[{"field": "advise.objective", "message": f"not a {family.name} objective"}])
    if body.advise.max_rejection is not None and family.name != "placement":
        raise Unprocessable(
            "advise.max_rejection applies to placement clusters only (the others do not reject "
            "arrivals)", errors=[{"field": "advise.max_rejection",
                                  "message": f"not used on a {family.name} cluster"}])
    candidates, skipped = [], []
    for policy in alternatives.candidates(family.name, stored["policy"]):
        try:
            declaration = _alternative(ctx, family, stored, policy, sent)
        except HeadroomError as exc:
            skipped.append({"policy": policy, "reason": exc.detail})
            continue
        except RequestValidationError as exc:
            skipped.append({"policy": policy, "reason": "; ".join(
                f"{field_path(tuple(e['loc']), {'policy': policy}, e['type'])}: {e['msg']}"
                for e in exc.errors())})
            continue
        candidates.append({"policy": policy, "declaration": declaration})
    return {"advise": {"objective": objective, "max_rejection": body.advise.max_rejection},
            "candidates": candidates, "skipped": skipped}


def question(ctx: ServiceContext, family: Family[Any], stored: dict[str, Any],
             body: WhatIfCreate, sent: Any = None) -> dict[str, Any]:
    """The run's request as the background job (and ``headroom what-if``) computes it: the
    alternative's declaration or the advisor's candidates, the window, seeds and how many
    differences to show."""
    if body.policy is not None:
        asked = {"policy": body.policy,
                 "declaration": _alternative(ctx, family, stored, body.policy, sent)}
    else:
        asked = _advice_request(ctx, family, stored, body, sent)
    return {**asked, "window": body.window.model_dump(exclude_none=True), "seeds": body.seeds,
            "differences": body.differences}


def _start(request: Request, ctx: Ctx, principal: Auth, response: Response, cluster_id: str,
           body: WhatIfCreate, sent: Any, collection: str, prefix: str) -> dict[str, Any]:
    family = require_cluster(request, principal, cluster_id, "write", collection)
    stored = cluster_service.get_cluster(ctx, cluster_id, lambda c: c.spec)
    run = whatifs.start(ctx, cluster_id, question(ctx, family, stored, body, sent))
    response.headers["Location"] = f"{prefix}/{cluster_id}/what-if/{run['id']}"
    return run


# Any id: one of another cluster's (or owner's) runs answers 404 like one that does not exist.
RunId = Annotated[str, Path(max_length=64)]
START = {"status_code": status.HTTP_202_ACCEPTED, "response_model": WhatIfRun,
         "responses": responses(400, 404, 409, 413, 422)}
READ = {"response_model": WhatIfRun, "responses": responses(404, 409, 422)}
LIST = {"response_model": WhatIfPage, "responses": responses(404, 409, 422)}
Limit = Annotated[int, Query(ge=1, le=100)]


def _listing(request: Request, ctx: Ctx, principal: Auth, cluster_id: str, collection: str,
             limit: int) -> dict[str, Any]:
    require_cluster(request, principal, cluster_id, "read", collection)
    return {"items": whatifs.page(ctx, cluster_id, limit)}


def _one(request: Request, ctx: Ctx, principal: Auth, cluster_id: str, collection: str,
         run_id: str) -> dict[str, Any]:
    require_cluster(request, principal, cluster_id, "read", collection)
    return whatifs.view(ctx, cluster_id, run_id)


def _cancel(request: Request, ctx: Ctx, principal: Auth, cluster_id: str, collection: str,
            run_id: str) -> dict[str, Any]:
    require_cluster(request, principal, cluster_id, "write", collection)
    return whatifs.cancel(ctx, cluster_id, run_id)


@router.post("/v1/clusters/{cluster_id}/what-if", operation_id="startWhatIf",
             summary="Replay this cluster's log under another policy (a background run)", **START)
def start(cluster_id: str, body: WhatIfCreate, request: Request, ctx: Ctx, principal: Auth,
          response: Response, sent: SentBody) -> dict[str, Any]:
    return _start(request, ctx, principal, response, cluster_id, body, sent, "clusters",
                  "/v1/clusters")


@router.get("/v1/clusters/{cluster_id}/what-if", operation_id="listWhatIfs",
            summary="This cluster's what-if runs, newest first (without their results)", **LIST)
def listing(cluster_id: str, request: Request, ctx: Ctx, principal: Auth, limit: Limit = 20
            ) -> dict[str, Any]:
    return _listing(request, ctx, principal, cluster_id, "clusters", limit)


@router.get("/v1/clusters/{cluster_id}/what-if/{run_id}", operation_id="getWhatIf",
            summary="A what-if run: status, progress and, once done, its result", **READ)
def one(cluster_id: str, run_id: RunId, request: Request, ctx: Ctx, principal: Auth
        ) -> dict[str, Any]:
    return _one(request, ctx, principal, cluster_id, "clusters", run_id)


@router.delete("/v1/clusters/{cluster_id}/what-if/{run_id}", operation_id="cancelWhatIf",
               summary="Cancel a queued or running what-if run", **READ)
def cancel(cluster_id: str, run_id: RunId, request: Request, ctx: Ctx, principal: Auth
           ) -> dict[str, Any]:
    return _cancel(request, ctx, principal, cluster_id, "clusters", run_id)


@router.post("/v1/reservations/{reservation_id}/what-if", operation_id="startReservationWhatIf",
             summary="Replay this stream's observations under another policy (a background run)",
             **START)
def start_reservation(reservation_id: str, body: WhatIfCreate, request: Request, ctx: Ctx,
                      principal: Auth, response: Response, sent: SentBody) -> dict[str, Any]:
    return _start(request, ctx, principal, response, reservation_id, body, sent,
                  "reservations", "/v1/reservations")


@router.get("/v1/reservations/{reservation_id}/what-if", operation_id="listReservationWhatIfs",
            summary="This stream's what-if runs, newest first (without their results)", **LIST)
def listing_reservation(reservation_id: str, request: Request, ctx: Ctx, principal: Auth,
                        limit: Limit = 20) -> dict[str, Any]:
    return _listing(request, ctx, principal, reservation_id, "reservations", limit)


@router.get("/v1/reservations/{reservation_id}/what-if/{run_id}",
            operation_id="getReservationWhatIf",
            summary="A stream's what-if run: status, progress and, once done, its result", **READ)
def one_reservation(reservation_id: str, run_id: RunId, request: Request, ctx: Ctx,
                    principal: Auth) -> dict[str, Any]:
    return _one(request, ctx, principal, reservation_id, "reservations", run_id)


@router.delete("/v1/reservations/{reservation_id}/what-if/{run_id}",
               operation_id="cancelReservationWhatIf",
               summary="Cancel a stream's queued or running what-if run", **READ)
def cancel_reservation(reservation_id: str, run_id: RunId, request: Request, ctx: Ctx,
                       principal: Auth) -> dict[str, Any]:
    return _cancel(request, ctx, principal, reservation_id, "reservations", run_id)
