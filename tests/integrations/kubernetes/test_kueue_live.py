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


def _events(server: LiveServer, cid: str) -> list[tuple[str, str, str]]:
    with server.client() as c:
        items = c.get(f"/v1/clusters/{cid}/events").json()["items"]
    return [(e["kind"], e["event_id"], e["decision"]) for e in items]


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
    assert state["podSetUpdates"] == [
        {"name": "launcher", "nodeSelector": {"kubernetes.io/hostname": "rack-0"}},
        {"name": "worker", "nodeSelector": {"kubernetes.io/hostname": "rack-1"}}]
    assert _check(second)["podSetUpdates"] == state["podSetUpdates"]
    assert _check(first, "other-check") == \
        workload["status"]["admissionChecks"][1]  # another controller's state, untouched
    uid = workload["metadata"]["uid"]
    assert _events(server, cid) == [("arrival", f"{uid}.launcher", "placed"),
                                    ("arrival", f"{uid}.worker", "placed")]
    finished = copy.deepcopy(workload)
    finished["status"]["conditions"].append({"type": "Finished", "status": "True"})
    controller.handle([{"type": "MODIFIED", "object": finished},
                       {"type": "DELETED", "object": finished}])
    assert [e[:2] for e in _events(server, cid)[2:]] == [
        ("departure", f"depart-{uid}.launcher"), ("departure", f"depart-{uid}.worker")]


def test_rejection_is_rejected_and_frees_what_was_placed(controller_for, fake, server):
    """One server of 8 cores: the launcher (small) is placed, the worker (large) finds no
    room, so the workload is Rejected and the launcher departs again."""
    controller, cid = controller_for(policy={"kind": "first_fit"}, servers=1)
    fake.patches.clear()
    workload = fixture("Workload.train-pending.json")
    controller.handle([{"type": "ADDED", "object": workload}])
    state = _check(fake.patches[-1])
    assert state["state"] == "Rejected" and "podSetUpdates" not in state
    assert state["message"].startswith("headroom: pod set worker rejected: no_server_fits")
    uid = workload["metadata"]["uid"]
    assert _events(server, cid) == [("arrival", f"{uid}.launcher", "placed"),
                                    ("arrival", f"{uid}.worker", "rejected"),
                                    ("departure", f"depart-{uid}.launcher", "released")]


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
    assert state["podSetUpdates"] == [{"name": "worker",
                                       "nodeSelector": {"kubernetes.io/hostname": "rack-0"}}]


def test_what_it_cannot_pin_or_count_is_rejected_without_an_event(controller_for, fake, server):
    controller, cid = controller_for()
    fake.patches.clear()
    many = fixture("Workload.train-pending.json")
    many["spec"]["podSets"][1]["count"] = 4
    huge = fixture("Workload.train-pending.json")
    huge["spec"]["podSets"][0]["template"]["spec"]["containers"][0]["resources"] = \
        {"requests": {"cpu": "64"}}
    not_reserved = fixture("Workload.train-pending.json")
    not_reserved["status"]["conditions"] = []
    controller.handle([{"type": "ADDED", "object": w} for w in (many, huge, not_reserved)])
    assert [_check(p)["state"] for p in fake.patches] == ["Rejected", "Rejected"]
    assert "has 4 pods" in _check(fake.patches[0])["message"]
    assert "no_job_type_covers_requests" in _check(fake.patches[1])["message"]
    assert _events(server, cid) == []


def test_main_needs_a_key(monkeypatch, capsys):
    from app.kubernetes import kueue

    monkeypatch.delenv("HEADROOM_API_KEY", raising=False)
    assert kueue.main(["--url", "http://x", "--cluster", "c"]) == 2
    assert "HEADROOM_API_KEY" in capsys.readouterr().err
