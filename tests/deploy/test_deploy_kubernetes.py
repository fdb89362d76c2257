"""deploy/kubernetes/ rendered with `kubectl kustomize` and validated offline against the
Kubernetes 1.32 schemas (kubernetes-validate, strict: no unknown fields), and checked against
what the code really serves: the extender's urlPrefix and the webhook's path reach the routes,
with the key and cluster ids from headroom.env."""

from __future__ import annotations

import base64
import configparser
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml
from sqlalchemy.engine import make_url

from app.config import Settings
from app.kubernetes.kueue import CONTROLLER_NAME
from app.main import create_app

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy" / "kubernetes"
TARGETS = ["base", "overlays/postgres", "overlays/postgres-ha", "overlays/kueue"]
# Objects of CRDs the schemas do not hold (Kueue's, CloudNativePG's), checked by hand below.
CRD_KINDS = {("kueue.x-k8s.io/v1beta1", "AdmissionCheck"), ("postgresql.cnpg.io/v1", "Cluster"),
             ("postgresql.cnpg.io/v1", "Pooler")}
K8S_VERSION = "1.32.0"
SETTING_ENV = {f"HEADROOM_{name.upper()}" for name in Settings.model_fields}
# The fields of kubescheduler.config.k8s.io/v1 Extender.
EXTENDER_FIELDS = {"urlPrefix", "filterVerb", "preemptVerb", "prioritizeVerb", "weight",
                   "bindVerb", "enableHTTPS", "tlsConfig", "httpTimeout", "nodeCacheCapable",
                   "managedResources", "ignorable"}


def _kubectl() -> str:
    path = shutil.which("kubectl")
    if path is None:
        if os.environ.get("CI") == "true":
            pytest.fail("kubectl (with kustomize >= v4.1) is needed to render deploy/kubernetes")
        pytest.skip("kubectl is not installed")
    return path


@pytest.fixture(scope="module", params=TARGETS)
def rendered(request) -> list[dict[str, Any]]:
    out = subprocess.run([_kubectl(), "kustomize", str(DEPLOY / request.param)],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    return [d for d in yaml.safe_load_all(out) if d]


def _one(docs: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    # Generated objects carry kustomize's hash suffix.
    found = [d for d in docs if d["kind"] == kind
             and re.fullmatch(re.escape(name) + r"(-[a-z0-9]{10})?", d["metadata"]["name"])]
    assert len(found) == 1, (kind, name, [d["metadata"]["name"] for d in found])
    return found[0]


def _env_file() -> dict[str, str]:
    lines = (DEPLOY / "base" / "headroom.env").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if line and not line.startswith("#"))


def test_every_object_validates_against_the_kubernetes_schemas(rendered):
    kinds = {d["kind"] for d in rendered}
    assert {"Deployment", "Service", "ValidatingWebhookConfiguration", "ClusterRole",
            "ClusterRoleBinding", "ServiceAccount", "Secret"} <= kinds
    for doc in rendered:
        if (doc["apiVersion"], doc["kind"]) in CRD_KINDS:
            continue
        # SchemaNotFoundError would mean an object nobody checked: fail on it too.
        kubernetes_validate.validate(doc, K8S_VERSION, strict=True)


def test_kueue_overlay_names_the_controller_and_grants_what_it_calls():
    out = subprocess.run([_kubectl(), "kustomize", str(DEPLOY / "overlays" / "kueue")],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    docs = [d for d in yaml.safe_load_all(out) if d]
    check = _one(docs, "AdmissionCheck", "headroom")
    assert set(check) == {"apiVersion", "kind", "metadata", "spec"}
    assert check["spec"] == {"controllerName": CONTROLLER_NAME, "retryDelayMinutes": 1}
    role = _one(docs, "ClusterRole", "headroom-kueue")
    granted = {(res, verb) for r in role["rules"] for res in r["resources"] for verb in r["verbs"]}
    assert granted == {(res, verb) for res in ("admissionchecks", "workloads")
                       for verb in ("get", "list", "watch")} | \
        {("admissionchecks/status", "patch"), ("workloads/status", "patch")}
    controller = _one(docs, "Deployment", "headroom-kueue")["spec"]["template"]["spec"]
    assert "python -m app.kubernetes.kueue" in controller["containers"][0]["args"][0]


def test_ha_overlay_runs_cloudnativepg_with_a_synchronous_standby_and_a_pooler():
    out = subprocess.run([_kubectl(), "kustomize", str(DEPLOY / "overlays" / "postgres-ha")],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    docs = [d for d in yaml.safe_load_all(out) if d]
    cluster = _one(docs, "Cluster", "headroom-db")
    spec = cluster["spec"]
    assert set(spec) <= {"instances", "imageName", "affinity", "postgresql", "bootstrap",
                         "storage"}
    assert spec["instances"] == 3
    # A commit Headroom answers is on a standby too, and never acknowledged on one copy.
    assert spec["postgresql"]["synchronous"] == {"method": "any", "number": 1,
                                                 "dataDurability": "required"}
    assert spec["affinity"] == {"enablePodAntiAffinity": True, "podAntiAffinityType": "required",
                                "topologyKey": "kubernetes.io/hostname"}
    assert spec["bootstrap"] == {"initdb": {"database": "headroom", "owner": "headroom"}}
    pooler = _one(docs, "Pooler", "headroom-db-pooler")["spec"]
    assert pooler["cluster"] == {"name": "headroom-db"} and pooler["type"] == "rw"
    assert pooler["pgbouncer"]["poolMode"] == "transaction"
    shipped = configparser.ConfigParser(interpolation=None)
    shipped.read(ROOT / "deploy" / "pgbouncer" / "pgbouncer.ini")
    for key in ("server_login_retry", "server_connect_timeout", "query_wait_timeout"):
        assert pooler["pgbouncer"]["parameters"][key] == shipped["pgbouncer"][key], key
    # Headroom serves through the pooler, told so; migrations go to the primary directly.
    pod = _one(docs, "Deployment", "headroom")["spec"]["template"]["spec"]
    env = {e["name"]: e for e in pod["containers"][0]["env"]}
    url = env["HEADROOM_DATABASE_URL"]["value"].replace("$(POSTGRES_PASSWORD)", "pw")
    assert make_url(url).host == "headroom-db-pooler"
    assert env["POSTGRES_PASSWORD"]["valueFrom"]["secretKeyRef"] == {"name": "headroom-db-app",
                                                                    "key": "password"}
    assert Settings(database_url=url, database_transaction_pooling=env[
        "HEADROOM_DATABASE_TRANSACTION_POOLING"]["value"]).database_transaction_pooling
    migrate = {c["name"]: c for c in pod["initContainers"]}["migrate"]
    assert migrate["env"] == [{"name": "HEADROOM_DATABASE_URL", "valueFrom": {
        "secretKeyRef": {"name": "headroom-db-app", "key": "uri"}}}]
    # No single-node database left behind.
    assert not [d for d in docs if d["kind"] in ("StatefulSet", "PersistentVolumeClaim")]


def test_the_validation_can_fail():
    bad = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "x"},
           "spec": {"replicas": "two", "selector": {}, "template": {}}}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(bad, K8S_VERSION, strict=True)
    typo = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "x"},
            "spec": {"prots": []}}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(typo, K8S_VERSION, strict=True)


def _route_for(path: str) -> str | None:
    """The served POST route (its template) that ``path`` reaches, as a router matches it:
    each {parameter} is one path segment."""
    app = create_app(Settings(database_url="sqlite://"), configure_logs=False)
    for template, ops in app.openapi()["paths"].items():
        pattern = re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(template))
        if "post" in ops and re.fullmatch(pattern, path):
            return template
    return None


def test_scheduler_configuration_points_the_extender_at_the_routes(rendered):
    secret = _one(rendered, "Secret", "headroom-scheduler-config")
    config = yaml.safe_load(base64.b64decode(secret["data"]["scheduler-config.yaml"]))
    assert config["apiVersion"] == "kubescheduler.config.k8s.io/v1"
    assert config["kind"] == "KubeSchedulerConfiguration"
    [profile] = config["profiles"]
    [ext] = config["extenders"]
    assert set(ext) <= EXTENDER_FIELDS
    assert ext["nodeCacheCapable"] is True and ext["ignorable"] is False and ext["weight"] > 0
    env = _env_file()
    prefix = ext["urlPrefix"].replace("@HEADROOM_API_KEY@", env["HEADROOM_API_KEY"]) \
        .replace("@HEADROOM_PLACEMENT_CLUSTER_ID@", env["HEADROOM_PLACEMENT_CLUSTER_ID"])
    path = "/" + prefix.split("/", 3)[3]
    for verb in ("filterVerb", "prioritizeVerb", "bindVerb"):
        # kube-scheduler joins urlPrefix and the verb with "/".
        assert _route_for(f"{path}/{ext[verb]}") == \
            f"/v1/kubernetes/{{api_key}}/clusters/{{cluster_id}}/extender/{ext[verb]}"
    # The scheduler's name is the one the watcher follows.
    watcher = _one(rendered, "Deployment", "headroom-watcher")
    assert f"--scheduler-name {profile['schedulerName']}" in \
        watcher["spec"]["template"]["spec"]["containers"][0]["args"][0]
    init = _one(rendered, "Deployment", "headroom-scheduler")["spec"]["template"]["spec"]
    rendering = init["initContainers"][0]["args"][0]
    assert "@HEADROOM_API_KEY@" in rendering and "@HEADROOM_PLACEMENT_CLUSTER_ID@" in rendering


def test_webhook_reaches_the_admission_route_within_its_timeout(rendered):
    hook = _one(rendered, "ValidatingWebhookConfiguration", "headroom")
    [webhook] = hook["webhooks"]
    env = _env_file()
    path = webhook["clientConfig"]["service"]["path"]
    assert path == (f"/v1/kubernetes/{env['HEADROOM_API_KEY']}/clusters/"
                    f"{env['HEADROOM_MOMENT_CLUSTER_ID']}/admission")
    assert _route_for(path) == "/v1/kubernetes/{api_key}/clusters/{cluster_id}/admission"
    assert webhook["admissionReviewVersions"] == ["v1"]
    assert webhook["sideEffects"] == "NoneOnDryRun"
    [rule] = webhook["rules"]
    assert set(rule["resources"]) == {"deployments", "deployments/scale"}
    assert set(rule["operations"]) == {"CREATE", "UPDATE", "DELETE"}
    server = _one(rendered, "Deployment", "headroom")["spec"]["template"]["spec"]
    env_vars = {e["name"]: e.get("value") for e in server["containers"][0]["env"]}
    assert float(env_vars["HEADROOM_KUBE_WEBHOOK_DEADLINE_SECONDS"]) * 2 <= \
        webhook["timeoutSeconds"]
    assert {n for n in env_vars if n.startswith("HEADROOM_")} <= SETTING_ENV
    assert server["containers"][0]["ports"][0]["containerPort"] == \
        int(env_vars["HEADROOM_PORT"])


def test_rbac_grants_what_the_code_calls(rendered):
    def rules(name: str) -> set[tuple[str, str]]:
        role = _one(rendered, "ClusterRole", name)
        return {(res, verb) for r in role["rules"] for res in r["resources"]
                for verb in r["verbs"]}

    # app/kubernetes/apiserver.py: read_namespaced_pod, create_namespaced_pod_binding.
    assert rules("headroom-extender") == {("pods", "get"), ("pods/binding", "create")}
    # app/kubernetes/watcher.py: list and watch pods.
    assert rules("headroom-watcher") == {("pods", "list"), ("pods", "watch")}
    reader = _one(rendered, "RoleBinding", "headroom-scheduler-authentication-reader")
    assert reader["metadata"]["namespace"] == "kube-system"
