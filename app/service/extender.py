"""kube-scheduler's extender verbs (filter, prioritize, bind) decided by a Headroom cluster.

Placement clusters: filter and prioritize are a what-if (nothing committed): the engine's
dry-run decision for the pod's job type. DRA keeps only the node it would choose; the
baselines (first/best fit, power of d) keep every node where the pod fits and prefer the one
they would choose. Bind commits the arrival with the pod's UID as event id and job id, so a
scheduler retrying a bind gets the stored decision back, then binds through the API server.

Queued clusters (RMS and the queue baselines, wall clock only): the pod waits in Headroom's
queue while filter keeps failing. The first filter commits the arrival (pod UID as event id);
every filter answers "queued" in ``FailedNodes`` (resolvable, so the scheduler retries the
pod) until Headroom has started the job, and then keeps only the server it started on. Bind
commits nothing new: the job is already running there. Why not scheduling gates: see
docs/integrations/kubernetes.md.

Tenants: where the cluster declares tenants, a pod runs for the tenant named like its
namespace (its arrival names it); an undeclared namespace is unresolvable, an arrival over
the tenant's quota resolvable (a departure of the tenant frees quota).

A pod with a Kueue Workload's plan (the annotation ``headroom.io/placement``, set by the
Kueue controller, app/kubernetes/pinning.py) is one of the jobs Headroom already holds for
that Workload: filter keeps only the server Headroom holds that job on and bind binds it there,
committing nothing; a job Headroom does not hold (any more) is unresolvable.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from app.errors import Conflict
from app.families.base import Family
from app.kubernetes import messages
from app.kubernetes.apiserver import ApiServer, ApiServerError
from app.kubernetes.mapping import NoJobType, job_type_for, requests_of
from app.kubernetes.objects import Pod
from app.kubernetes.pinning import Unpinned, planned_job
from app.policies.capabilities import RunsJobs, TracksJobs
from app.policies.errors import PolicyError, UnknownJob
from app.policies.model import ClusterModel
from app.policies.placement import PlacementAdapter
from app.policies.tenancy import TenantRefused, UnknownTenant
from app.service.context import ServiceContext
from app.service.engines import ClusterRow
from app.service.events import read_adapter, submit_event

log = logging.getLogger("headroom.kubernetes")

# k8s.io/kube-scheduler/extender/v1 MaxExtenderPriority (10 up to at least v1.32); the
# scheduler multiplies it by weight * MaxNodeScore / MaxExtenderPriority.
MAX_EXTENDER_PRIORITY = 10


@dataclass
class Verdict:
    """What filter answers, and what prioritize scores from."""

    passing: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    unresolvable: dict[str, str] = field(default_factory=dict)
    chosen: str | None = None  # the server Headroom chose (scored highest)

    def scores(self, nodes: list[str]) -> list[dict[str, Any]]:
        return [{"Host": n, "Score": MAX_EXTENDER_PRIORITY if n == self.chosen else 0}
                for n in nodes]


@dataclass(frozen=True)
class PodRef:
    """A validated pod as the engines see it: its UID (job id and event id), its effective
    requests in Headroom's units, its namespace (its tenant, where the cluster declares
    tenants), and the job its Kueue plan names, if it carries one."""

    uid: str
    requests: dict[str, float]
    namespace: str | None = None
    plan: str | Unpinned | None = None

    @classmethod
    def of(cls, pod: Pod) -> PodRef:
        # Labels and annotations are not typed fields of the pod (the plan's own rules check
        # the one annotation read), so they are read as sent.
        return cls(pod.metadata.uid, requests_of(pod.spec), pod.metadata.namespace,
                   planned_job(pod.metadata.model_extra or {}))


_message = messages.reason


def _arrival(adapter: Any, pod: PodRef, job_type: str) -> dict[str, Any]:
    """The pod's arrival; with its tenant where the cluster declares tenants (only then:
    the events of a cluster without tenants stay exactly what they were)."""
    event: dict[str, Any] = {"kind": "arrival", "job_id": pod.uid, "job_type": job_type}
    if getattr(adapter, "quotas", None) is not None:
        event["tenant"] = pod.namespace
    return event


def _tenant_problem(exc: PolicyError, namespace: str | None) -> str:
    if isinstance(exc, UnknownTenant):
        return f"headroom: unknown_tenant: namespace {namespace} is not a tenant of this " \
               "cluster (a pod runs for the tenant named like its namespace)"
    return f"headroom: {exc}"


def _pinned_server(adapter: PlacementAdapter, pod: PodRef, job: str) -> str:
    """Where Headroom holds the job a pod's plan names; ``NotPinned`` if nowhere."""
    server = adapter.server_of(job)
    if server is None:
        raise NotPinned(f"headroom: job {job} of this pod's plan is not held by the cluster "
                        "(its Workload is no longer admitted, or finished)")
    quotas = adapter.quotas
    holder = quotas.holders.get(job) if quotas is not None else None
    if holder is not None and holder.tenant != pod.namespace:
        raise NotPinned(f"headroom: job {job} runs for tenant {holder.tenant}, not for this "
                        f"pod's namespace {pod.namespace}")
    return server


class NotPinned(Exception):
    """A pod's plan that names no job Headroom holds for it."""


def _pinned_verdict(server: str, job: str, nodes: list[str], model: ClusterModel) -> Verdict:
    verdict = Verdict(chosen=server)
    for n in _split_nodes(model, nodes, verdict):
        if n == server:
            verdict.passing.append(n)
        else:
            verdict.failed[n] = f"headroom: pinned to {server} (job {job} of its Workload)"
    return verdict


def _no_type_verdict(nodes: list[str], no_type: NoJobType) -> Verdict:
    msg = f"headroom: {no_type.reason} {no_type.details}"
    return Verdict(unresolvable={n: msg for n in nodes})


def _split_nodes(model: ClusterModel, nodes: list[str], verdict: Verdict) -> list[str]:
    """Nodes that are servers of the cluster; the others are unresolvable in ``verdict``."""
    known = []
    for n in nodes:
        if n in model.server_numbers:
            known.append(n)
        else:
            verdict.unresolvable[n] = "headroom: node_not_in_cluster (a node's name must be " \
                                      "its server id, <pool>-<i>)"
    return known


def _placement_verdict(adapter: PlacementAdapter, kind: str, pod: PodRef, nodes: list[str]
                       ) -> Verdict:
    model = adapter.model
    if isinstance(pod.plan, Unpinned):
        return Verdict(unresolvable={n: f"headroom: this pod's plan names no job: "
                                        f"{pod.plan.reason}" for n in nodes})
    if pod.plan is not None:
        try:
            return _pinned_verdict(_pinned_server(adapter, pod, pod.plan), pod.plan, nodes,
                                   model)
        except NotPinned as exc:
            return Verdict(unresolvable={n: str(exc) for n in nodes})
    job_type = job_type_for(model, pod.requests)
    if isinstance(job_type, NoJobType):
        return _no_type_verdict(nodes, job_type)
    verdict = Verdict()
    known = _split_nodes(model, nodes, verdict)
    held = adapter.server_of(pod.uid)
    if held is not None:  # already committed by a bind whose API call failed: keep it
        decision = {"decision": "placed", "server_id": held, "reason": "already_placed",
                    "details": {}}
    else:
        try:
            decision = adapter.dry_run(_arrival(adapter, pod, job_type)).to_dict()
        except (UnknownTenant, TenantRefused) as exc:
            verdict.unresolvable.update({n: _tenant_problem(exc, pod.namespace) for n in known})
            return verdict
    chosen = decision["server_id"] if decision["decision"] == "placed" else None
    verdict.chosen = chosen
    if chosen is None:
        # DRA's rejection is its admission decision (no preemption on these nodes changes
        # it); a baseline's means no server has room now, which a departure can change, and
        # so does the tenant's quota.
        quota = decision.get("reason") == "quota_exceeded"
        target = verdict.unresolvable if kind == "dra" and not quota else verdict.failed
        target.update({n: f"headroom: {decision['decision']} {job_type} pod: "
                          f"{_message(decision)}" for n in known})
        return verdict
    for n in known:
        fits = adapter.fits(n, job_type)
        if n == chosen or (kind != "dra" and fits):
            verdict.passing.append(n)
        elif fits:
            verdict.failed[n] = f"headroom: DRA places this {job_type} pod on {chosen}: " \
                                f"{_message(decision)}"
        else:
            verdict.failed[n] = f"headroom: no room for a {job_type} pod on {n}"
    return verdict


def _queue_verdict(job: Mapping[str, Any], nodes: list[str], model: ClusterModel) -> Verdict:
    verdict = Verdict()
    known = _split_nodes(model, nodes, verdict)
    if job["status"] == "running":
        verdict.chosen = job["server_id"]
        for n in known:
            if n == job["server_id"]:
                verdict.passing.append(n)
            else:
                verdict.failed[n] = f"headroom: started on {job['server_id']}"
        return verdict
    if job["status"] == "queued":
        msg = f"headroom: queued (job type {job['job_type']}, position {job.get('position')}); " \
              "waits until Headroom starts it"
    else:  # finished, or withdrawn from its queue by a departure before it started
        msg = f"headroom: this pod's job already {job['status']} in Headroom"
    verdict.failed.update({n: msg for n in known})
    return verdict


def _model_and_type(ctx: ServiceContext, cluster_id: str, pod: PodRef
                    ) -> tuple[ClusterModel, str | NoJobType, dict[str, Any]]:
    """The cluster's model, the pod's job type, and the pod's arrival event."""
    def read(adapter: RunsJobs, _cluster: ClusterRow
             ) -> tuple[ClusterModel, str | NoJobType, dict[str, Any]]:
        # Queues keep time, and so does a DRA migration budget: on the clients' clock every
        # event must carry ``at``, which kube-scheduler never sends. (None: no time kept.)
        if adapter.clock not in (None, "wall"):
            raise Conflict("a cluster on the client clock cannot be driven by kube-scheduler "
                           "(it sends no time); declare its clock as wall")
        job_type = job_type_for(adapter.model, pod.requests)
        event = {} if isinstance(job_type, NoJobType) else _arrival(adapter, pod, job_type)
        return adapter.model, job_type, event
    return read_adapter(ctx, cluster_id, read, RunsJobs)


def _queued_job(ctx: ServiceContext, cluster_id: str, pod: PodRef, event: dict[str, Any]
                ) -> dict[str, Any]:
    submit_event(ctx, cluster_id, {**event, "event_id": pod.uid})
    return read_adapter(ctx, cluster_id, lambda adapter, _c: adapter.job_view(pod.uid), TracksJobs)


def _planned_queue_job(ctx: ServiceContext, cluster_id: str, job: str
                       ) -> tuple[ClusterModel, dict[str, Any]]:
    """The job a pod's plan names on a queued cluster, as Headroom holds it."""
    return read_adapter(ctx, cluster_id, lambda adapter, _c: (adapter.model,
                                                              adapter.job_view(job)), TracksJobs)


def filter_nodes(ctx: ServiceContext, cluster_id: str, family: Family[Any], pod: PodRef,
                 nodes: list[str]) -> Verdict:
    """``family``: the cluster's. A cluster that tracks its jobs (a queue) holds the pod until
    it starts it; any other places it at once."""
    if family.has(TracksJobs):
        if isinstance(pod.plan, Unpinned):
            return Verdict(unresolvable={n: f"headroom: this pod's plan names no job: "
                                            f"{pod.plan.reason}" for n in nodes})
        if pod.plan is not None:
            try:
                model, job = _planned_queue_job(ctx, cluster_id, pod.plan)
            except UnknownJob:
                return Verdict(unresolvable={n: f"headroom: job {pod.plan} of this pod's plan "
                                                "is not held by the cluster" for n in nodes})
            return _queue_verdict(job, nodes, model)
        model, job_type, event = _model_and_type(ctx, cluster_id, pod)
        if isinstance(job_type, NoJobType):
            return _no_type_verdict(nodes, job_type)
        return _queue_verdict(_queued_job(ctx, cluster_id, pod, event), nodes, model)
    return read_adapter(ctx, cluster_id, lambda adapter, cluster: _placement_verdict(
        adapter, cluster.policy_kind, pod, nodes), PlacementAdapter)


def _unreadable(exc: ValidationError) -> str:
    """The first problem of a pod the API server sent, in ASCII: the text is an answer's."""
    err = exc.errors()[0]
    where = ".".join(str(part) for part in err["loc"])
    return f"{where}: {err['msg']}".encode("ascii", "backslashreplace").decode()


@dataclass(frozen=True)
class Binding:
    """An ExtenderBindingArgs, validated."""

    uid: str
    namespace: str
    name: str
    node: str


def bind_pod(ctx: ServiceContext, cluster_id: str, family: Family[Any], binding: Binding,
             api: ApiServer) -> str:
    """Commit and bind; the ExtenderBindingResult's ``Error`` ("" when bound)."""
    uid, ns, name, node = binding.uid, binding.namespace, binding.name, binding.node
    try:
        if family.has(TracksJobs):
            try:
                job_id = uid
                job = read_adapter(ctx, cluster_id, lambda adapter, _c: adapter.job_view(uid),
                                   TracksJobs)
            except UnknownJob:  # not the pod's own job: is it one of a Workload's?
                try:
                    pod = _bound_pod(api, binding)
                except ApiServerError:
                    raise UnknownJob(uid) from None
                if isinstance(pod, str):
                    return pod
                if not isinstance(pod.plan, str):
                    raise
                job_id = pod.plan
                _model, job = _planned_queue_job(ctx, cluster_id, job_id)
            if job["status"] != "running":
                return f"headroom: job {job_id} is {job['status']}, not started; not bound"
            server = job["server_id"]
        else:
            pod = _bound_pod(api, binding)
            if isinstance(pod, str):
                return pod
            if pod.plan is not None:
                try:
                    server = _planned_server(ctx, cluster_id, pod)
                except NotPinned as exc:
                    return f"{exc}; not bound"
            else:
                _model, job_type, event = _model_and_type(ctx, cluster_id, pod)
                if isinstance(job_type, NoJobType):
                    return f"headroom: {job_type.reason} {job_type.details}; not bound"
                try:
                    answer = submit_event(ctx, cluster_id, {**event, "event_id": uid})
                except (UnknownTenant, TenantRefused) as exc:
                    return f"{_tenant_problem(exc, pod.namespace)}; not bound"
                if answer["decision"] != "placed":
                    return f"headroom: {_message(answer)}; not bound " \
                           f"(event {answer['event_seq']})"
                server = answer["server_id"]
        if server != node:
            # Headroom's committed placement is the truth its accounting holds; the scheduler's
            # cache follows the pod to the node it is bound to.
            log.warning("binding to Headroom's server, not the scheduler's node",
                        extra={"cluster_id": cluster_id, "pod_uid": uid, "node": node,
                               "server_id": server})
        api.bind(ns, name, uid, server)
    except ApiServerError as exc:
        return f"headroom: API server: {exc}"
    return ""


def _bound_pod(api: ApiServer, binding: Binding) -> PodRef | str:
    """The pod a bind is for, as the API server has it; the bind's ``Error`` if unreadable
    or replaced (another UID)."""
    ns, name = binding.namespace, binding.name
    try:
        pod = PodRef.of(Pod.model_validate(api.get_pod(ns, name)))
    except ValidationError as exc:
        return f"headroom: the API server's pod {ns}/{name} cannot be read " \
               f"({_unreadable(exc)}); not bound"
    if pod.uid != binding.uid:
        return f"headroom: pod {ns}/{name} now has UID {pod.uid}, not {binding.uid}; not bound"
    return pod


def _planned_server(ctx: ServiceContext, cluster_id: str, pod: PodRef) -> str:
    """Where Headroom holds the job of a pod's plan; ``NotPinned`` if nowhere."""
    job = pod.plan
    if isinstance(job, Unpinned):
        raise NotPinned(f"headroom: this pod's plan names no job: {job.reason}")
    assert job is not None
    return read_adapter(ctx, cluster_id,
                        lambda adapter, _c: _pinned_server(adapter, pod, job), PlacementAdapter)
