"""Kubernetes speaks to a cluster: kube-scheduler's extender verbs and an admission webhook.

Each route exists twice. ``/v1/clusters/{cluster_id}/kubernetes/...`` takes the key in the
``Authorization`` header, like every other route. ``/v1/kubernetes/{api_key}/clusters/
{cluster_id}/...`` takes it in the path, because neither kube-scheduler's extender
configuration (urlPrefix, TLS) nor a webhook's clientConfig (url or service, caBundle) can
send a header: the URL is the only thing an operator controls. Logs, spans and error
documents write the key's segment as ``{api_key}`` (app/redact.py), whatever the answer. Use
a write key limited to the one cluster. docs/integrations/kubernetes.md says more.
"""

# No ``from __future__ import annotations``: _extender_routes annotates its endpoints with
# models chosen at run time, which FastAPI must see as classes, not strings.
import re
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request

from app.api.problems import responses
from app.api.routes.deps import Auth, Ctx, require_cluster
from app.api.schemas.kubernetes import (
    AdmissionReviewIn,
    AdmissionReviewOut,
    ExtenderArgs,
    ExtenderBindingArgs,
    ExtenderBindingResult,
    ExtenderFilterResult,
    HostPriority,
    NodeList,
)
from app.api.throttle import authenticated
from app.errors import Unprocessable
from app.kubernetes.apiserver import ApiServer, KubernetesApiServer
from app.service import admission, extender
from app.service.auth import Principal

extender_router = APIRouter(tags=["kubernetes"],
                            responses=responses(400, 401, 403, 404, 409, 413, 422, 503))
admission_router = APIRouter(tags=["kubernetes"],
                             responses=responses(400, 401, 403, 404, 409, 413, 422))

HEADER = "/v1/clusters/{cluster_id}/kubernetes"
KEYED = "/v1/kubernetes/{api_key}/clusters/{cluster_id}"


async def _path_principal(request: Request, ctx: Ctx, api_key: Annotated[str, Path(
        description="An API key, for clients that cannot send headers.")]) -> Principal:
    return authenticated(request.scope, ctx, api_key)


PathAuth = Annotated[Principal, Depends(_path_principal)]


def _verdict(request: Request, principal: Principal, cluster_id: str, args: ExtenderArgs
             ) -> tuple[extender.Verdict, list[str]]:
    family = require_cluster(request, principal, cluster_id, "write")
    nodes = args.node_names()
    if nodes is None:
        raise Unprocessable("ExtenderArgs carries neither Nodes nor NodeNames",
                            errors=[{"field": "Nodes", "message": "Nodes or NodeNames required"}])
    pod = extender.PodRef.of(args.Pod)
    return extender.filter_nodes(request.app.state.ctx, cluster_id, family, pod, nodes), \
        nodes


def _filter(request: Request, principal: Principal, cluster_id: str, args: ExtenderArgs
            ) -> ExtenderFilterResult:
    verdict, _nodes = _verdict(request, principal, cluster_id, args)
    passing: dict[str, Any] = {"NodeNames": verdict.passing}
    if args.NodeNames is None:
        assert args.Nodes is not None
        keep = set(verdict.passing)
        passing = {"Nodes": NodeList.model_construct(items=[
            n for n in args.Nodes.items if n.metadata.name in keep])}
    return ExtenderFilterResult(**passing, FailedNodes=verdict.failed,
                                FailedAndUnresolvableNodes=verdict.unresolvable)


def _prioritize(request: Request, principal: Principal, cluster_id: str, args: ExtenderArgs
                ) -> list[dict[str, Any]]:
    verdict, nodes = _verdict(request, principal, cluster_id, args)
    return verdict.scores(nodes)


def api_server(request: Request) -> ApiServer:
    """``app.state.kube_api`` if something injected one, else the real client (made once)."""
    state = request.app.state
    if getattr(state, "kube_api", None) is None:
        state.kube_api = KubernetesApiServer()
    return state.kube_api


def _bind(request: Request, principal: Principal, cluster_id: str, args: ExtenderBindingArgs
          ) -> dict[str, str]:
    family = require_cluster(request, principal, cluster_id, "write")
    binding = extender.Binding(args.PodUID, args.PodNamespace, args.PodName, args.Node)
    error = extender.bind_pod(request.app.state.ctx, cluster_id, family, binding,
                              api_server(request))
    return {"Error": error}


# ASCII digits only (\d takes any script's, and $ a trailing newline), bounded: nothing
# longer is a timeout an API server sends.
_DURATION = re.compile(r"([0-9]{1,6}(?:\.[0-9]{1,6})?)(ms|s|m)")


def _deadline(ctx: Any, timeout: str | None) -> float:
    """The setting, or half the API server's own ``?timeout=`` (it appends one, e.g.
    ``10s``), whichever is less; an unreadable timeout is ignored."""
    deadline = ctx.settings.kube_webhook_deadline_seconds
    m = _DURATION.fullmatch(timeout or "")
    if m:
        seconds = float(m.group(1)) * {"ms": 0.001, "s": 1, "m": 60}[m.group(2)]
        deadline = min(deadline, max(seconds / 2, 0.1))
    return deadline


def _admit(request: Request, principal: Principal, cluster_id: str, body: AdmissionReviewIn,
           timeout: str | None) -> dict[str, Any]:
    require_cluster(request, principal, cluster_id, "write")
    ctx = request.app.state.ctx
    req = body.request
    if (req.resource.group, req.resource.resource) != ("apps", "deployments"):
        outcome = admission.Outcome(True, 200, f"headroom: {req.resource.resource} are not "
                                               "governed")
    else:
        review = admission.Review(req.uid, req.operation, req.subResource or "",
                                  req.namespace or "", req.name or "", req.object,
                                  req.oldObject, bool(req.dryRun))
        outcome = admission.review(ctx, cluster_id, review, _deadline(ctx, timeout))
    return AdmissionReviewOut(response={
        "uid": req.uid, "allowed": outcome.allowed, "warnings": outcome.warnings,
        "status": {"code": outcome.code, "message": outcome.message}}).model_dump()


Timeout = Annotated[str | None, Query(description="The API server's call timeout (e.g. "
                                                  "10s); the answer comes within half of it.")]

ADMIT = dict(response_model=AdmissionReviewOut,
             summary="Validating admission webhook (AdmissionReview v1) for Deployments on a "
                     "moment-admission cluster")


def _extender_routes(verb: str, operation: str, body: type, handler: Callable[..., Any],
                     response_model: Any, summary: str) -> None:
    """The verb's two routes (key in the header, key in the path) around one handler. The
    annotations are real classes here (this module does not postpone annotations), which is
    what lets FastAPI read a body model chosen at run time."""

    def with_header(cluster_id: str, args: body, principal: Auth,  # type: ignore[valid-type]
                    request: Request) -> Any:
        return handler(request, principal, cluster_id, args)

    def with_path_key(cluster_id: str, args: body, principal: PathAuth,  # type: ignore[valid-type]
                      request: Request) -> Any:
        return handler(request, principal, cluster_id, args)

    for path, endpoint, op in ((HEADER, with_header, operation),
                               (KEYED, with_path_key, operation + "Keyed")):
        endpoint.__name__ = op
        extender_router.add_api_route(f"{path}/extender/{verb}", endpoint, methods=["POST"],
                                      operation_id=op, response_model=response_model,
                                      summary=summary)


_extender_routes("filter", "kubeFilter", ExtenderArgs, _filter, ExtenderFilterResult,
                 "kube-scheduler extender filter: the nodes Headroom would use (what-if)")
_extender_routes("prioritize", "kubePrioritize", ExtenderArgs, _prioritize, list[HostPriority],
                 "kube-scheduler extender prioritize: Headroom's choice scores 10")
_extender_routes("bind", "kubeBind", ExtenderBindingArgs, _bind, ExtenderBindingResult,
                 "kube-scheduler extender bind: commit the arrival (pod UID as event id), "
                 "then bind through the API server")


@admission_router.post(HEADER + "/admission", operation_id="kubeAdmission", **ADMIT)
def kube_admission(cluster_id: str, body: AdmissionReviewIn, principal: Auth, request: Request,
                   timeout: Timeout = None) -> dict[str, Any]:
    return _admit(request, principal, cluster_id, body, timeout)


@admission_router.post(KEYED + "/admission", operation_id="kubeAdmissionKeyed", **ADMIT)
def kube_admission_keyed(cluster_id: str, body: AdmissionReviewIn, principal: PathAuth,
                         request: Request, timeout: Timeout = None) -> dict[str, Any]:
    return _admit(request, principal, cluster_id, body, timeout)
