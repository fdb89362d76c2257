"""A Kueue AdmissionCheck controller: Headroom decides where each admitted Workload runs.

Kueue (``kueue.x-k8s.io/v1beta1``) reserves quota for a Workload, then waits until every
AdmissionCheck of its ClusterQueue is Ready. This controller owns the AdmissionChecks whose
``spec.controllerName`` is ``headroom.io/admission-check``: it marks them Active, and for each
Workload with quota reserved and its check Pending it asks the Headroom cluster and sets the
check's state in ``status.admissionChecks[]``.

Placement clusters: a Workload is placed whole or not at all, one job per pod
(``<workload UID>.<pod set>.<i>``). Where the cluster declares tenants it is one gang (``POST
.../gangs``, gang id and event id the Workload's UID, so a retry is a replay); Headroom serves
gangs only there, so elsewhere each pod is an arrival (event id its job id), and at the first
rejection those placed depart again.

- placed: **Ready**, with one ``podSetUpdates`` entry per pod set: the annotation
  ``headroom.io/placement`` (the pods' jobs, app/kubernetes/pinning.py), and, when every pod of
  the set is on one server, the node selector ``kubernetes.io/hostname: <server id>``. A pod
  set spread over several servers is pinned pod by pod by the scheduler extender, which reads
  the annotation; so its pods must use the Headroom scheduler and carry an index (an Indexed
  Job's, Kubeflow's), else its pods depart again and the Workload is Rejected saying why;
- rejected (no room for some pod, or over its tenant's quota): **Rejected** with Headroom's
  reason and numbers; nothing of it was placed.

Where the cluster declares tenants, the gang's tenant is the Workload's namespace (as for the
extender's pods: one tenant per namespace, whichever way its pods come).

On queued clusters this controller sends no gangs (Headroom would hold one whole until it
can start, which a Workload already admitted by Kueue's quota should not wait for unseen):
each pod set must hold one pod (others are Rejected), posted
as an arrival (event id and job id ``<workload UID>.<pod set>``) as before: every pod set
started: **Ready** with node selectors; any rejected: **Rejected** (pod sets already started
depart again); any still queued: **Retry** (Kueue releases the quota and asks again later).

A Workload that finishes or is deleted departs (its pods' jobs).

    python -m app.kubernetes.kueue --url https://headroom:443 --cluster <id>

(the key in ``$HEADROOM_API_KEY``)

Like the watcher, ``KueueController.handle`` takes plain watch events (Workloads as dicts), so
tests drive it with a fake stream; the API-server side goes through the ``kubernetes`` client.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

import httpx
from pydantic import ValidationError

from app.kubernetes import messages
from app.kubernetes.mapping import NoJobType, job_type_for, requests_of
from app.kubernetes.objects import PodTemplateSpec
from app.kubernetes.pinning import MAX_PODS, PLAN, gang_plan, index_of, job_plan
from app.kubernetes.watcher import controller_parser, headroom_http
from app.policies.model import ClusterModel, cluster_model

log = logging.getLogger("headroom.kubernetes.kueue")

CONTROLLER_NAME = "headroom.io/admission-check"
GROUP, VERSION = "kueue.x-k8s.io", "v1beta1"
NODE_LABEL = "kubernetes.io/hostname"
SCHEDULER_NAME = "headroom-scheduler"
NOTHING_KEPT = "a Workload is placed whole or not at all: nothing of it is placed"


class KueueApi(Protocol):
    def patch_workload_status(self, namespace: str, name: str, body: dict[str, Any]) -> None: ...

    def patch_admission_check_status(self, name: str, body: dict[str, Any]) -> None: ...


class Refused(Exception):
    """Headroom answered a request with a 4xx problem: the request can never succeed as is."""

    def __init__(self, code: str, detail: str):
        super().__init__(f"{code}: {detail}")
        self.code, self.detail = code, detail


def _answer(r: httpx.Response) -> dict[str, Any]:
    if 400 <= r.status_code < 500 and r.status_code != 429:
        try:
            problem = r.json()
        except ValueError:
            problem = {}
        raise Refused(str(problem.get("code") or r.status_code),
                      str(problem.get("detail") or r.reason_phrase))
    r.raise_for_status()
    return r.json()


class HeadroomCluster:
    """The Headroom cluster the controller posts to, over HTTP. Its declaration is read once
    (``GET /v1/clusters/{id}``): its family, model and tenants do not change."""

    def __init__(self, http: httpx.Client, cluster_id: str):
        self.http, self.cluster_id = http, cluster_id
        self._info: dict[str, Any] | None = None
        self._model: ClusterModel | None = None

    @property
    def info(self) -> dict[str, Any]:
        if self._info is None:
            r = self.http.get(f"/v1/clusters/{self.cluster_id}")
            r.raise_for_status()
            self._info = r.json()
        return self._info

    @property
    def model(self) -> ClusterModel:
        if self._model is None:
            self._model = cluster_model(self.info)
        return self._model

    @property
    def places(self) -> bool:
        """A placement cluster: it places a Workload's pods at once, all or none; a queued
        cluster makes them wait."""
        return self.info.get("family") == "placement"

    @property
    def tenants(self) -> list[str] | None:
        """The declared tenants' names; None when the cluster declares none."""
        tenants = self.info.get("tenants")
        return None if not tenants else [t["name"] for t in tenants]

    def tenant_of(self, workload: Mapping[str, Any]) -> str | None:
        """The tenant a Workload runs for: its namespace, where the cluster declares tenants;
        none otherwise (the requests are then exactly those of a cluster without tenants)."""
        return workload["metadata"].get("namespace") if self.tenants is not None else None

    def arrive(self, job_id: str, job_type: str) -> dict[str, Any]:
        r = self.http.post(f"/v1/clusters/{self.cluster_id}/arrivals",
                           json={"event_id": job_id, "job_id": job_id, "job_type": job_type})
        answer = _answer(r)
        if answer["decision"] == "queued":  # the replay of a queued arrival: where is it now?
            job = self.http.get(f"/v1/clusters/{self.cluster_id}/jobs/{job_id}")
            job.raise_for_status()
            if job.json()["status"] == "running":
                return {**answer, "decision": "started", "server_id": job.json()["server_id"]}
        return answer

    def gang(self, gang_id: str, members: list[dict[str, str]], tenant: str | None
             ) -> dict[str, Any]:
        body: dict[str, Any] = {"event_id": gang_id, "gang_id": gang_id, "members": members}
        if tenant is not None:
            body["tenant"] = tenant
        return _answer(self.http.post(f"/v1/clusters/{self.cluster_id}/gangs", json=body))

    def depart(self, job_id: str) -> None:
        r = self.http.post(f"/v1/clusters/{self.cluster_id}/departures",
                           json={"event_id": f"depart-{job_id}", "job_id": job_id})
        if r.status_code not in (200, 404, 409):  # unknown or not running: nothing to free
            r.raise_for_status()


@dataclass
class Verdict:
    state: str  # Ready, Retry, Rejected
    message: str
    pod_set_updates: list[dict[str, Any]] = field(default_factory=list)


def _pod_sets(workload: Mapping[str, Any]) -> list[dict[str, Any]]:
    return list((workload.get("spec") or {}).get("podSets") or [])


def _count(ps: Mapping[str, Any]) -> int | None:
    count = ps.get("count", 1)
    ok = isinstance(count, int) and not isinstance(count, bool) and 0 <= count <= 2**31 - 1
    return count if ok else None


def job_ids(workload: Mapping[str, Any], gang: bool = True) -> list[str]:
    """The jobs of a Workload's pods: gang members ``<uid>.<pod set>.<i>`` (placement
    clusters), or one job ``<uid>.<pod set>`` per pod set (queued clusters)."""
    uid = workload["metadata"]["uid"]
    if not gang:
        return [f"{uid}.{ps.get('name')}" for ps in _pod_sets(workload)]
    return [f"{uid}.{ps.get('name')}.{i}" for ps in _pod_sets(workload)
            for i in range(min(_count(ps) or 0, MAX_PODS))]


def _job_types(cluster: HeadroomCluster, sets: list[dict[str, Any]]) -> list[str] | Verdict:
    types = []
    for ps in sets:
        try:
            requests = requests_of(PodTemplateSpec.model_validate(ps.get("template") or {}).spec)
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(p) for p in ("template", *err["loc"]))
            return Verdict("Rejected", f"headroom: pod set {ps.get('name')}: {where}: "
                                       f"{err['msg']}")
        job_type = job_type_for(cluster.model, requests)
        if isinstance(job_type, NoJobType):
            return Verdict("Rejected", f"headroom: pod set {ps.get('name')}: "
                                       f"{job_type.reason} {job_type.details}")
        types.append(job_type)
    return types


def _refused(cluster: HeadroomCluster, workload: Mapping[str, Any], exc: Refused) -> Verdict:
    if exc.code == "unknown_tenant":
        ns = workload["metadata"].get("namespace")
        return Verdict("Rejected", f"headroom: unknown_tenant: namespace {ns} is not a tenant "
                                   f"of Headroom cluster {cluster.cluster_id} (its tenants: "
                                   f"{', '.join(cluster.tenants or [])}); a Workload runs for "
                                   "the tenant named like its namespace")
    return Verdict("Rejected", f"headroom: refused: {exc.code}: {exc.detail}")


def decide(cluster: HeadroomCluster, workload: Mapping[str, Any],
           scheduler_name: str = SCHEDULER_NAME) -> Verdict:
    sets = _pod_sets(workload)
    for ps in sets:
        if _count(ps) is None:
            return Verdict("Rejected", f"headroom: pod set {ps.get('name')}: count "
                                       f"{ps.get('count')!r} is no pod count")
        if not cluster.places and _count(ps) != 1:
            return Verdict("Rejected", f"headroom: pod set {ps.get('name')} has "
                                       f"{ps.get('count')} pods; Headroom cluster "
                                       f"{cluster.cluster_id} is a queued cluster, to which "
                                       "this controller sends no gangs: there each pod set "
                                       "must hold one pod")
    types = _job_types(cluster, sets)
    if isinstance(types, Verdict):
        return types
    if not cluster.places:
        return _decide_arrivals(cluster, workload, sets, types)
    return _decide_placement(cluster, workload, sets, types, scheduler_name)


def _decide_arrivals(cluster: HeadroomCluster, workload: Mapping[str, Any],
                     sets: list[dict[str, Any]], types: list[str]) -> Verdict:
    """A queued cluster: one arrival per pod set (of one pod each)."""
    ids = job_ids(workload, gang=False)
    answers: list[dict[str, Any]] = []
    try:
        for jid, t in zip(ids, types):
            answers.append(cluster.arrive(jid, t))
    except Refused as exc:
        for jid in ids[:len(answers)]:  # placed, started or queued: none stays
            cluster.depart(jid)
        return _refused(cluster, workload, exc)
    rejected = [(ps, a) for ps, a in zip(sets, answers) if a["decision"] == "rejected"]
    if rejected:
        for jid, a in zip(ids, answers):
            if a["decision"] in ("placed", "started"):
                cluster.depart(jid)
        ps, a = rejected[0]
        return Verdict("Rejected", f"headroom: pod set {ps.get('name')} rejected: "
                                   f"{messages.reason(a)}")
    queued = [(ps, a) for ps, a in zip(sets, answers) if a["decision"] == "queued"]
    if queued:
        ps, a = queued[0]
        return Verdict("Retry", f"headroom: pod set {ps.get('name')} is queued "
                                f"(position {a.get('position')}); retry once Headroom starts it")
    return Verdict("Ready", "headroom: placed " + ", ".join(
        f"{ps.get('name')} on {a['server_id']}" for ps, a in zip(sets, answers)),
        [{"name": ps.get("name"), "annotations": {PLAN: job_plan(jid)},
          "nodeSelector": {NODE_LABEL: a["server_id"]}}
         for ps, a, jid in zip(sets, answers, ids)])


def _spread(servers: list[str]) -> str:
    """``rack-0 x2, rack-1``: where a pod set's pods are, in the order first used."""
    counts: dict[str, int] = {}
    for s in servers:
        counts[s] = counts.get(s, 0) + 1
    return ", ".join(s if n == 1 else f"{s} x{n}" for s, n in counts.items())


def _unpinnable(ps: Mapping[str, Any], workload: Mapping[str, Any], scheduler_name: str
                ) -> str | None:
    """Why the pods of a pod set spread over several servers cannot each be pinned to their
    own; None when they can (the extender pins them by the plan)."""
    template = ps.get("template") or {}
    scheduler = (template.get("spec") or {}).get("schedulerName")
    if scheduler != scheduler_name:
        return (f"its pods do not use the scheduler {scheduler_name} (spec.schedulerName), "
                "which pins each pod to its server: a node selector pins a whole pod set only")
    if index_of(ps, workload["metadata"].get("ownerReferences") or []) is None:
        return ("its pods carry no index Headroom knows (an Indexed Job's "
                "batch.kubernetes.io/job-completion-index, Kubeflow's "
                "training.kubeflow.org/replica-index, or the label Kueue's topologyRequest "
                "names)")
    return None


def _decide_placement(cluster: HeadroomCluster, workload: Mapping[str, Any],
                      sets: list[dict[str, Any]], types: list[str], scheduler_name: str
                      ) -> Verdict:
    """A placement cluster: every pod is a job ``<uid>.<pod set>.<i>``, and all are placed or
    none: one gang."""
    uid = workload["metadata"]["uid"]
    counts = [_count(ps) or 0 for ps in sets]
    if sum(counts) > MAX_PODS:
        return Verdict("Rejected", f"headroom: the workload has {sum(counts)} pods; a gang "
                                   f"holds at most {MAX_PODS}")
    members, where = [], {}
    for ps, t, n in zip(sets, types, counts):
        for i in range(n):
            jid = f"{uid}.{ps.get('name')}.{i}"
            members.append({"job_id": jid, "job_type": t})
            where[jid] = (ps.get("name"), i, n)
    if not members:
        return Verdict("Ready", "headroom: no pods to place")
    try:
        a = cluster.gang(uid, members, cluster.tenant_of(workload))
    except Refused as exc:
        return _refused(cluster, workload, exc)
    if a["decision"] == "rejected":
        failed = a.get("failed")
        if failed is None:  # the tenant's quota refused the gang as a whole
            return Verdict("Rejected", f"headroom: rejected: {messages.reason(a)}; "
                                       f"{NOTHING_KEPT}")
        name, i, n = where.get(failed["job_id"], ("?", 0, 0))
        return Verdict("Rejected", f"headroom: pod set {name} rejected: "
                                   f"{messages.reason({**a, 'reason': failed['reason']})} "
                                   f"(pod {i} of {n}); {NOTHING_KEPT}")
    placed = {m["job_id"]: m["server_id"] for m in a["members"]}
    updates, summary = [], []
    for ps, n in zip(sets, counts):
        if n == 0:
            continue
        name = ps.get("name")
        servers = [placed[f"{uid}.{name}.{i}"] for i in range(n)]
        index = index_of(ps, workload["metadata"].get("ownerReferences") or [])
        update: dict[str, Any] = {"name": name, "annotations": {
            PLAN: gang_plan(f"{uid}.{name}", servers, index)}}
        if len(set(servers)) == 1:
            update["nodeSelector"] = {NODE_LABEL: servers[0]}
        else:
            why = _unpinnable(ps, workload, scheduler_name)
            if why is not None:
                for m in members:
                    cluster.depart(m["job_id"])
                return Verdict("Rejected", f"headroom: pod set {name} would run on "
                                           f"{_spread(servers)} and cannot be pinned pod by "
                                           f"pod: {why}; {NOTHING_KEPT}")
        updates.append(update)
        summary.append(f"{name} on {_spread(servers)}")
    if a.get("preempted"):
        log.warning("workload %s preempted Headroom jobs %s: their pods keep running",
                    uid, json.dumps(a["preempted"]))
    return Verdict("Ready", "headroom: placed " + "; ".join(summary), updates)


def _condition(obj: Mapping[str, Any], kind: str) -> bool:
    return any(c.get("type") == kind and c.get("status") == "True"
               for c in (obj.get("status") or {}).get("conditions") or [])


def pending_check(workload: Mapping[str, Any], checks: set[str]) -> str | None:
    """Our check on this workload, if Kueue waits for it (quota reserved, state Pending)."""
    if not _condition(workload, "QuotaReserved") or _condition(workload, "Finished"):
        return None
    for state in (workload.get("status") or {}).get("admissionChecks") or []:
        if state.get("name") in checks and state.get("state") == "Pending":
            return state["name"]
    return None


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def status_patch(workload: Mapping[str, Any], check: str, verdict: Verdict) -> dict[str, Any]:
    """A merge patch of ``status.admissionChecks`` (the whole list: a merge patch replaces
    lists) guarded by the workload's resourceVersion, so a concurrent change is a 409 and the
    next event retries."""
    states = []
    for state in workload["status"]["admissionChecks"]:
        if state["name"] == check:
            state = {"name": check, "state": verdict.state, "message": verdict.message[:32768],
                     "lastTransitionTime": _now()}
            if verdict.pod_set_updates:
                state["podSetUpdates"] = verdict.pod_set_updates
        states.append(state)
    return {"metadata": {"resourceVersion": workload["metadata"]["resourceVersion"]},
            "status": {"admissionChecks": states}}


def active_patch() -> dict[str, Any]:
    return {"status": {"conditions": [{
        "type": "Active", "status": "True", "reason": "Active", "lastTransitionTime": _now(),
        "message": "the Headroom admission-check controller is running"}]}}


class KueueController:
    def __init__(self, cluster: HeadroomCluster, api: KueueApi,
                 scheduler_name: str = SCHEDULER_NAME):
        self.cluster, self.api, self.scheduler_name = cluster, api, scheduler_name
        self.checks: set[str] = set()

    def adopt(self, admission_checks: Iterable[Mapping[str, Any]]) -> None:
        """Take the AdmissionChecks naming this controller, and mark them Active (Kueue keeps a
        ClusterQueue inactive while one of its checks is not)."""
        for ac in admission_checks:
            if (ac.get("spec") or {}).get("controllerName") == CONTROLLER_NAME:
                name = ac["metadata"]["name"]
                self.checks.add(name)
                self.api.patch_admission_check_status(name, active_patch())

    def handle(self, events: Iterable[Mapping[str, Any]]) -> None:
        for event in events:
            workload = event.get("object") or {}
            if not workload.get("metadata"):
                continue
            if event.get("type") == "DELETED" or _condition(workload, "Finished"):
                for jid in job_ids(workload, gang=self.cluster.places):
                    self.cluster.depart(jid)
                continue
            check = pending_check(workload, self.checks)
            if check is None:
                continue
            verdict = decide(self.cluster, workload, self.scheduler_name)
            meta = workload["metadata"]
            log.info("workload %s/%s: %s", meta.get("namespace"), meta.get("name"),
                     verdict.state)
            self.api.patch_workload_status(meta["namespace"], meta["name"],
                                           status_patch(workload, check, verdict))


class KubernetesKueueApi:
    """``KueueApi`` through the ``kubernetes`` client (merge patches of the status
    subresources). RBAC: get/list/watch workloads and admissionchecks, patch their status."""

    def __init__(self, api_client: Any):
        from kubernetes import client

        self.custom = client.CustomObjectsApi(api_client)

    def patch_workload_status(self, namespace: str, name: str, body: dict[str, Any]) -> None:
        self.custom.patch_namespaced_custom_object_status(GROUP, VERSION, namespace,
                                                          "workloads", name, body)

    def patch_admission_check_status(self, name: str, body: dict[str, Any]) -> None:
        self.custom.patch_cluster_custom_object_status(GROUP, VERSION, "admissionchecks", name,
                                                       body)


def workload_events(api_client: Any) -> Iterator[dict[str, Any]]:
    from kubernetes import client, watch
    from kubernetes.client.exceptions import ApiException

    custom = client.CustomObjectsApi(api_client)
    while True:
        try:
            for event in watch.Watch().stream(custom.list_cluster_custom_object, GROUP,
                                              VERSION, "workloads", timeout_seconds=300):
                yield {"type": event["type"], "object": event["object"]}
        except ApiException as exc:
            log.warning("workload watch ended (%s); listing again", exc.status)


def main(argv: list[str] | None = None) -> int:
    parser = controller_parser("python -m app.kubernetes.kueue", __doc__)
    parser.add_argument("--scheduler-name", default=SCHEDULER_NAME,
                        help="the scheduler whose extender is Headroom's: pods of a pod set "
                             "spread over several servers must use it")
    args = parser.parse_args(argv)
    http = headroom_http(args.url)
    if http is None:
        return 2
    from kubernetes import client

    from app.kubernetes.apiserver import load_client_config

    api_client = load_client_config()
    with http:
        controller = KueueController(HeadroomCluster(http, args.cluster),
                                     KubernetesKueueApi(api_client), args.scheduler_name)
        checks = client.CustomObjectsApi(api_client).list_cluster_custom_object(
            GROUP, VERSION, "admissionchecks")
        controller.adopt(checks.get("items", []))
        log.info("admission checks %s", sorted(controller.checks) or "none yet")
        controller.handle(workload_events(api_client))
    return 0


if __name__ == "__main__":
    sys.exit(main())
