"""Kubernetes' requests, shaped exactly as upstream sends them (fixtures/), over real HTTP to
``headroom serve`` on Postgres, with a fake API server standing in for the control plane.

The extender (filter, prioritize, bind) on DRA and on a baseline, a queued cluster, pods that
fit no type, bind retries; the admission webhook's create, scale, dry run, delete, refusals,
malformed reviews and its deadline while the cluster's row is locked. No answer is a 5xx.
"""

from __future__ import annotations

import copy
import time
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from sqlalchemy import create_engine, text

from app.config import Settings
from app.kubernetes.pinning import PLAN
from app.store.migrate import upgrade
from tests.conftest import FreshDatabase
from tests.helpers import cluster_spec
from tests.integrations.kubernetes.fakes import fixture
from tests.live import LiveServer

pytestmark = pytest.mark.postgres

SMALL_ARGS = "ExtenderArgs.etl-small.NodeNames.json"
LARGE_ARGS = "ExtenderArgs.etl-large.Nodes.json"
HUGE_ARGS = "ExtenderArgs.etl-huge.NodeNames.json"
NODES = [f"rack-{i}" for i in range(4)]


def _post(c: httpx.Client, url: str, body: Any) -> httpx.Response:
    r = c.post(url, json=body)
    assert r.status_code < 500, r.text
    return r


def _cluster(c: httpx.Client, **kwargs: Any) -> str:
    r = c.post("/v1/clusters", json=cluster_spec(**kwargs))
    assert r.status_code == 201, r.text
    return r.json()["id"]


def _events(c: httpx.Client, cid: str) -> list[dict[str, Any]]:
    return c.get(f"/v1/clusters/{cid}/events", params={"limit": 100}).json()["items"]


def _check_filter_shape(body: dict[str, Any]) -> None:
    assert set(body) == {"Nodes", "NodeNames", "FailedNodes", "FailedAndUnresolvableNodes",
                         "Error"}
    assert body["Error"] == ""


def test_dra_filter_prioritize_bind_round_trip_with_the_key_in_the_path(server, fake):
    with server.client() as c:
        cid = _cluster(c, policy={"kind": "dra"})
    base = f"/v1/kubernetes/{server.key}/clusters/{cid}/extender"
    args = fixture(SMALL_ARGS)
    uid = args["Pod"]["metadata"]["uid"]
    with httpx.Client(base_url=server.url, timeout=30) as c:  # no Authorization header
        f = _post(c, base + "/filter", args).json()
        _check_filter_shape(f)
        assert f["Nodes"] is None and len(f["NodeNames"]) == 1
        chosen = f["NodeNames"][0]
        assert set(f["FailedNodes"]) == set(NODES) - {chosen}
        assert all(f"places this small pod on {chosen}" in m for m in f["FailedNodes"].values())
        assert f["FailedAndUnresolvableNodes"] == {}
        scores = _post(c, base + "/prioritize", args).json()
        assert scores == [{"Host": n, "Score": 10 if n == chosen else 0} for n in NODES]
        with server.client() as admin:  # a what-if: nothing committed so far
            assert admin.get(f"/v1/clusters/{cid}").json()["version"] == 0

        bind = {**fixture("ExtenderBindingArgs.etl-small.json"), "Node": chosen}
        for _attempt in range(2):  # kube-scheduler retrying the same bind
            assert _post(c, base + "/bind", bind).json() == {"Error": ""}
        assert c.post(f"/v1/kubernetes/hr_wrong/clusters/{cid}/extender/bind",
                      json=bind).status_code == 401
    expected = {"path": "/api/v1/namespaces/batch/pods/etl-small/binding",
                "body": {"apiVersion": "v1", "kind": "Binding",
                         "metadata": {"name": "etl-small", "namespace": "batch", "uid": uid},
                         "target": {"apiVersion": "v1", "kind": "Node", "name": chosen}}}
    assert fake.bindings == [expected, expected]
    with server.client() as c:
        events = _events(c, cid)
        assert [(e["event_id"], e["decision"], e["response"]["server_id"]) for e in events] \
            == [(uid, "placed", chosen)]
        assert events[0]["request"] == {"kind": "arrival", "job_id": uid, "job_type": "small"}
        # Filtering the pod again (a bind whose API call failed) keeps its server.
        again = _post(c, f"/v1/clusters/{cid}/kubernetes/extender/filter", args).json()
        assert again["NodeNames"] == [chosen]


def test_baseline_keeps_every_node_with_room_and_sends_nodes_back(server, fake):
    with server.client() as c:
        cid = _cluster(c, policy={"kind": "first_fit"})
        base = f"/v1/clusters/{cid}/kubernetes/extender"
        args = fixture(LARGE_ARGS)
        f = _post(c, base + "/filter", args).json()
        _check_filter_shape(f)
        assert f["NodeNames"] is None
        assert f["Nodes"]["items"] == args["Nodes"]["items"]  # the full objects, unchanged
        assert _post(c, base + "/prioritize", args).json()[0] == {"Host": "rack-0", "Score": 10}
        assert _post(c, base + "/bind", fixture("ExtenderBindingArgs.etl-large.json")).json() \
            == {"Error": ""}
        # Bound where Headroom placed it (rack-0), though the scheduler said rack-1.
        assert fake.bindings[-1]["body"]["target"]["name"] == "rack-0"

        second = copy.deepcopy(args)
        second["Pod"]["metadata"]["uid"] = "second-large"
        f = _post(c, base + "/filter", second).json()
        assert [n["metadata"]["name"] for n in f["Nodes"]["items"]] == NODES[1:]
        assert f["FailedNodes"] == {"rack-0": "headroom: no room for a large pod on rack-0"}
        scores = {s["Host"]: s["Score"] for s in _post(c, base + "/prioritize", second).json()}
        assert scores == {"rack-0": 0, "rack-1": 10, "rack-2": 0, "rack-3": 0}


def test_rejections_dra_unresolvable_baseline_resolvable(server, fake):
    with server.client() as c:
        for kind, resolvable in (("dra", False), ("best_fit", True)):
            cid = _cluster(c, policy={"kind": kind}, servers=1)
            r = c.post(f"/v1/clusters/{cid}/arrivals",
                       json={"event_id": "fill", "job_id": "fill", "job_type": "large"})
            assert r.json()["decision"] == "placed"
            args = {**fixture(SMALL_ARGS), "NodeNames": ["rack-0", "not-a-server"]}
            f = _post(c, f"/v1/clusters/{cid}/kubernetes/extender/filter", args).json()
            assert f["NodeNames"] == []
            assert "node_not_in_cluster" in f["FailedAndUnresolvableNodes"]["not-a-server"]
            where = f["FailedNodes"] if resolvable else f["FailedAndUnresolvableNodes"]
            assert where["rack-0"].startswith("headroom: rejected small pod: "), where
            assert c.get(f"/v1/clusters/{cid}").json()["version"] == 1


def test_pod_that_fits_no_job_type_is_unresolvable_and_never_bound(server, fake):
    huge = fixture(HUGE_ARGS)
    fake.add_pod(huge["Pod"])
    with server.client() as c:
        cid = _cluster(c, policy={"kind": "dra"})
        base = f"/v1/clusters/{cid}/kubernetes/extender"
        f = _post(c, base + "/filter", huge).json()
        assert f["NodeNames"] == [] and f["FailedNodes"] == {}
        assert set(f["FailedAndUnresolvableNodes"]) == set(NODES)
        assert all("no_job_type_covers_requests" in m and "'cpu': 16.0" in m
                   for m in f["FailedAndUnresolvableNodes"].values())
        assert all(s["Score"] == 0 for s in _post(c, base + "/prioritize", huge).json())
        bind = {"PodName": "etl-huge", "PodNamespace": "batch",
                "PodUID": huge["Pod"]["metadata"]["uid"], "Node": "rack-0"}
        error = _post(c, base + "/bind", bind).json()["Error"]
        assert "no_job_type_covers_requests" in error and "not bound" in error
        assert fake.bindings == []
        assert c.get(f"/v1/clusters/{cid}").json()["version"] == 0


def test_bind_retried_after_the_api_server_refused_commits_once(server, fake):
    with server.client() as c:
        cid = _cluster(c, policy={"kind": "first_fit"})
        bind = fixture("ExtenderBindingArgs.etl-small.json")
        fake.refuse_bindings = True
        error = _post(c, f"/v1/clusters/{cid}/kubernetes/extender/bind", bind).json()["Error"]
        assert "API server" in error and "409" in error
        fake.refuse_bindings = False
        assert _post(c, f"/v1/clusters/{cid}/kubernetes/extender/bind", bind).json() \
            == {"Error": ""}
        assert len(fake.bindings) == 2 and fake.bindings[0] == fake.bindings[1]
        assert [e["event_id"] for e in _events(c, cid)] == [bind["PodUID"]]
        # A pod replaced by another of the same name (another UID) is not bound.
        stale = {**bind, "PodUID": "an-older-pod"}
        assert "now has UID" in _post(c, f"/v1/clusters/{cid}/kubernetes/extender/bind",
                                      stale).json()["Error"]
        assert len(fake.bindings) == 2


def test_queued_cluster_pod_waits_until_headroom_starts_it(server, fake):
    with server.client() as c:
        cid = _cluster(c, policy={"kind": "first_fit_queue"}, servers=1)
        base = f"/v1/clusters/{cid}/kubernetes/extender"
        first = fixture(SMALL_ARGS) | {"NodeNames": ["rack-0"]}
        first["Pod"] = copy.deepcopy(first["Pod"])
        first["Pod"]["spec"]["containers"][0]["resources"]["requests"] = {"cpu": "8"}
        second = copy.deepcopy(first)
        second["Pod"]["metadata"]["uid"] = "waiting-pod"
        assert _post(c, base + "/filter", first).json()["NodeNames"] == ["rack-0"]
        for _ in range(2):  # a filter retried is the same arrival
            f = _post(c, base + "/filter", second).json()
            assert f["NodeNames"] == [] and "queued" in f["FailedNodes"]["rack-0"]
        bind = {"PodName": "w", "PodNamespace": "batch", "PodUID": "waiting-pod",
                "Node": "rack-0"}
        assert "is queued, not started" in _post(c, base + "/bind", bind).json()["Error"]
        r = c.post(f"/v1/clusters/{cid}/departures",
                   json={"event_id": "d", "job_id": first["Pod"]["metadata"]["uid"]})
        assert [s["job_id"] for s in r.json()["started"]] == ["waiting-pod"]
        assert _post(c, base + "/filter", second).json()["NodeNames"] == ["rack-0"]
        assert _post(c, base + "/bind", bind).json() == {"Error": ""}
        assert fake.bindings[-1]["body"]["metadata"]["uid"] == "waiting-pod"
        assert [e["kind"] for e in _events(c, cid)] == ["arrival", "arrival", "departure"]


def test_a_pod_uid_the_extender_takes_is_a_job_rest_can_read_and_end(server, fake):
    """Over real HTTP (the in-process client decodes a path twice): an id with the characters
    a path segment must carry percent-encoded is served by GET .../jobs/{id} and departs."""
    with server.client() as c:
        cid = _cluster(c, policy={"kind": "first_fit_queue"})
        for uid in ("a%2Fb?c#d", "%", "~!$&'()*+,;=:@"):
            args = fixture(SMALL_ARGS)
            args["Pod"] = copy.deepcopy(args["Pod"])
            args["Pod"]["metadata"]["uid"] = uid
            assert _post(c, f"/v1/clusters/{cid}/kubernetes/extender/filter", args).status_code \
                == 200
            job = c.get(f"/v1/clusters/{cid}/jobs/{quote(uid, safe='')}")
            assert job.status_code == 200 and job.json()["job_id"] == uid, job.text
            gone = c.post(f"/v1/clusters/{cid}/departures",
                          json={"event_id": f"gone-{uid}", "job_id": uid})
            assert gone.status_code == 200, gone.text


def test_a_pod_runs_for_the_tenant_named_like_its_namespace(server, fake):
    """Where the cluster declares tenants, the arrival names the pod's namespace; over the
    tenant's quota is a resolvable failure even on DRA (a departure of the tenant frees
    quota), a namespace no tenant is named unresolvable; neither commits anything."""
    small = fixture(SMALL_ARGS)
    second = copy.deepcopy(small)
    second["Pod"]["metadata"].update(uid="second-small", name="etl-small-2")
    fake.add_pod(second["Pod"])
    shop = copy.deepcopy(small)
    shop["Pod"]["metadata"].update(uid="shop-small", namespace="shop")
    with server.client() as c:
        cid = _cluster(c, policy={"kind": "dra"},
                       tenants=[{"name": "batch", "nominal": {"cpu": 2, "memory": 8}}])
        base = f"/v1/clusters/{cid}/kubernetes/extender"
        [chosen] = _post(c, base + "/filter", small).json()["NodeNames"]
        bind = {**fixture("ExtenderBindingArgs.etl-small.json"), "Node": chosen}
        assert _post(c, base + "/bind", bind).json() == {"Error": ""}
        [event] = _events(c, cid)
        assert event["request"] == {"kind": "arrival", "job_id": small["Pod"]["metadata"]["uid"],
                                    "job_type": "small", "tenant": "batch"}

        f = _post(c, base + "/filter", second).json()
        quota = ("headroom: rejected small pod: quota_exceeded: tenant batch would exceed its "
                 "nominal quota by cpu=2, memory=8 (usage cpu=2, memory=8, nominal cpu=2, "
                 "memory=8, borrowed cpu=0, memory=0)")
        assert f["NodeNames"] == [] and f["FailedAndUnresolvableNodes"] == {}
        assert f["FailedNodes"] == {n: quota for n in NODES}
        error = _post(c, base + "/bind", {"PodName": "etl-small-2", "PodNamespace": "batch",
                                          "PodUID": "second-small", "Node": "rack-0"}).json()
        assert error["Error"].startswith("headroom: quota_exceeded: tenant batch would exceed")
        assert error["Error"].endswith("; not bound (event 2)")

        f = _post(c, base + "/filter", shop).json()
        assert f["NodeNames"] == [] and f["FailedNodes"] == {}
        assert f["FailedAndUnresolvableNodes"] == {n: (
            "headroom: unknown_tenant: namespace shop is not a tenant of this cluster (a pod "
            "runs for the tenant named like its namespace)") for n in NODES}
        assert [e["decision"] for e in _events(c, cid)] == ["placed", "rejected"]
        assert [b["body"]["target"]["name"] for b in fake.bindings] == [chosen]


def test_a_pod_with_a_workloads_plan_is_never_counted_again(server, fake):
    """A pod carrying the Kueue controller's plan names a job Headroom holds: filter keeps its
    server, bind binds it there and commits nothing; a plan naming a job Headroom does not
    hold, or another tenant's, places the pod nowhere."""
    with server.client() as c:
        cid = _cluster(c, policy={"kind": "best_fit"}, tenants=[
            {"name": "ml", "nominal": {"cpu": 32, "memory": 128}},
            {"name": "batch", "nominal": {"cpu": 32, "memory": 128}}])
        base = f"/v1/clusters/{cid}/kubernetes/extender"
        r = c.post(f"/v1/clusters/{cid}/gangs", json={
            "event_id": "w", "gang_id": "w", "tenant": "batch",
            "members": [{"job_id": "w.main.0", "job_type": "small"}]})
        assert r.json()["decision"] == "placed", r.text
        server_id = r.json()["members"][0]["server_id"]
        pod = copy.deepcopy(fixture(SMALL_ARGS)["Pod"])
        pod["metadata"].update(uid="planned-pod", name="planned")
        pod["metadata"]["annotations"] = {PLAN: '{"jobs":"w.main","servers":["rack-0"]}'}
        fake.add_pod(pod)
        f = _post(c, base + "/filter", {"Pod": pod, "NodeNames": NODES}).json()
        assert f["NodeNames"] == [server_id]
        bind = {"PodName": "planned", "PodNamespace": "batch", "PodUID": "planned-pod",
                "Node": "rack-3"}
        assert _post(c, base + "/bind", bind).json() == {"Error": ""}
        assert fake.bindings[-1]["body"]["target"]["name"] == server_id
        assert [e["event_id"] for e in _events(c, cid)] == ["w"]
        for annotation, why in [
                ('{"jobs":"x.main","servers":["rack-0"]}',
                 "job x.main.0 of this pod's plan is not held by the cluster"),
                ("not json", "the annotation headroom.io/placement is not JSON"),
                ('{"jobs":"w.main","servers":[]}', "servers: List should have at least 1"),
                ('{"jobs":"w.main","servers":["rack-0","rack-1"]}', "names no index label")]:
            other = copy.deepcopy(pod)
            other["metadata"]["annotations"][PLAN] = annotation
            f = _post(c, base + "/filter", {"Pod": other, "NodeNames": NODES}).json()
            assert f["NodeNames"] == [] and why in f["FailedAndUnresolvableNodes"]["rack-0"], f
        elsewhere = copy.deepcopy(pod)
        elsewhere["metadata"]["namespace"] = "ml"
        f = _post(c, base + "/filter", {"Pod": elsewhere, "NodeNames": NODES}).json()
        assert f["FailedAndUnresolvableNodes"]["rack-0"] == (
            "headroom: job w.main.0 runs for tenant batch, not for this pod's namespace ml")
        assert [e["event_id"] for e in _events(c, cid)] == ["w"]

        # A queued cluster: the plan names the pod set's one job, bound once Headroom starts it.
        qid = _cluster(c, policy={"kind": "first_fit_queue"}, servers=1)
        qbase = f"/v1/clusters/{qid}/kubernetes/extender"
        queued = copy.deepcopy(pod)
        queued["metadata"].update(uid="queued-planned-pod", name="queued-planned")
        queued["metadata"]["annotations"] = {PLAN: '{"job":"q.worker"}'}
        fake.add_pod(queued)
        qbind = {"PodName": "queued-planned", "PodNamespace": "batch",
                 "PodUID": "queued-planned-pod", "Node": "rack-0"}
        f = _post(c, qbase + "/filter", {"Pod": queued, "NodeNames": ["rack-0"]}).json()
        assert "job q.worker of this pod's plan is not held" in \
            f["FailedAndUnresolvableNodes"]["rack-0"]
        for job in ("busy", "q.worker"):
            c.post(f"/v1/clusters/{qid}/arrivals",
                   json={"event_id": job, "job_id": job, "job_type": "large"})
        f = _post(c, qbase + "/filter", {"Pod": queued, "NodeNames": ["rack-0"]}).json()
        assert f["NodeNames"] == [] and "queued (job type large" in f["FailedNodes"]["rack-0"]
        assert "job q.worker is queued, not started" in \
            _post(c, qbase + "/bind", qbind).json()["Error"]
        c.post(f"/v1/clusters/{qid}/departures", json={"event_id": "d", "job_id": "busy"})
        f = _post(c, qbase + "/filter", {"Pod": queued, "NodeNames": ["rack-0"]}).json()
        assert f["NodeNames"] == ["rack-0"]
        assert _post(c, qbase + "/bind", qbind).json() == {"Error": ""}
        assert fake.bindings[-1]["body"]["metadata"]["uid"] == "queued-planned-pod"
        assert [e["event_id"] for e in _events(c, qid)] == ["busy", "q.worker", "d"]


def test_malformed_extender_requests_are_clear_4xx(server, fake):
    with server.client() as c:
        cid = _cluster(c, policy={"kind": "dra"})
        base = f"/v1/clusters/{cid}/kubernetes/extender"
        pod = fixture(SMALL_ARGS)["Pod"]
        bad_quantity = copy.deepcopy(pod)
        bad_quantity["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "lots"
        no_uid = copy.deepcopy(pod)
        del no_uid["metadata"]["uid"]
        for verb, body in [("filter", {}), ("filter", []), ("filter", {"Pod": "x"}),
                           ("filter", {"Pod": pod}),
                           ("filter", {"Pod": pod, "NodeNames": "rack-0"}),
                           ("filter", {"Pod": pod, "Nodes": {"items": [{"spec": {}}]}}),
                           ("prioritize", {"Pod": bad_quantity, "NodeNames": NODES}),
                           ("filter", {"Pod": no_uid, "NodeNames": NODES}),
                           ("filter", {"Pod": {**pod, "spec": {"containers": "x"}},
                                       "NodeNames": NODES}),
                           ("bind", {"PodName": "a"}),
                           ("bind", {"PodName": "a", "PodNamespace": "b", "PodUID": "../x",
                                     "Node": "rack-0"})]:
            r = c.post(f"{base}/{verb}", json=body)
            assert r.status_code == 422, (verb, body, r.text)
            assert r.headers["content-type"].startswith("application/problem+json")
        r = c.post(base + "/filter", content=b"{not json", headers={"content-type":
                                                                    "application/json"})
        assert 400 <= r.status_code < 500
        assert c.get(f"/v1/clusters/{cid}").json()["version"] == 0


# ---- the admission webhook --------------------------------------------------------------

def _review(fixture_name: str, /, **changes: Any) -> dict[str, Any]:
    body = fixture(fixture_name)
    body["request"].update(changes)
    return body


def _scale(name: str, uid: str, old: int, new: int, dry: bool = False) -> dict[str, Any]:
    body = _review(name, uid=uid, dryRun=dry)
    body["request"]["oldObject"]["spec"]["replicas"] = old
    body["request"]["object"]["spec"]["replicas"] = new
    return body


def _admit(c: httpx.Client, cid: str, body: Any, query: str = "") -> dict[str, Any]:
    r = _post(c, f"/v1/clusters/{cid}/kubernetes/admission{query}", body)
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["apiVersion"] == "admission.k8s.io/v1" and out["kind"] == "AdmissionReview"
    assert set(out["response"]) == {"uid", "allowed", "status", "warnings"}
    assert out["response"]["uid"] == body["request"]["uid"]
    return out["response"]


def _moment_cluster(c: httpx.Client) -> str:
    r = c.post("/v1/clusters", json={"name": f"paas-{time.monotonic_ns()}",
                                     "capacity_cores": 10,
                                     "policy": {"kind": "threshold", "threshold": 8}})
    assert r.status_code == 201, r.text
    return r.json()["id"]


def _state(c: httpx.Client, cid: str) -> dict[str, Any]:
    return c.get(f"/v1/clusters/{cid}/state").json()


def test_webhook_create_scale_dry_run_and_delete(server):
    with server.client() as c:
        cid = _moment_cluster(c)
        dry = _admit(c, cid, fixture("AdmissionReview.deployment-create-dryrun.json"))
        assert dry["allowed"] and dry["status"]["code"] == 200
        assert "admitted web/shop with 3 cores" in dry["status"]["message"]
        assert _state(c, cid)["version"] == 0  # dry run: nothing committed

        create = fixture("AdmissionReview.deployment-create.json")
        for _ in range(2):  # the same review again is the same event
            out = _admit(c, cid, create, "?timeout=10s")
            assert out["allowed"] and "3 cores: below_threshold" in out["status"]["message"]
        assert (_state(c, cid)["version"], _state(c, cid)["active_cores"]) == (1, 3)

        out = _admit(c, cid, fixture("AdmissionReview.deployments-scale-out.json"))
        assert out["allowed"] and "by 3 cores granted (active cores 6" in out["status"]["message"]

        other = _review("AdmissionReview.deployment-create.json", uid="second-create",
                        name="cart")
        other["request"]["object"]["metadata"] = {"name": "cart", "uid": "cart-uid"}
        other["request"]["object"]["spec"]["replicas"] = 4
        out = _admit(c, cid, other)
        assert not out["allowed"] and out["status"]["code"] == 403
        assert "rejected web/cart with 4 cores" in out["status"]["message"]
        assert "threshold=8" in out["status"]["message"]

        out = _admit(c, cid, _scale("AdmissionReview.deployments-scale-out.json", "dry-scale",
                                    6, 12, dry=True))
        assert not out["allowed"] and "by 6 cores denied (active cores 6)" \
            in out["status"]["message"]
        out = _admit(c, cid, _scale("AdmissionReview.deployments-scale-out.json", "big-scale",
                                    6, 12))
        assert not out["allowed"] and "denied" in out["status"]["message"]
        assert _state(c, cid)["scaleouts_denied"] == 1

        out = _admit(c, cid, fixture("AdmissionReview.deployments-scale-in.json"))
        assert out["allowed"] and "scale-in of web/shop by 4 cores (active cores 2)" \
            in out["status"]["message"]
        out = _admit(c, cid, fixture("AdmissionReview.deployment-delete.json"))
        assert out["allowed"] and "shut down (active cores 0)" in out["status"]["message"]
        kinds = [e["kind"] for e in _events(c, cid)]
        assert kinds == ["deployment", "scale_out", "deployment", "scale_out", "scale_in",
                         "shutdown"]


def test_webhook_warns_to_migrate_a_deployment_expected_to_outgrow_the_cluster(server):
    """A second-moment cluster: a Deployment that scales out far faster than the population
    prior says is, after the next admission recomputes its moments, answered "migrate" on
    its next scale-out; the webhook passes that on as a warning (kubectl prints it) and the
    scale-out itself is still decided on free cores."""
    with server.client() as c:
        r = c.post("/v1/clusters", json={"name": f"paas-grow-{time.monotonic_ns()}",
                                         "capacity_cores": 400,
                                         "policy": {"kind": "second_moment", "threshold": 0.9}})
        assert r.status_code == 201, r.text
        cid = r.json()["id"]
        first = _admit(c, cid, fixture("AdmissionReview.deployment-create.json"))
        assert first["allowed"], first
        replicas = 3
        for k in range(20):  # 80 cores within a second: no prior expects that
            out = _admit(c, cid, _scale("AdmissionReview.deployments-scale-out.json", f"grow-{k}",
                                        replicas, replicas + 4))
            assert out["allowed"] and out["warnings"] == [], out
            replicas += 4
        other = _review("AdmissionReview.deployment-create.json", uid="after-growth", name="cart")
        other["request"]["object"]["metadata"] = {"name": "cart", "uid": "cart-uid"}
        _admit(c, cid, other)  # admitted or not, its refresh recomputes shop's moments
        listed = _state(c, cid)["outgrowing"]["deployments"]
        assert [d["cores"] for d in listed] == [replicas]
        out = _admit(c, cid, _scale("AdmissionReview.deployments-scale-out.json", "told",
                                    replicas, replicas + 1))
        assert out["allowed"] and "granted" in out["status"]["message"]
        assert out["warnings"] == [(f"headroom: migrate web/shop: expected to need "
                                   f"{listed[0]['expected_share']:.0%} of this cluster "
                                   f"({listed[0]['expected_peak_cores']:.0f} cores)")]


def test_webhook_refuses_what_it_cannot_count_and_passes_what_it_does_not_govern(server):
    with server.client() as c:
        cid = _moment_cluster(c)
        no_cpu = fixture("AdmissionReview.deployment-create.json")
        for container in no_cpu["request"]["object"]["spec"]["template"]["spec"]["containers"]:
            container["resources"] = {}
        out = _admit(c, cid, no_cpu)
        assert not out["allowed"] and out["status"]["code"] == 422
        assert "requests no cpu" in out["status"]["message"]
        # More cores than any moment cluster holds: a valid Deployment Headroom cannot count.
        huge = fixture("AdmissionReview.deployment-create.json")
        huge["request"]["object"]["spec"]["replicas"] = 2**31 - 1
        out = _admit(c, cid, huge)
        assert not out["allowed"] and out["status"]["code"] == 422
        assert "more than any moment cluster holds (10000000)" in out["status"]["message"]
        configmap = _review("AdmissionReview.deployment-create.json",
                            resource={"group": "", "version": "v1", "resource": "configmaps"})
        out = _admit(c, cid, configmap)
        assert out["allowed"] and "not governed" in out["status"]["message"]
        assert _state(c, cid)["version"] == 0


def test_malformed_reviews_are_4xx_problems_never_5xx(server):
    with server.client() as c:
        cid = _moment_cluster(c)
        good = fixture("AdmissionReview.deployment-create.json")
        no_uid = copy.deepcopy(good)
        del no_uid["request"]["uid"]
        bodies: list[Any] = [
            {}, [], "review", None,
            {**good, "apiVersion": "admission.k8s.io/v1beta1"},
            {**good, "kind": "AdmissionResponse"},
            {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"},
            no_uid,
            _review("AdmissionReview.deployment-create.json", operation="PATCH"),
            _review("AdmissionReview.deployment-create.json", resource="deployments"),
            _review("AdmissionReview.deployment-create.json", uid="has space"),
        ]
        for body in bodies:
            r = c.post(f"/v1/clusters/{cid}/kubernetes/admission", json=body)
            assert r.status_code == 422, (body, r.text)
            assert r.headers["content-type"].startswith("application/problem+json")
        r = c.post(f"/v1/clusters/{cid}/kubernetes/admission", content=b"\x00\xff",
                   headers={"content-type": "application/json"})
        assert 400 <= r.status_code < 500
        # The Deployment inside is typed as upstream types it: what breaks that is a problem
        # naming the field, as the API server (which validates objects before any validating
        # webhook sees them) never sends it.
        containers = ("request.object.spec.template.spec.containers[0].resources.requests"
                      ".cpu")
        for where, value, field in [
                (("spec", "replicas"), "three", "request.object.spec.replicas"),
                (("spec", "replicas"), 2**31, "request.object.spec.replicas"),
                (("spec", "template"), "a string", "request.object.spec.template"),
                (("spec", "template"), ["a list"], "request.object.spec.template"),
                (("metadata", "uid"), "\t", "request.object.metadata.uid"),
                (("spec", "template", "spec", "containers", 0, "resources", "requests", "cpu"),
                 "a lot", containers)]:
            shaped = _review("AdmissionReview.deployment-create.json")
            at = shaped["request"]["object"]
            for key in where[:-1]:
                at = at[key]
            at[where[-1]] = value
            r = c.post(f"/v1/clusters/{cid}/kubernetes/admission", json=shaped)
            assert r.status_code == 422, (where, r.text)
            assert [e["field"] for e in r.json()["errors"]] == [field]
        assert _state(c, cid)["version"] == 0
        # The webhook is for moment clusters: a placement cluster is a 409 naming its routes.
        pid = _cluster(c)
        r = c.post(f"/v1/clusters/{pid}/kubernetes/admission", json=good)
        assert r.status_code == 409 and r.json()["code"] == "wrong_cluster_kind"


def test_webhook_answers_by_its_deadline_while_the_cluster_is_locked(server, env):
    """The row lock held elsewhere: the review is denied (504) by the deadline, half the
    API server's ?timeout=; once the lock goes, the late admission lands and is undone."""
    with server.client() as c:
        cid = _moment_cluster(c)
        db = create_engine(env[2])
        try:
            with db.connect() as conn:
                tx = conn.begin()
                conn.execute(text("SELECT id FROM clusters WHERE id = :c FOR UPDATE"),
                             {"c": cid})
                out = _admit(c, cid, fixture("AdmissionReview.deployment-create.json"),
                             "?timeout=1s")
                tx.rollback()
        finally:
            db.dispose()
        assert not out["allowed"] and out["status"]["code"] == 504
        assert "no decision within 0.5 s" in out["status"]["message"]
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(_events(c, cid)) < 2:
            time.sleep(0.2)
        events = _events(c, cid)
        uid = fixture("AdmissionReview.deployment-create.json")["request"]["uid"]
        assert [(e["kind"], e["event_id"], e["decision"]) for e in events] == [
            ("deployment", uid, "admitted"), ("shutdown", f"{uid}-undo", "released")]
        assert _state(c, cid)["active_cores"] == 0


def test_serve_speaks_https_for_the_api_server(tmp_path, pg_url):
    """Admission webhooks are called over TLS only: HEADROOM_TLS_CERTFILE/KEYFILE make
    ``headroom serve`` answer HTTPS with that certificate (here self-signed for 127.0.0.1)."""
    import shutil
    import subprocess

    openssl = shutil.which("openssl")
    assert openssl, "openssl makes the test certificate (Debian's openssl package)"
    cert, key = tmp_path / "tls.crt", tmp_path / "tls.key"
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=headroom", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True,
                   timeout=60)
    with FreshDatabase("headroom_k8s_tls") as db:
        upgrade(Settings(database_url=db.url))
        with LiveServer(db.url, extra_args=("--no-migrate",), ca_file=cert,
                        env={"HEADROOM_TLS_CERTFILE": str(cert),
                             "HEADROOM_TLS_KEYFILE": str(key)}) as server:
            assert server.url.startswith("https://")
            with server.client() as c:
                cid = _moment_cluster(c)
                out = _admit(c, cid, fixture("AdmissionReview.deployment-create-dryrun.json"))
                assert out["allowed"]
            with pytest.raises(httpx.ConnectError):  # not a certificate the system trusts
                httpx.get(server.url + "/readyz", timeout=10)
