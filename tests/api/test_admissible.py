"""Contract tests: what a moment declaration can admit, said with numbers (issue #56), and the
dry run of a declaration.

The creation answer says what the empty cluster admits and ``/state`` what the cluster admits
as it is now; both agree with what the deployments route's own dry runs answer. A dry run of
a declaration (``POST /v1/clusters?dry_run=true``) answers the cluster creation would make,
for every family, refuses what creation refuses, and writes nothing, on SQLite and Postgres."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import MetaData, select

from app.service.auth import create_key
from tests.helpers import assert_problem, cluster_spec, state_model

# Declarations that admit much, little and (while calibrated, or at a tight threshold
# declared by an expert) nothing: the answers must agree with dry runs whatever the table says.
MOMENTS = [
    {"capacity_cores": 20_000, "sla": 1e-4, "policy": {"kind": "second_moment"}},
    {"capacity_cores": 2000, "sla": 1e-4, "policy": {"kind": "first_moment"}},
    {"capacity_cores": 1000, "sla": 1e-3, "policy": {"kind": "second_moment"}},
    {"capacity_cores": 500, "sla": 1e-4, "policy": {"kind": "threshold"}},
    {"capacity_cores": 500, "sla": 1e-4, "policy": {"kind": "second_moment", "threshold": 0.3}},
]
CREATED_ONLY = {"id", "version", "generation", "created_at", "updated_at"}


def moment(i: int, name: str | None = None) -> dict:
    return {"name": name or f"m{i}", **MOMENTS[i]}


def dry_deploy(client, cid: str, cores: int, at: float = 0.0) -> dict:
    r = client.post(f"/v1/clusters/{cid}/deployments",
                    json={"deployment_id": "probe", "cores": cores, "at": at, "dry_run": True})
    assert r.status_code == 200, r.text
    return r.json()


def agrees_with_dry_runs(client, cid: str, admissible: dict, at: float = 0.0) -> None:
    largest = admissible["largest_first_deployment"]
    if largest:
        assert dry_deploy(client, cid, largest, at)["decision"] == "admitted"
    assert dry_deploy(client, cid, largest + 1, at)["decision"] == "rejected"
    typical = admissible["typical_first_deployment"]
    answer = dry_deploy(client, cid, typical["cores"], at)
    assert (answer["decision"], answer["reason"], answer["details"]["overflow_bound"]) == (
        typical["decision"], typical["reason"], typical["overflow_bound"])
    assert admissible["admits_typical"] == (typical["decision"] == "admitted")


@pytest.mark.parametrize("i", range(len(MOMENTS)))
def test_creation_and_state_say_what_the_empty_cluster_admits(client, i):
    r = client.post("/v1/clusters", json=moment(i))
    assert r.status_code == 201, r.text
    created = r.json()
    admissible = created["admissible"]
    assert admissible["summary"].startswith("admits ")
    state = client.get(f"/v1/clusters/{created['id']}/state").json()
    state_model().validate_python(state)
    assert state["admissible"] == admissible
    agrees_with_dry_runs(client, created["id"], admissible)
    # GET reads no engine: it leaves the figure to the creation answer and /state.
    assert client.get(f"/v1/clusters/{created['id']}").json()["admissible"] is None


def test_a_declaration_too_tight_for_a_typical_deployment_says_by_how_much(client):
    """An expert's ρ = 0.3 at 500 cores takes a 1-core deployment, not a typical one, and the
    answer gives the bound a typical one would have (the rule's, not a probability)."""
    admissible = client.post("/v1/clusters", json=moment(4)).json()["admissible"]
    typical = admissible["typical_first_deployment"]
    assert admissible["largest_first_deployment"] == 1 and not admissible["admits_typical"]
    assert typical["reason"] == "overflow_bound_exceeded" and typical["overflow_bound"] > 0.3
    assert admissible["summary"] == (
        "admits first deployments of up to 1 core; a typical one (6 cores) is rejected: "
        f"Cantelli's bound {typical['overflow_bound']:.3g} exceeds ρ = 0.3")


def test_state_says_what_the_cluster_admits_as_it_is_now(client):
    cid = client.post("/v1/clusters", json=moment(0)).json()["id"]
    empty = client.get(f"/v1/clusters/{cid}/state").json()["admissible"]
    for i in range(5):
        r = client.post(f"/v1/clusters/{cid}/deployments",
                        json={"event_id": f"a{i}", "deployment_id": f"d{i}", "cores": 400,
                              "at": float(i)})
        assert r.json()["decision"] == "admitted", r.text
    r = client.post(f"/v1/clusters/{cid}/deployments/d0/scale-outs",
                    json={"event_id": "s0", "cores": 50, "at": 4.5})
    assert r.status_code == 200, r.text
    state = client.get(f"/v1/clusters/{cid}/state").json()
    now = state["admissible"]
    assert now["largest_first_deployment"] < empty["largest_first_deployment"]
    agrees_with_dry_runs(client, cid, now, at=state["now"])
    assert client.get(f"/v1/clusters/{cid}/state").json()["version"] == state["version"]


def test_other_families_leave_it_null(client):
    r = client.post("/v1/clusters", json=cluster_spec(policy={"kind": "dra"}))
    assert r.status_code == 201, r.text
    assert r.json()["admissible"] is None


def rows(app) -> dict[str, list]:
    """Every row of every table, in a stable order."""
    db = app.state.ctx.db
    meta = MetaData()
    meta.reflect(bind=db)
    with db.connect() as conn:
        return {name: sorted(map(repr, conn.execute(select(table)).all()))
                for name, table in meta.tables.items()}


@pytest.mark.parametrize("body", [moment(0, "dry"), moment(2, "dry"),
                                  cluster_spec("dry", policy={"kind": "dra"}),
                                  cluster_spec("dry", policy={"kind": "rms"})],
                         ids=["moments-table", "moments-calibrating", "dra", "rms"])
def test_a_dry_run_answers_the_would_be_cluster_and_writes_nothing(app, client, body):
    before = rows(app)
    r = client.post("/v1/clusters?dry_run=true", json=body,
                    headers={"Idempotency-Key": "dry-1"})
    assert r.status_code == 200, r.text
    preview = r.json()
    assert not CREATED_ONLY & set(preview) and "Location" not in r.headers
    assert rows(app) == before  # no cluster, no idempotency record, no calibration job
    # The key was not recorded: creating with it now is a first creation, not a replay.
    r = client.post("/v1/clusters", json=body, headers={"Idempotency-Key": "dry-1"})
    assert r.status_code == 201 and "Idempotent-Replayed" not in r.headers
    created = r.json()
    assert {k: v for k, v in created.items() if k not in CREATED_ONLY} == preview
    if body.get("capacity_cores"):
        assert preview["admissible"]["summary"].startswith("admits ")
    else:
        assert preview["admissible"] is None


@pytest.mark.parametrize("body", [
    {**moment(0, "bad"), "capacity_cores": 0},
    {**moment(0, "bad"), "policy": {"kind": "second_moment", "overflow_sd": 1.0,
                                    "threshold": 0.1, "closed_loop": "yes"}},
    {**moment(1, "bad"), "policy": {"kind": "first_moment", "overflow_sd": 1.0}},
    cluster_spec("bad", job_types=[{"name": "huge", "demand": {"cpu": 99, "memory": 1}}]),
    {"name": "bad", "policy": {"kind": "no_such_kind"}},
], ids=["capacity", "types", "declare-step", "spec-errors", "kind"])
def test_a_dry_run_refuses_what_creation_refuses(app, client, body):
    before = rows(app)
    dry = client.post("/v1/clusters?dry_run=true", json=body)
    real = client.post("/v1/clusters", json=body)
    assert dry.status_code == real.status_code == 422, (dry.text, real.text)
    assert_problem(dry, 422, real.json()["code"])
    assert dry.json()["errors"] == real.json()["errors"]
    assert rows(app) == before


@pytest.mark.parametrize("query", ["dry_run=1", "dry_run=True", "dry_run=yes", "dry_run=",
                                   "dry_run=true&dry_run=false"])
def test_dry_run_is_a_strict_boolean(app, client, query):
    before = rows(app)
    r = client.post(f"/v1/clusters?{query}", json=moment(0, "strict"))
    body = assert_problem(r, 422, "validation_error")
    assert [e["field"] for e in body["errors"]] == ["dry_run"]
    assert rows(app) == before


def test_a_dry_run_needs_the_scope_creation_needs(app, client):
    reader = create_key(app.state.ctx, "default", ["read"])["key"]
    with TestClient(app, headers={"Authorization": f"Bearer {reader}"}) as c:
        assert_problem(c.post("/v1/clusters?dry_run=true", json=moment(0)), 403)
    assert client.post("/v1/clusters?dry_run=false", json=moment(0)).status_code == 201
