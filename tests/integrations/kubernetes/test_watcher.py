"""The pod watcher, driven by a fake watch stream, posting to the real app (in process)."""

from __future__ import annotations

import copy
import uuid
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from app.kubernetes import watcher
from app.kubernetes.pinning import PLAN
from app.kubernetes.watcher import Watcher, departure_of
from tests.conftest import admin_client
from tests.helpers import cluster_spec
from tests.integrations.kubernetes.fakes import fixture

SCHED = "headroom-scheduler"


def _pod(uid: str, phase: str = "Running", scheduler: str = SCHED) -> dict[str, Any]:
    pod = copy.deepcopy(fixture("Pod.etl-small.json"))
    pod["metadata"]["uid"] = uid
    pod["metadata"]["name"] = f"pod-{uid}"
    pod["spec"]["schedulerName"] = scheduler
    pod["spec"]["nodeName"] = "rack-0"
    pod["status"]["phase"] = phase
    return pod


def test_which_events_are_departures():
    assert departure_of({"type": "DELETED", "object": _pod("a")}, SCHED).why == "deleted"
    assert departure_of({"type": "MODIFIED", "object": _pod("a", "Succeeded")}, SCHED).why \
        == "succeeded"
    assert departure_of({"type": "ADDED", "object": _pod("a", "Failed")}, SCHED).why == "failed"
    assert departure_of({"type": "MODIFIED", "object": _pod("a")}, SCHED) is None
    assert departure_of({"type": "DELETED", "object": _pod("a", scheduler="default")},
                        SCHED) is None
    assert departure_of({"type": "BOOKMARK", "object": {"metadata": {}}}, SCHED) is None
    assert departure_of({"type": "ERROR", "object": None}, SCHED) is None
    # A Kueue Workload's pod: its job departs with the Workload, not with the pod.
    planned = _pod("a", "Succeeded")
    planned["metadata"]["annotations"] = {PLAN: '{"jobs":"w.main","servers":["rack-0"]}'}
    assert departure_of({"type": "DELETED", "object": planned}, SCHED) is None


@pytest.fixture
def client(app) -> TestClient:
    with admin_client(app) as c:
        yield c


def _arrive(c: TestClient, cid: str, uid: str) -> dict[str, Any]:
    r = c.post(f"/v1/clusters/{cid}/arrivals",
               json={"event_id": uid, "job_id": uid, "job_type": "large"})
    assert r.status_code in (200, 202), r.text
    return r.json()


def test_departures_are_posted_once_each_and_unknown_pods_skipped(client):
    cid = client.post("/v1/clusters", json=cluster_spec()).json()["id"]
    for uid in ("a", "b"):
        assert _arrive(client, cid, uid)["decision"] == "placed"
    w = Watcher(client, cid, SCHED)
    w.handle([
        {"type": "MODIFIED", "object": _pod("a")},               # running: nothing
        {"type": "MODIFIED", "object": _pod("a", "Succeeded")},  # departs
        {"type": "DELETED", "object": _pod("a", "Succeeded")},   # the same departure again
        {"type": "DELETED", "object": _pod("never-placed")},     # 404: skipped
        {"type": "DELETED", "object": _pod("b", scheduler="default-scheduler")},  # not ours
    ])
    assert w.posted == 2
    events = client.get(f"/v1/clusters/{cid}/events").json()["items"]
    assert [(e["kind"], e["event_id"]) for e in events] == [
        ("arrival", "a"), ("arrival", "b"), ("departure", "depart-a")]
    assert client.get(f"/v1/clusters/{cid}/state").json()["jobs"] == 1


def test_a_pod_deleted_while_queued_is_withdrawn_from_the_queue(client):
    cid = client.post("/v1/clusters", json=cluster_spec(
        servers=1, policy={"kind": "first_fit_queue"})).json()["id"]
    assert _arrive(client, cid, "running")["decision"] == "started"
    assert _arrive(client, cid, "waiting")["decision"] == "queued"
    w = Watcher(client, cid, SCHED)
    w.handle([{"type": "DELETED", "object": _pod("waiting")},
              # seen again (a watch resumed from before it): the same departure
              {"type": "DELETED", "object": _pod("waiting")}])
    assert w.posted == 2  # the second is Headroom's replay of the first
    assert client.get(f"/v1/clusters/{cid}/jobs/waiting").json()["status"] == "withdrawn"
    w.handle([{"type": "DELETED", "object": _pod("running")}])  # its slot goes to nobody
    state = client.get(f"/v1/clusters/{cid}/state").json()
    assert state["withdrawn"] == 1 and state["finished"] == 1 and sum(state["queues"].values()) == 0
    events = client.get(f"/v1/clusters/{cid}/events").json()["items"]
    assert [(e["kind"], e["event_id"]) for e in events][-2:] == [
        ("departure", "depart-waiting"), ("departure", "depart-running")]


def test_main_needs_a_key(monkeypatch, capsys):
    monkeypatch.delenv("HEADROOM_API_KEY", raising=False)
    assert watcher.main(["--url", "http://x", "--cluster", "c"]) == 2
    assert "HEADROOM_API_KEY" in capsys.readouterr().err


def test_a_list_departs_the_jobs_whose_pods_are_gone(client):
    """The reconcile: jobs Headroom held before the list whose pod the list lacks depart; a
    job whose id is no pod UID (the Kueue controller's, anyone else's) and a job that
    arrived after the list began stay."""
    cid = client.post("/v1/clusters", json=cluster_spec(servers=8)).json()["id"]
    alive, gone, late = (str(uuid.UUID(int=i)) for i in (1, 2, 3))
    kueue = f"{uuid.UUID(int=4)}.main"
    for jid in (alive, gone, kueue, "vm-17"):
        assert _arrive(client, cid, jid)["decision"] == "placed"
    w = Watcher(client, cid, SCHED)

    def stream():
        yield {"type": "LISTING", "object": None}
        _arrive(client, cid, late)  # bound while the pods were being listed
        yield {"type": "ADDED", "object": _pod(alive)}
        yield {"type": "LISTED", "object": {"uids": [alive]}}

    w.handle(stream())
    assert (w.posted, w.reconciled) == (1, 1)
    held = {j["job_id"] for j in client.get(f"/v1/clusters/{cid}/jobs").json()["items"]}
    assert held == {alive, late, kueue, "vm-17"}
    events = client.get(f"/v1/clusters/{cid}/events").json()["items"]
    assert events[-1]["event_id"] == f"depart-{gone}"
    off = Watcher(client, cid, SCHED, reconcile=False)  # --namespace, --no-reconcile
    off.handle([{"type": "LISTING", "object": None}, {"type": "LISTED", "object": {"uids": []}}])
    assert off.posted == 0 and len(client.get(f"/v1/clusters/{cid}/jobs").json()["items"]) == 4


def test_held_pod_jobs_reads_every_page(client, monkeypatch):
    monkeypatch.setattr(watcher, "LIST_PAGE", 2)
    cid = client.post("/v1/clusters", json=cluster_spec(servers=8)).json()["id"]
    uids = sorted(str(uuid.UUID(int=i)) for i in range(5))
    for jid in uids:
        _arrive(client, cid, jid)
    assert Watcher(client, cid, SCHED).held_pod_jobs() == uids


def test_reading_headrooms_jobs_retries_transient_failures(monkeypatch):
    monkeypatch.setattr(watcher.time, "sleep", lambda _s: None)
    uid = str(uuid.UUID(int=9))
    answers = iter([httpx.ConnectError("refused"), httpx.Response(503),
                    httpx.Response(200, json={"items": [{"job_id": uid}], "total": 1,
                                              "next_cursor": None})])

    def reply(request: httpx.Request) -> httpx.Response:
        answer = next(answers)
        if isinstance(answer, Exception):
            raise answer
        return answer

    client = httpx.Client(base_url="http://headroom", transport=httpx.MockTransport(reply))
    assert Watcher(client, "c", SCHED).held_pod_jobs() == [uid]
    broken = httpx.Client(base_url="http://headroom",
                          transport=httpx.MockTransport(lambda _r: httpx.Response(503)))
    with pytest.raises(RuntimeError, match="could not read"):
        Watcher(broken, "c", SCHED).held_pod_jobs()


def test_pod_events_lists_then_watches_from_the_lists_version(tmp_path, monkeypatch):
    """The API-server side of the watcher, on the fake API server for lists and with the
    client's Watch replaced by a fake one: the scheduler's pods are listed page by page (as
    ADDED, between LISTING and LISTED), then watched from the list's version; a list that
    fails is started again (and no LISTED ends the partial one); a watch that ends on its
    timeout is resumed from the version it reached (nothing listed again); an expired
    version (410) lists again."""
    import itertools

    from kubernetes.client import V1ObjectMeta, V1Pod, V1PodSpec, V1PodStatus
    from kubernetes.client.exceptions import ApiException

    from tests.integrations.kubernetes.fakes import FakeApiServer

    monkeypatch.setattr(watcher, "LIST_PAGE", 1)
    calls: list[dict[str, Any]] = []

    def deleted(uid: str) -> dict[str, Any]:
        return {"type": "DELETED", "object": V1Pod(
            metadata=V1ObjectMeta(name="p", namespace="batch", uid=uid, resource_version="7"),
            spec=V1PodSpec(containers=[], scheduler_name=SCHED, node_name="rack-0"),
            status=V1PodStatus(phase="Running"))}

    class FakeWatch:
        """Like kubernetes.watch.Watch: resource_version starts at the one asked for and
        follows the events streamed. The first watch ends on its timeout, the second is
        refused (410), then all end."""

        def __init__(self) -> None:
            self.resource_version = None

        def stream(self, func, **kwargs):
            calls.append({"func": func.__name__, **kwargs})
            self.resource_version = kwargs.get("resource_version")
            if len(calls) == 2:
                raise ApiException(status=410, reason="Gone")
            yield deleted(f"u{len(calls)}")
            self.resource_version = "7"

    monkeypatch.setattr(watcher.time, "sleep", lambda _s: None)
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    with FakeApiServer() as fake:
        for uid, ns, sched in (("p1", "batch", SCHED), ("p2", "batch", SCHED),
                               ("other", "batch", "default-scheduler"), ("p3", "web", SCHED)):
            pod = _pod(uid, scheduler=sched)
            pod["metadata"]["namespace"] = ns
            fake.add_pod(pod)
        monkeypatch.setenv("KUBECONFIG", str(fake.kubeconfig(tmp_path / "config")))
        fake.failing_lists = 1
        events = list(itertools.islice(
            watcher.pod_events("batch", SCHED, FakeWatch), 11))
    kinds = [e["type"] for e in events]
    assert kinds == ["LISTING", "LISTING", "ADDED", "ADDED", "LISTED", "DELETED",
                     "LISTING", "ADDED", "ADDED", "LISTED", "DELETED"]
    assert [e["object"]["metadata"]["uid"] for e in events[2:4]] == ["p1", "p2"]
    assert events[4]["object"] == {"uids": ["p1", "p2"]}  # not p3 (namespace), not other
    pod = events[5]["object"]
    assert pod["metadata"]["uid"] == "u1" and pod["spec"]["schedulerName"] == SCHED
    assert departure_of(events[5], SCHED).uid == "u1"
    assert events[10]["object"]["metadata"]["uid"] == "u3"
    # The failed list, then each list in two pages of one pod, filtered by the API server.
    assert [(ls["namespace"], ls["query"]["fieldSelector"], ls["query"].get("continue"))
            for ls in fake.lists] == [("batch", [f"spec.schedulerName={SCHED}"], c)
                                      for c in (None, None, ["1"], None, ["1"])]
    watched = {"func": "list_namespaced_pod", "namespace": "batch",
               "field_selector": f"spec.schedulerName={SCHED}",
               "timeout_seconds": watcher.WATCH_SECONDS, "allow_watch_bookmarks": True}
    assert calls == [{**watched, "resource_version": "100"},  # from the list's version
                     {**watched, "resource_version": "7"},    # resumed where the first ended
                     {**watched, "resource_version": "100"}]  # 410: listed again, from there
