"""A Kueue AdmissionCheck controller: Headroom decides where each admitted Workload runs.

Kueue (``kueue.x-k8s.io/v1beta1``) reserves quota for a Workload, then waits until every
AdmissionCheck of its ClusterQueue is Ready. This controller owns the AdmissionChecks whose
``spec.controllerName`` is ``headroom.io/admission-check``: it marks them Active, and for each
Workload with quota reserved and its check Pending it posts one arrival per pod set to a
Headroom cluster (event id and job id ``<workload UID>.<pod set>``, so a retry is a replay)
and sets the check's state in ``status.admissionChecks[]``:

- every pod set placed (or, on a queued cluster, started): **Ready**, with a ``podSetUpdates``
  node selector ``kubernetes.io/hostname: <server id>`` per pod set;
- any pod set rejected: **Rejected** with Headroom's reason (pod sets already placed for it
  depart again at once);
- any pod set still queued (queued clusters): **Retry**; Kueue releases the quota and asks
  again later, and by then the replayed arrival finds the job started or still waiting.

A pod set is pinned with one node selector, so it must hold one pod (``count: 1``); larger pod
sets are Rejected with that reason. A Workload that finishes or is deleted departs.

    python -m app.kubernetes.kueue --url https://headroom:443 --cluster <id>

(the key in ``$HEADROOM_API_KEY``)

Like the watcher, ``KueueController.handle`` takes plain watch events (Workloads as dicts), so
tests drive it with a fake stream; the API-server side goes through the ``kubernetes`` client.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

import httpx
from pydantic import ValidationError

from app.kubernetes.mapping import NoJobType, job_type_for, requests_of
from app.kubernetes.objects import PodTemplateSpec
from app.kubernetes.watcher import controller_parser, headroom_http
from app.policies.model import ClusterModel, cluster_model

log = logging.getLogger("headroom.kubernetes.kueue")

CONTROLLER_NAME = "headroom.io/admission-check"
GROUP, VERSION = "kueue.x-k8s.io", "v1beta1"
NODE_LABEL = "kubernetes.io/hostname"


class KueueApi(Protocol):
    def patch_workload_status(self, namespace: str, name: str, body: dict[str, Any]) -> None: ...

    def patch_admission_check_status(self, name: str, body: dict[str, Any]) -> None: ...


class HeadroomCluster:
    """The Headroom cluster the controller posts to, over HTTP."""

    def __init__(self, http: httpx.Client, cluster_id: str):
        self.http, self.cluster_id = http, cluster_id
        self._model: ClusterModel | None = None

    @property
    def model(self) -> ClusterModel:
        if self._model is None:
            r = self.http.get(f"/v1/clusters/{self.cluster_id}")
            r.raise_for_status()
            self._model = cluster_model(r.json())
        return self._model

    def arrive(self, job_id: str, job_type: str) -> dict[str, Any]:
        r = self.http.post(f"/v1/clusters/{self.cluster_id}/arrivals",
                           json={"event_id": job_id, "job_id": job_id, "job_type": job_type})
        r.raise_for_status()
        answer = r.json()
        if answer["decision"] == "queued":  # the replay of a queued arrival: where is it now?
            job = self.http.get(f"/v1/clusters/{self.cluster_id}/jobs/{job_id}")
            job.raise_for_status()
            if job.json()["status"] == "running":
                return {**answer, "decision": "started", "server_id": job.json()["server_id"]}
        return answer

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


def job_ids(workload: Mapping[str, Any]) -> list[str]:
    uid = workload["metadata"]["uid"]
    return [f"{uid}.{ps.get('name')}" for ps in _pod_sets(workload)]


def decide(cluster: HeadroomCluster, workload: Mapping[str, Any]) -> Verdict:
    sets = _pod_sets(workload)
    types = []
    for ps in sets:
        if ps.get("count", 1) != 1:
            return Verdict("Rejected", f"headroom: pod set {ps.get('name')} has {ps.get('count')} "
                                       "pods; a node selector pins one pod's node, so each "
                                       "pod set must hold one pod")
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
    answers = [cluster.arrive(jid, t) for jid, t in zip(job_ids(workload), types)]
    rejected = [(ps, a) for ps, a in zip(sets, answers) if a["decision"] == "rejected"]
    if rejected:
        for jid, a in zip(job_ids(workload), answers):
            if a["decision"] in ("placed", "started"):
                cluster.depart(jid)
        ps, a = rejected[0]
        details = ", ".join(f"{k}={v}" for k, v in (a.get("details") or {}).items())
        return Verdict("Rejected", f"headroom: pod set {ps.get('name')} rejected: "
                                   f"{a.get('reason')} ({details})")
    queued = [(ps, a) for ps, a in zip(sets, answers) if a["decision"] == "queued"]
    if queued:
        ps, a = queued[0]
        return Verdict("Retry", f"headroom: pod set {ps.get('name')} is queued "
                                f"(position {a.get('position')}); retry once Headroom starts it")
    return Verdict("Ready", "headroom: placed " + ", ".join(
        f"{ps.get('name')} on {a['server_id']}" for ps, a in zip(sets, answers)),
        [{"name": ps.get("name"), "nodeSelector": {NODE_LABEL: a["server_id"]}}
         for ps, a in zip(sets, answers)])


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
    def __init__(self, cluster: HeadroomCluster, api: KueueApi):
        self.cluster, self.api = cluster, api
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
                for jid in job_ids(workload):
                    self.cluster.depart(jid)
                continue
            check = pending_check(workload, self.checks)
            if check is None:
                continue
            verdict = decide(self.cluster, workload)
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
    args = controller_parser("python -m app.kubernetes.kueue", __doc__).parse_args(argv)
    http = headroom_http(args.url)
    if http is None:
        return 2
    from kubernetes import client

    from app.kubernetes.apiserver import load_client_config

    api_client = load_client_config()
    with http:
        controller = KueueController(HeadroomCluster(http, args.cluster),
                                     KubernetesKueueApi(api_client))
        checks = client.CustomObjectsApi(api_client).list_cluster_custom_object(
            GROUP, VERSION, "admissionchecks")
        controller.adopt(checks.get("items", []))
        log.info("admission checks %s", sorted(controller.checks) or "none yet")
        controller.handle(workload_events(api_client))
    return 0


if __name__ == "__main__":
    sys.exit(main())
