"""The Kueue AdmissionCheck controller against ``headroom serve`` on Postgres (HTTP) and the
fake API server (status patches through the ``kubernetes`` client), fed Workloads shaped
like Kueue's (fixtures/Workload.*.json) as a watch stream."""

from __future__ import annotations

import copy
from typing import Any

import httpx
import pytest

from app.kubernetes.apiserver import load_client_config
from app.kubernetes.kueue import (
    CONTROLLER_NAME,
    HeadroomCluster,
    KubernetesKueueApi,
    KueueController,
)
from app.kubernetes.pinning import PLAN
from tests.helpers import cluster_spec
from tests.integrations.kubernetes.fakes import FakeApiServer, fixture
from tests.live import LiveServer

pytestmark = pytest.mark.postgres

WORKLOAD_STATUS = "/apis/kueue.x-k8s.io/v1beta1/namespaces/ml/workloads/job-train-7f3a2/status"


@pytest.fixture
def controller_for(server: LiveServer, fake: FakeApiServer, tmp_path, monkeypatch):
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    monkeypatch.setenv("KUBECONFIG", str(fake.kubeconfig(tmp_path / "config")))
    clients: list[httpx.Client] = []

    def make(**spec: Any) -> tuple[KueueController, str]:
        c = server.client()
        clients.append(c)
        r = c.post("/v1/clusters", json=cluster_spec(**spec))
        assert r.status_code == 201, r.text
        cid = r.json()["id"]
        controller = KueueController(HeadroomCluster(c, cid),
                                     KubernetesKueueApi(load_client_config()))
        controller.adopt([fixture("AdmissionCheck.headroom.json"),
                          {"metadata": {"name": "not-ours"},
                           "spec": {"controllerName": "example.com/other"}}])
        return controller, cid

    yield make
    for c in clients:
        c.close()


def _check(patch: dict[str, Any], name: str = "headroom") -> dict[str, Any]:
    [state] = [s for s in patch["body"]["status"]["admissionChecks"] if s["name"] == name]
    return state


def _log(server: LiveServer, cid: str) -> list[dict[str, Any]]:
    with server.client() as c:
        return c.get(f"/v1/clusters/{cid}/events", params={"limit": 100}).json()["items"]


def _events(server: LiveServer, cid: str) -> list[tuple[str, str, str]]:
    return [(e["kind"], e["event_id"], e["decision"]) for e in _log(server, cid)]


def _requests(server: LiveServer, cid: str) -> list[dict[str, Any]]:
    return [e["request"] for e in _log(server, cid)]


def _jobs(server: LiveServer, cid: str) -> dict[str, str]:
    with server.client() as c:
        items = c.get(f"/v1/clusters/{cid}/jobs").json()["items"]
    return {j["job_id"]: j["server_id"] for j in items}


def test_adopts_its_admission_checks_and_marks_them_active(controller_for, fake):
    controller, _cid = controller_for()
    assert controller.checks == {"headroom"}
    [patch] = fake.patches
    assert patch["path"] == "/apis/kueue.x-k8s.io/v1beta1/admissionchecks/headroom/status"
    assert patch["content_type"] == "application/merge-patch+json"
    [cond] = patch["body"]["status"]["conditions"]
    assert (cond["type"], cond["status"]) == ("Active", "True")
    assert fixture("AdmissionCheck.headroom.json")["spec"]["controllerName"] == CONTROLLER_NAME


def test_placed_workload_is_ready_with_node_selectors_and_idempotent(controller_for, fake,
                                                                    server):
    controller, cid = controller_for(policy={"kind": "first_fit"})
    fake.patches.clear()
    workload = fixture("Workload.train-pending.json")
    controller.handle([{"type": "ADDED", "object": workload}])
    controller.handle([{"type": "MODIFIED", "object": workload}])  # Kueue's resend: a replay
    assert [p["path"] for p in fake.patches] == [WORKLOAD_STATUS] * 2
    first, second = fake.patches
    assert first["body"]["metadata"]["resourceVersion"] == "81723"
    state = _check(first)
    assert state["state"] == "Ready"
    uid = workload["metadata"]["uid"]
    assert state["podSetUpdates"] == [
        {"name": "launcher", "nodeSelector": {"kubernetes.io/hostname": "rack-0"},
         "annotations": {PLAN: f'{{"jobs":"{uid}.launcher","servers":["rack-0"]}}'}},
        {"name": "worker", "nodeSelector": {"kubernetes.io/hostname": "rack-1"},
         "annotations": {PLAN: f'{{"jobs":"{uid}.worker","servers":["rack-1"]}}'}}]
    assert _check(second)["podSetUpdates"] == state["podSetUpdates"]
    assert _check(first, "other-check") == \
        workload["status"]["admissionChecks"][1]  # another controller's state, untouched
    # No tenants: one gang that names none.
    assert _events(server, cid) == [("gang", uid, "placed")]
    assert all("tenant" not in r for r in _requests(server, cid))
    finished = copy.deepcopy(workload)
    finished["status"]["conditions"].append({"type": "Finished", "status": "True"})
    controller.handle([{"type": "MODIFIED", "object": finished},
                       {"type": "DELETED", "object": finished}])
    assert [e[:2] for e in _events(server, cid)[1:]] == [
        ("departure", f"depart-{uid}.launcher.0"), ("departure", f"depart-{uid}.worker.0")]


def test_rejection_is_rejected_and_frees_what_was_placed(controller_for, fake, server):
    """One server of 8 cores: the launcher (small) would fit, the worker (large) finds no
    room, so the workload is Rejected whole and nothing is placed."""
    controller, cid = controller_for(policy={"kind": "first_fit"}, servers=1)
    fake.patches.clear()
    workload = fixture("Workload.train-pending.json")
    controller.handle([{"type": "ADDED", "object": workload}])
    state = _check(fake.patches[-1])
    assert state["state"] == "Rejected" and "podSetUpdates" not in state
    assert state["message"].startswith("headroom: pod set worker rejected: no_server_fits")
    assert "(pod 0 of 1); a Workload is placed whole or not at all" in state["message"]
    uid = workload["metadata"]["uid"]
    assert _events(server, cid) == [("gang", uid, "rejected")]
    assert _jobs(server, cid) == {}


def test_queued_workload_retries_until_headroom_starts_it(controller_for, fake, server):
    controller, cid = controller_for(policy={"kind": "first_fit_queue"}, servers=1)
    with server.client() as c:
        assert c.post(f"/v1/clusters/{cid}/arrivals", json={
            "event_id": "busy", "job_id": "busy", "job_type": "large"}).json()["decision"] \
            == "started"
    fake.patches.clear()
    single = fixture("Workload.train-pending.json")
    single["spec"]["podSets"] = single["spec"]["podSets"][1:]
    controller.handle([{"type": "ADDED", "object": single}])
    assert _check(fake.patches[-1])["state"] == "Retry"
    assert "queued" in _check(fake.patches[-1])["message"]
    with server.client() as c:
        c.post(f"/v1/clusters/{cid}/departures", json={"event_id": "d", "job_id": "busy"})
    controller.handle([{"type": "MODIFIED", "object": single}])  # the check is Pending again
    state = _check(fake.patches[-1])
    assert state["state"] == "Ready"
    uid = single["metadata"]["uid"]
    assert state["podSetUpdates"] == [{"name": "worker",
                                       "nodeSelector": {"kubernetes.io/hostname": "rack-0"},
                                       "annotations": {PLAN: f'{{"job":"{uid}.worker"}}'}}]
    # No gangs to a queued cluster: a pod set of several pods is Rejected, nothing posted.
    fake.patches.clear()
    many = fixture("Workload.train-pending.json")
    many["metadata"]["uid"] = "another-workload"
    many["spec"]["podSets"][1]["count"] = 4
    before = _events(server, cid)
    controller.handle([{"type": "ADDED", "object": many}])
    state = _check(fake.patches[-1])
    assert state["state"] == "Rejected"
    assert state["message"] == (f"headroom: pod set worker has 4 pods; Headroom cluster {cid} "
                                "is a queued cluster, to which this controller sends no "
                                "gangs: there each pod set must hold one pod")
    assert _events(server, cid) == before


def test_what_it_cannot_pin_or_count_is_rejected_without_an_event(controller_for, fake, server):
    controller, cid = controller_for()
    fake.patches.clear()
    uncountable = fixture("Workload.train-pending.json")
    uncountable["spec"]["podSets"][1]["count"] = "4"
    huge = fixture("Workload.train-pending.json")
    huge["spec"]["podSets"][0]["template"]["spec"]["containers"][0]["resources"] = \
        {"requests": {"cpu": "64"}}
    not_reserved = fixture("Workload.train-pending.json")
    not_reserved["status"]["conditions"] = []
    too_many = fixture("Workload.train-pending.json")
    too_many["spec"]["podSets"][1]["count"] = 1024
    controller.handle([{"type": "ADDED", "object": w}
                       for w in (uncountable, huge, not_reserved, too_many)])
    assert [_check(p)["state"] for p in fake.patches] == ["Rejected"] * 3
    assert "count '4' is no pod count" in _check(fake.patches[0])["message"]
    assert "no_job_type_covers_requests" in _check(fake.patches[1])["message"]
    assert "the workload has 1025 pods; a gang holds at most 1024" in \
        _check(fake.patches[2])["message"]
    assert _events(server, cid) == []


# ---- gangs and tenants ------------------------------------------------------------------

ML = [{"name": "ml", "nominal": {"cpu": 32, "memory": 128}}]  # the workloads' namespace
NODES = [f"rack-{i}" for i in range(4)]


def _gang() -> tuple[dict[str, Any], str]:
    workload = fixture("Workload.gang-pending.json")
    return workload, workload["metadata"]["uid"]


def _finished(workload: dict[str, Any]) -> dict[str, Any]:
    done = copy.deepcopy(workload)
    done["status"]["conditions"].append({"type": "Finished", "status": "True"})
    return done


def _extender(server: LiveServer, cid: str, verb: str, body: dict[str, Any]) -> dict[str, Any]:
    with server.client() as c:
        r = c.post(f"/v1/clusters/{cid}/kubernetes/extender/{verb}", json=body)
    assert r.status_code == 200, r.text
    return r.json()


def test_a_pod_set_of_several_pods_is_one_gang_pinned_pod_by_pod(controller_for, fake, server):
    """Three pods that each take a whole server: one gang for tenant ml (the namespace), its
    pods spread over three servers, so no node selector: each pod carries the plan and the
    extender binds it where Headroom holds its member, committing nothing."""
    controller, cid = controller_for(policy={"kind": "first_fit"}, tenants=ML)
    fake.patches.clear()
    workload, uid = _gang()
    controller.handle([{"type": "ADDED", "object": workload},
                       {"type": "MODIFIED", "object": workload}])  # Kueue's resend: a replay
    first, again = (_check(p) for p in fake.patches)
    pod = fixture("Pod.allreduce-2.json")  # what the Job makes of the template Kueue updated
    assert first["state"] == "Ready"
    assert first["message"] == "headroom: placed main on rack-0, rack-1, rack-2"
    assert first["podSetUpdates"] == [
        {"name": "main", "annotations": {PLAN: pod["metadata"]["annotations"][PLAN]}}]
    assert again["podSetUpdates"] == first["podSetUpdates"]
    assert _events(server, cid) == [("gang", uid, "placed")]
    [request] = _requests(server, cid)
    assert request["tenant"] == "ml" and request["gang_id"] == uid
    assert request["members"] == [{"job_id": f"{uid}.main.{i}", "job_type": "large"}
                                  for i in range(3)]
    assert _jobs(server, cid) == {f"{uid}.main.{i}": f"rack-{i}" for i in range(3)}

    fake.add_pod(pod)
    args = {"Pod": pod, "NodeNames": NODES, "Nodes": None}
    f = _extender(server, cid, "filter", args)
    assert f["NodeNames"] == ["rack-2"] and f["FailedAndUnresolvableNodes"] == {}
    assert f["FailedNodes"] == {n: f"headroom: pinned to rack-2 (job {uid}.main.2 of its "
                                   "Workload)" for n in ("rack-0", "rack-1", "rack-3")}
    assert _extender(server, cid, "prioritize", args) == [
        {"Host": n, "Score": 10 if n == "rack-2" else 0} for n in NODES]
    bind = {"PodName": pod["metadata"]["name"], "PodNamespace": "ml",
            "PodUID": pod["metadata"]["uid"], "Node": "rack-0"}
    assert _extender(server, cid, "bind", bind) == {"Error": ""}
    assert fake.bindings[-1]["body"]["target"]["name"] == "rack-2"
    assert _events(server, cid) == [("gang", uid, "placed")]  # nothing more committed

    # A pod of the set that carries no index cannot be told from its siblings.
    unindexed = copy.deepcopy(pod)
    unindexed["metadata"]["uid"] = "a-pod-without-an-index"
    del unindexed["metadata"]["labels"]["batch.kubernetes.io/job-completion-index"]
    del unindexed["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"]
    f = _extender(server, cid, "filter", {**args, "Pod": unindexed})
    assert f["NodeNames"] == [] and set(f["FailedAndUnresolvableNodes"]) == set(NODES)
    assert "the pod carries no batch.kubernetes.io/job-completion-index (make its Job an " \
           "Indexed Job)" in f["FailedAndUnresolvableNodes"]["rack-0"]

    # Its pods end and the watcher leaves them be; the Workload finishing departs every member.
    controller.handle([{"type": "MODIFIED", "object": _finished(workload)}])
    assert _events(server, cid)[1:] == [
        ("departure", f"depart-{uid}.main.{i}", "released") for i in range(3)]
    f = _extender(server, cid, "filter", args)
    assert "is not held by the cluster" in f["FailedAndUnresolvableNodes"]["rack-2"]


def test_a_workload_that_does_not_fit_is_rejected_whole(controller_for, fake, server):
    """Two servers for three whole-server pods: the gang is refused whole, with tenants and
    without, and nothing stays placed."""
    for tenants in (ML, None):
        spec: dict[str, Any] = {"policy": {"kind": "first_fit"}, "servers": 2}
        if tenants is not None:
            spec["tenants"] = tenants
        controller, cid = controller_for(**spec)
        fake.patches.clear()
        workload, uid = _gang()
        controller.handle([{"type": "ADDED", "object": workload}])
        state = _check(fake.patches[-1])
        assert state["state"] == "Rejected" and "podSetUpdates" not in state
        assert state["message"].startswith("headroom: pod set main rejected: no_server_fits")
        assert state["message"].endswith("(pod 2 of 3); a Workload is placed whole or not at "
                                         "all: nothing of it is placed")
        assert _events(server, cid) == [("gang", uid, "rejected")]
        assert _jobs(server, cid) == {}


def test_pinning_a_pod_set_by_node_selector_or_not_at_all(controller_for, fake, server):
    """Pods of a set that all fit one server are pinned by a node selector, whatever their
    scheduler. Spread over several servers, pods of another scheduler cannot be pinned one by
    one: the placed gang departs again and the Workload is Rejected saying why."""
    controller, cid = controller_for(policy={"kind": "first_fit"}, tenants=ML)
    fake.patches.clear()
    small, uid = _gang()
    template = small["spec"]["podSets"][0]["template"]["spec"]
    del template["schedulerName"]
    template["containers"][0]["resources"]["requests"] = {"cpu": "2", "memory": "8Gi"}
    controller.handle([{"type": "ADDED", "object": small}])
    state = _check(fake.patches[-1])
    assert state["podSetUpdates"] == [{
        "name": "main", "nodeSelector": {"kubernetes.io/hostname": "rack-0"},
        "annotations": {PLAN: f'{{"jobs":"{uid}.main","servers":["rack-0","rack-0","rack-0"]}}'}}]
    assert state["message"] == "headroom: placed main on rack-0 x3"
    controller.handle([{"type": "DELETED", "object": small}])

    spread, uid = _gang()
    spread["metadata"]["uid"] = uid = "0dd00dd0-1111-4222-8333-444455556666"
    del spread["spec"]["podSets"][0]["template"]["spec"]["schedulerName"]
    controller.handle([{"type": "ADDED", "object": spread}])
    state = _check(fake.patches[-1])
    assert state["state"] == "Rejected"
    assert state["message"] == (
        "headroom: pod set main would run on rack-0, rack-1, rack-2 and cannot be pinned pod by "
        "pod: its pods do not use the scheduler headroom-scheduler (spec.schedulerName), which "
        "pins each pod to its server: a node selector pins a whole pod set only; a Workload is "
        "placed whole or not at all: nothing of it is placed")
    assert _events(server, cid)[-4:] == [("gang", uid, "placed")] + [
        ("departure", f"depart-{uid}.main.{i}", "released") for i in range(3)]
    assert _jobs(server, cid) == {}


def test_a_workload_over_its_tenants_quota_is_rejected_with_the_numbers(controller_for, fake,
                                                                         server):
    controller, cid = controller_for(policy={"kind": "first_fit"}, tenants=[
        {"name": "ml", "nominal": {"cpu": 16, "memory": 64}},
        {"name": "web", "nominal": {"cpu": 16, "memory": 64}}])
    fake.patches.clear()
    workload, uid = _gang()
    controller.handle([{"type": "ADDED", "object": workload}])
    state = _check(fake.patches[-1])
    assert state["state"] == "Rejected"
    assert state["message"] == (
        "headroom: rejected: quota_exceeded: tenant ml would exceed its nominal quota by cpu=8, "
        "memory=32 (usage cpu=0, memory=0, nominal cpu=16, memory=64, borrowed cpu=0, "
        "memory=0); a Workload is placed whole or not at all: nothing of it is placed")
    assert _events(server, cid) == [("gang", uid, "rejected")]
    assert _jobs(server, cid) == {}
    # A namespace that is no tenant of the cluster: Rejected, nothing logged.
    elsewhere, _ = _gang()
    elsewhere["metadata"].update(namespace="shop", uid="elsewhere")
    controller.handle([{"type": "ADDED", "object": elsewhere}])
    state = _check(fake.patches[-1])
    assert state["state"] == "Rejected"
    assert state["message"] == (
        f"headroom: unknown_tenant: namespace shop is not a tenant of Headroom cluster {cid} "
        "(its tenants: ml, web); a Workload runs for the tenant named like its namespace")
    assert len(_events(server, cid)) == 1


def test_main_needs_a_key(monkeypatch, capsys):
    from app.kubernetes import kueue

    monkeypatch.delenv("HEADROOM_API_KEY", raising=False)
    assert kueue.main(["--url", "http://x", "--cluster", "c"]) == 2
    assert "HEADROOM_API_KEY" in capsys.readouterr().err
