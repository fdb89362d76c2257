"""The Kubernetes routes in process (SQLite and Postgres), with the API server injected
through ``app.state.kube_api``: the Binding bind asks for, the key in the path (and out of the
log), and the webhook's deadline answer."""

from __future__ import annotations

import logging
import threading
from typing import Any

from app.service import admission
from tests.helpers import cluster_spec
from tests.integrations.kubernetes.fakes import fixture


class RecordingApi:
    """An ``ApiServer`` that serves the fixtures' pods and records bindings."""

    def __init__(self) -> None:
        self.bound: list[tuple[str, str, str, str]] = []

    def get_pod(self, namespace: str, name: str) -> dict[str, Any]:
        return fixture(f"Pod.{name}.json")

    def bind(self, namespace: str, name: str, uid: str, node: str) -> None:
        self.bound.append((namespace, name, uid, node))


def test_bind_calls_the_api_server_with_headrooms_node(app, client):
    app.state.kube_api = api = RecordingApi()
    cid = client.post("/v1/clusters", json=cluster_spec(policy={"kind": "best_fit"})).json()["id"]
    args = fixture("ExtenderBindingArgs.etl-small.json")
    for _ in range(2):
        r = client.post(f"/v1/clusters/{cid}/kubernetes/extender/bind", json=args)
        assert r.status_code == 200 and r.json() == {"Error": ""}
    [event] = client.get(f"/v1/clusters/{cid}/events").json()["items"]
    server = event["response"]["server_id"]
    assert api.bound == [("batch", "etl-small", args["PodUID"], server)] * 2


def test_key_in_the_path_authenticates_and_stays_out_of_the_log(app, client, caplog):
    app.state.kube_api = RecordingApi()
    cid = client.post("/v1/clusters", json=cluster_spec()).json()["id"]
    key = client.headers["Authorization"].removeprefix("Bearer ")
    anonymous = client.__class__(app)  # no Authorization header
    url = f"/v1/kubernetes/{key}/clusters/{cid}/extender/filter"
    with caplog.at_level(logging.INFO, logger="headroom.access"):
        r = anonymous.post(url, json=fixture("ExtenderArgs.etl-small.NodeNames.json"))
    assert r.status_code == 200, r.text
    assert r.json()["NodeNames"] == ["rack-0", "rack-1", "rack-2", "rack-3"]
    paths = [getattr(rec, "path", "") for rec in caplog.records]
    assert f"/v1/kubernetes/{{api_key}}/clusters/{cid}/extender/filter" in paths
    assert not any(key in str(p) or key in rec.getMessage()
                   for p, rec in zip(paths, caplog.records))
    assert anonymous.post(url.replace(key, "hr_not-a-key"), json={}).status_code == 401


def test_webhook_denies_at_its_deadline_and_undoes_a_late_admission(app, client, monkeypatch):
    """A decision held up (here: the first review's worker waits on an event) is answered
    504 at the deadline; when it lands, the admission is undone."""
    cid = client.post("/v1/clusters", json={"name": "paas", "capacity_cores": 10,
                                            "policy": {"kind": "threshold",
                                                       "threshold": 8}}).json()["id"]
    release = threading.Event()
    real = admission._Decider.decide

    def slow(self):
        assert release.wait(60)
        return real(self)

    monkeypatch.setattr(admission._Decider, "decide", slow)
    review = fixture("AdmissionReview.deployment-create.json")
    r = client.post(f"/v1/clusters/{cid}/kubernetes/admission?timeout=200ms", json=review)
    out = r.json()["response"]
    assert (out["allowed"], out["status"]["code"]) == (False, 504)
    assert "no decision within 0.1 s" in out["status"]["message"]
    release.set()
    uid = review["request"]["uid"]
    for _ in range(600):
        kinds = [(e["kind"], e["event_id"])
                 for e in client.get(f"/v1/clusters/{cid}/events").json()["items"]]
        if len(kinds) == 2:
            break
        threading.Event().wait(0.1)
    assert kinds == [("deployment", uid), ("shutdown", f"{uid}-undo")]
    assert client.get(f"/v1/clusters/{cid}/state").json()["active_cores"] == 0


def test_webhook_admits_a_deployment_for_the_tenant_named_like_its_namespace(client):
    """Where the moment cluster declares tenants, the Deployment's namespace is its tenant:
    within that tenant's quota it is admitted and charged; a namespace that is no tenant is
    refused, saying so."""
    review = fixture("AdmissionReview.deployment-create.json")
    namespace = review["request"]["namespace"]
    cid = client.post("/v1/clusters", json={
        "name": "paas-tenants", "capacity_cores": 100,
        "policy": {"kind": "threshold", "threshold": 80},
        "tenants": [{"name": namespace, "nominal": {"cores": 50}}]}).json()["id"]
    out = client.post(f"/v1/clusters/{cid}/kubernetes/admission", json=review).json()
    assert out["response"]["allowed"], out
    [event] = client.get(f"/v1/clusters/{cid}/events").json()["items"]
    assert event["request"]["tenant"] == namespace
    [tenant] = client.get(f"/v1/clusters/{cid}/state").json()["tenancy"]["tenants"]
    assert tenant["usage"]["cores"] == event["request"]["cores"] > 0
    other = client.post("/v1/clusters", json={
        "name": "paas-other", "capacity_cores": 100,
        "policy": {"kind": "threshold", "threshold": 80},
        "tenants": [{"name": "someone-else", "nominal": {"cores": 50}}]}).json()["id"]
    out = client.post(f"/v1/clusters/{other}/kubernetes/admission", json=review).json()
    assert not out["response"]["allowed"]
    assert "tenant" in out["response"]["status"]["message"], out
