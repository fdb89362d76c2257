"""deploy/prometheus and deploy/grafana: valid for promtool and Grafana, and about metrics the
service really exports."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from tests.conftest import IN_CI, admin_client
from tests.helpers import (
    METRICS_TOKEN,
    assert_problem,
    cluster_spec,
    create_cluster,
    scrape,
)

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "deploy" / "prometheus" / "alerts.yml"
RULE_TESTS = ROOT / "deploy" / "prometheus" / "alerts_test.yml"
DASHBOARD = ROOT / "deploy" / "grafana" / "headroom.json"
SCRAPE = ROOT / "deploy" / "prometheus" / "prometheus.yml"
PENDING_GROUP = "headroom-pending-metrics"
# Series Prometheus writes itself for every target, never in an exporter's /metrics.
SCRAPE_SERIES = {"up"}

SELECTOR = re.compile(r"\b([a-zA-Z_:][\w:]*)\s*\{")  # a metric name followed by its matchers
HEADROOM_NAME = re.compile(r"\bheadroom_\w+")


def _promtool() -> str:
    path = shutil.which("promtool")
    if path is None:
        # .ci/run installs Debian's prometheus package for it; CI must never skip this.
        if IN_CI:
            pytest.fail("promtool is missing; CI must check the alert rules", pytrace=False)
        pytest.skip("promtool is missing (apt-get install prometheus)")
    return path


def _run(*args: str) -> None:
    done = subprocess.run([_promtool(), *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_alert_rules_are_valid():
    _run("check", "rules", str(RULES))


def test_alert_rule_unit_tests_pass():
    _run("test", "rules", str(RULE_TESTS))


def _groups() -> dict[str, list[dict]]:
    return {g["name"]: g["rules"] for g in yaml.safe_load(RULES.read_text())["groups"]}


def _dashboard() -> dict:
    return json.loads(DASHBOARD.read_text())


def _dashboard_queries(dash: dict) -> list[str]:
    exprs = [t["expr"] for p in dash["panels"] for t in p["targets"]]
    exprs += [v["definition"] for v in dash["templating"]["list"] if v["type"] == "query"]
    return exprs


def test_grafana_dashboard_is_well_formed():
    dash = _dashboard()
    assert dash["uid"] and dash["title"] and isinstance(dash["schemaVersion"], int)
    ids = [p["id"] for p in dash["panels"]]
    assert len(ids) == len(set(ids)), ids
    variables = {v["name"] for v in dash["templating"]["list"]}
    for p in dash["panels"]:
        assert p["targets"], p["title"]
        assert p["datasource"]["uid"] == "${datasource}", p["title"]
        for t in p["targets"]:
            for var in re.findall(r"\$(\w+)", t["expr"]):
                assert var in variables or var.startswith("__"), (p["title"], var)


@pytest.fixture
def exported(sqlite_url) -> set[str]:
    """Sample names of /metrics after a few decisions, a refusal and an error have passed, as
    the deployments the rules are for scrape it (with the token: per-cluster series too)."""
    app = create_app(Settings(database_url=sqlite_url, metrics_token=METRICS_TOKEN),
                     configure_logs=False)
    with admin_client(app) as c:
        cid = create_cluster(c, servers=1)["id"]
        for i, job_type in enumerate(["large", "large", "ghost"]):  # placed, rejected, 404
            c.post(f"/v1/clusters/{cid}/arrivals",
                   json={"event_id": f"e{i}", "job_id": f"j{i}", "job_type": job_type})
        c.post(f"/v1/clusters/{cid}/departures", json={"event_id": "d", "job_id": "j0"})
        # One decision of each family that feeds a per-cluster gauge.
        queued = c.post("/v1/clusters", json=cluster_spec(
            policy={"kind": "best_fit_queue", "clock": "client"})).json()["id"]
        ok(c.post(f"/v1/clusters/{queued}/arrivals", json={
            "event_id": "q", "job_id": "q", "job_type": "small", "at": 0.0}))
        moment = ok(c.post("/v1/clusters", json={
            "name": "m", "capacity_cores": 2000, "sla": 0.001,
            "policy": {"kind": "second_moment"}}))["id"]
        ok(c.post(f"/v1/clusters/{moment}/deployments",
                  json={"event_id": "m1", "deployment_id": "d1", "cores": 4, "at": 0.0}))
        ok(c.post(f"/v1/clusters/{moment}/deployments/d1/scale-outs",
                  json={"event_id": "m2", "cores": 2, "at": 1.0}))
        rid = ok(c.post("/v1/reservations", json={
            "name": "r", "resources": [{"name": "cpu", "cost": 1, "epsilon": 0.1}],
            "policy": {"kind": "thor"}}))["id"]
        ok(c.post(f"/v1/reservations/{rid}/observations",
                  json={"event_id": "p0", "period": 0, "demand": {"cpu": 3}}))
        text = scrape(c)
    return {line.split("{")[0].split(" ")[0] for line in text.splitlines()
            if line and not line.startswith("#")}


def ok(r) -> dict:
    assert r.status_code in (200, 201), r.text
    return r.json()


def test_rules_and_dashboard_name_only_exported_metrics(exported):
    assert "headroom_decisions_total" in exported  # the scrape saw decisions
    queries = _dashboard_queries(_dashboard())
    queries += [r["expr"] for name, rules in _groups().items() if name != PENDING_GROUP
                for r in rules]
    named = {n for q in queries for n in SELECTOR.findall(q) + HEADROOM_NAME.findall(q)}
    assert named - SCRAPE_SERIES <= exported, sorted(named - SCRAPE_SERIES - exported)


def test_pending_rules_flag_exactly_the_metrics_not_exported_yet(exported):
    """A rule waiting for a metric says which in `needs_metric`; once the service exports it,
    this fails so that the rule joins the checked group instead of staying flagged."""
    for rule in _groups().get(PENDING_GROUP, []):
        needs = set(rule["annotations"]["needs_metric"].split())
        named = set(HEADROOM_NAME.findall(rule["expr"]))
        assert named - exported <= needs, (rule["alert"], named - exported - needs)
        assert not needs & exported, (f"{rule['alert']}: {sorted(needs & exported)} is exported "
                                      f"now; move the rule into the `headroom` group")


def _samples(text: str) -> dict[tuple[str, frozenset], float]:
    from prometheus_client.parser import text_string_to_metric_families

    return {(s.name, frozenset(s.labels.items())): s.value
            for f in text_string_to_metric_families(text) for s in f.samples}


def test_metrics_count_what_operators_graph(sqlite_url):
    app = create_app(Settings(database_url=sqlite_url, metrics_token=METRICS_TOKEN),
                     configure_logs=False)
    with admin_client(app) as c:
        cid = create_cluster(c, servers=1)["id"]
        events = [{"kind": "arrival", "event_id": f"e{i}", "job_id": f"j{i}", "job_type": "large"}
                  for i in range(3)]
        ok(c.post(f"/v1/clusters/{cid}/events:batch", json={"events": events}))
        rid = ok(c.post("/v1/reservations", json={
            "name": "r", "resources": [{"name": "cpu", "cost": 1, "epsilon": 0.1}],
            "policy": {"kind": "thor"}}))["id"]
        # Period 0 reserves nothing yet (no `initial`): a violation; period 1 may not be.
        ok(c.post(f"/v1/reservations/{rid}/observations",
                  json={"event_id": "p0", "period": 0, "demand": {"cpu": 3}}))
        got = _samples(scrape(c))
    decided = {dict(k[1])["outcome"]: v for k, v in got.items()
               if k[0] == "headroom_decisions_total" and dict(k[1])["event"] == "arrival"}
    assert sum(decided.values()) == 3 and set(decided) == {"placed", "rejected"}
    policies = {dict(k[1])["policy"] for k in got if k[0] == "headroom_decisions_total"}
    assert len(policies) == 2  # the placement policy and thor
    # Placement decisions carry their reason code (an observation has none: empty label).
    assert all(dict(k[1])["reason"] for k in got if k[0] == "headroom_decisions_total"
               and dict(k[1])["event"] == "arrival")
    # One transaction of three events and one of one.
    assert got[("headroom_group_commit_size_count", frozenset())] == 2
    assert got[("headroom_group_commit_size_sum", frozenset())] == 4
    assert got[("headroom_engine_full_loads_total", frozenset())] == 2
    labels = frozenset({"reservation": rid, "resource": "cpu"}.items())
    assert got[("headroom_reservation_violation_ratio", labels)] == 1.0
    assert got[("headroom_reservation_epsilon", labels)] == 0.1


def test_a_server_start_empties_the_multiprocess_dir_of_stale_files(tmp_path):
    from app.metrics import prepare_multiprocess_dir

    (tmp_path / "counter_123.db").write_bytes(b"x")
    (tmp_path / "keep.txt").write_text("not ours")
    prepare_multiprocess_dir(str(tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]


def _per_cluster_names() -> set[str]:
    from app.metrics import Metrics

    on, off = Metrics(per_cluster=True), Metrics()
    return ({m.name for m in on.registry.collect()} - {m.name for m in off.registry.collect()})


def test_without_a_token_metrics_are_open_and_name_no_cluster(sqlite_url):
    """Unset HEADROOM_METRICS_TOKEN: anyone who reaches the port may scrape, so the series
    labelled by (every owner's) cluster ids are neither kept nor exported; aggregates are."""
    app = create_app(Settings(database_url=sqlite_url), configure_logs=False)
    with admin_client(app) as c:
        cid = create_cluster(c, servers=1)["id"]
        queued = create_cluster(c, policy={"kind": "best_fit_queue", "clock": "client"})["id"]
        ok(c.post(f"/v1/clusters/{queued}/arrivals", json={
            "event_id": "q", "job_id": "q", "job_type": "small", "at": 0.0}))
        ok(c.post(f"/v1/clusters/{cid}/arrivals",
                  json={"event_id": "e", "job_id": "j", "job_type": "large"}))
        r = TestClient(app).get("/metrics")  # no key, no token
    assert r.status_code == 200
    assert cid not in r.text and queued not in r.text
    names = {s for s in (line.split("{")[0].split(" ")[0] for line in r.text.splitlines()
                         if line and not line.startswith("#"))}
    assert "headroom_decisions_total" in names
    per_cluster = _per_cluster_names()
    assert "headroom_queue_length" in per_cluster and not per_cluster & {
        n.removesuffix("_total") for n in names}


@pytest.mark.parametrize("header", [None, "Bearer wrong-token-wrong-token", "Basic dXNlcjpw",
                                    f"Bearer {METRICS_TOKEN}x", f"bearer{METRICS_TOKEN}"])
def test_with_a_token_metrics_need_it_and_carry_the_clusters(sqlite_url, header):
    app = create_app(Settings(database_url=sqlite_url, metrics_token=METRICS_TOKEN),
                     configure_logs=False)
    with admin_client(app) as c:
        queued = create_cluster(c, policy={"kind": "best_fit_queue", "clock": "client"})["id"]
        ok(c.post(f"/v1/clusters/{queued}/arrivals", json={
            "event_id": "q", "job_id": "q", "job_type": "small", "at": 0.0}))
        refused = TestClient(app).get(
            "/metrics", headers={"Authorization": header} if header else {})
        body = assert_problem(refused, 401, "unauthorized")
        assert refused.headers["www-authenticate"] == 'Bearer realm="headroom-metrics"'
        assert METRICS_TOKEN not in refused.text and queued not in refused.text, body
        assert_problem(c.get("/metrics"), 401)  # an API key, even an admin's, is no token
        got = _samples(scrape(TestClient(app)))
    assert got[("headroom_queue_length", frozenset({("cluster", queued)}))] == 0.0


def test_the_token_is_never_shown_by_the_settings():
    settings = Settings(database_url="sqlite://", metrics_token=METRICS_TOKEN)
    assert METRICS_TOKEN not in repr(settings) and METRICS_TOKEN not in str(settings)
    assert Settings(database_url="sqlite://", metrics_token="").metrics_token is None


def test_the_prometheus_scrape_config_is_valid_and_sends_the_token():
    config = yaml.safe_load(SCRAPE.read_text())
    [job] = [j for j in config["scrape_configs"] if j["job_name"] == "headroom"]
    assert job["authorization"]["credentials_file"], job  # Bearer is the default type
    assert job["metrics_path"] == "/metrics"
    assert "alerts.yml" in config["rule_files"]
    _run("check", "config", "--syntax-only", str(SCRAPE))
