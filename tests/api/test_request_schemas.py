"""Every request field has a type the OpenAPI document states, and no type is coerced.

- A reservation policy's ``params`` has one strict model per kind (quantile_tracking, thor,
  ftl, percentile): a bad value is a 422 naming the field as the client wrote it, and every
  value at the documented bounds gives a stream that answers finite numbers.
- A moment derivation's ``anchors`` and ``scale`` are typed as the service and
  ``headroom calibrate moment --json`` write them.
- Declarations stored before these models (free-form values they would now refuse) still
  load and decide: stored specs are built as they are, never re-validated.
- Walking every write route's body in the OpenAPI document: a bool, number or string field
  given a value of another type ("yes" or 1 for true, "5" for 5) is a 422.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import update

from app.main import create_app
from app.policies.thor.family import ReservationAdapter
from app.store.models import Cluster
from tests.api.test_fuzz_extremes import Schemas
from tests.conftest import admin_client
from tests.helpers import assert_problem, cluster_spec

RESOURCES = [{"name": "cpu", "cost": 1.0, "epsilon": 0.05}]
DEMANDS = [0.0, 1e12, 0.0, 5e-324, 3.0, 1e12]


def _stream(c, kind: str, params: dict[str, Any], name: str = "s") -> Any:
    return c.post("/v1/reservations", json={"name": name, "resources": RESOURCES,
                                            "policy": {"kind": kind, "params": params}})


# ---- reservation params ---------------------------------------------------------------------

def _bounds(doc: Schemas, ref: str, at: tuple = ()) -> Iterator[tuple[tuple, float]]:
    """(path, value) for each numeric field's documented bounds in a params model, nested
    models included (a cap's mean and sigma under ``caps.cpu``)."""
    for name, prop in doc.resolve({"$ref": ref})["properties"].items():
        options = [doc.resolve(o) for o in prop.get("anyOf", [prop])]
        for o in options:
            if o.get("type") == "number":
                for key in ("minimum", "maximum"):
                    if key in o:
                        yield (*at, name), o[key]
                for key, toward in (("exclusiveMinimum", math.inf), ("exclusiveMaximum", 0.0)):
                    if key in o:
                        yield (*at, name), math.nextafter(o[key], toward)
            elif "properties" in o:
                yield from _bounds(doc, f"#/components/schemas/{o['title']}", (*at, name))
            elif "patternProperties" in o:
                (inner,) = o["patternProperties"].values()
                yield from _bounds(doc, inner["$ref"], (*at, name, "cpu"))


PARAMS_MODELS = {"quantile_tracking": "QuantileTrackingParams", "thor": "ThorPolicyParams",
                 "percentile": "PercentilePolicyParams"}


def _nested(path: tuple, value: Any) -> dict[str, Any]:
    out: Any = value
    for step in reversed(path):
        out = {step: out}
    return out


@pytest.mark.parametrize("kind", sorted(PARAMS_MODELS))
def test_every_documented_bound_gives_a_stream_that_answers(app, client, kind):
    """Each numeric parameter at each documented bound (just inside an exclusive one),
    alone: the stream is declared (or refused by a cross-field rule with a 422 naming a
    parameter) and answers extreme demand with finite numbers, never a 500."""
    doc = Schemas(app.openapi())
    bounds = list(_bounds(doc, f"#/components/schemas/{PARAMS_MODELS[kind]}"))
    assert len(bounds) >= 8, bounds
    for i, (path, value) in enumerate(bounds):
        params = _nested(path, value)
        if path == ("caps", "cpu", "mean"):
            params["caps"]["cpu"]["sigma"] = 1.0
        elif path == ("caps", "cpu", "sigma"):
            params["caps"]["cpu"]["mean"] = 1.0
        elif path == ("V",) and value == 0:
            params["alpha"] = 1.0  # V = 0 needs an alpha (its own test below)
        r = _stream(client, kind, params, f"s{i}")
        if r.status_code == 422:
            fields = [e["field"] for e in r.json()["errors"]]
            assert all(f.startswith("policy.params") for f in fields), (params, r.text)
            continue
        assert r.status_code == 201, (params, r.text)
        rid = r.json()["id"]
        assert r.json()["policy"]["params"] == params  # stored as written
        for t, demand in enumerate(DEMANDS):
            a = client.post(f"/v1/reservations/{rid}/observations",
                            json={"event_id": f"p{t}", "period": t, "demand": {"cpu": demand}})
            assert a.status_code == 200, (params, demand, a.text)


@pytest.mark.parametrize("kind, params, field", [
    ("quantile_tracking", {"step": "1"}, "policy.params.step"),
    ("quantile_tracking", {"step": True}, "policy.params.step"),
    ("quantile_tracking", {"initial_offset": 101}, "policy.params.initial_offset"),
    ("quantile_tracking", {"estimator": {"tail_factor": 0}},
     "policy.params.estimator.tail_factor"),
    ("quantile_tracking", {"estimator": {"sigma_floor_abs": 1e-10}},
     "policy.params.estimator.sigma_floor_abs"),
    ("quantile_tracking", {"estimator": {"knob": 1}}, "policy.params.estimator.knob"),
    ("thor", {"normalize": "yes"}, "policy.params.normalize"),
    ("thor", {"normalize": 1}, "policy.params.normalize"),
    ("thor", {"tracking_gain": 2.5}, "policy.params.tracking_gain"),
    ("thor", {"alpha": 5e-324}, "policy.params.alpha"),
    ("thor", {"queue_target": 5e-324}, "policy.params.queue_target"),
    ("thor", {"V": 0}, "policy.params"),
    ("thor", {"caps": {"cpu": {"mean": 1}}}, "policy.params.caps.cpu.sigma"),
    ("thor", {"caps": {"cpu": {"mean": 1, "sigma": 5e-324}}}, "policy.params.caps.cpu.sigma"),
    ("thor", {"caps": {"gpu": {"mean": 1, "sigma": 1}}}, "policy.params.caps.gpu"),
    ("thor", {"caps": "0"}, "policy.params.caps"),
    ("thor", {"normalize": False}, "policy.params.normalize"),  # needs V and alpha
    ("thor", {"step": 1}, "policy.params.step"),  # quantile tracking's, not THOR's
    ("ftl", {"step": 1}, "policy.params.step"),
    ("percentile", {"percentile": 0}, "policy.params.percentile"),
    ("percentile", {"first_bucket": 5e-324}, "policy.params.first_bucket"),
    ("percentile", {"max_value": 0.001}, "policy.params.max_value"),  # below first_bucket
    ("percentile", {"bucket_ratio": 1.00001, "max_value": 1e6},
     "policy.params.max_value"),  # 690,000 buckets
])
def test_bad_params_are_422_naming_the_field(client, kind, params, field):
    body = assert_problem(_stream(client, kind, params), 422, "validation_error")
    assert field in [e["field"] for e in body["errors"]], body
    assert client.get("/v1/reservations").json()["items"] == []


@pytest.mark.parametrize("kind", [{}, [], 1, None, True, "magic", "THOR"])
def test_a_kind_that_names_no_policy_is_422(client, kind):
    """A kind that is no policy's, whatever its JSON type (an object cannot even be looked
    up), goes to the default's model, whose kind refuses it."""
    body = assert_problem(client.post("/v1/reservations", json={
        "name": "s", "resources": RESOURCES, "policy": {"kind": kind}}), 422)
    assert "policy.kind" in [e["field"] for e in body["errors"]], body


def test_each_kind_documents_its_own_params(app):
    """The document states each kind's parameters with their defaults and bounds, and the
    kind's model refuses the others' parameters."""
    c = app.openapi()["components"]["schemas"]
    thor = c["ThorPolicyParams"]["properties"]
    assert thor["queue_target"]["default"] == 5.0 and thor["tracking_gain"]["maximum"] == 2
    assert c["QuantileTrackingParams"]["properties"]["step"]["default"] == 1.0
    assert c["TrackingEstimatorParams"]["properties"]["tail_factor"]["default"] == 1.0
    assert c["CapEstimatorParams"]["properties"]["tail_factor"]["default"] == 1.6
    assert c["PercentilePolicyParams"]["properties"]["half_life"]["default"] == 288.0
    assert c["NoParams"].get("properties", {}) == {}
    for name in ("ThorPolicyParams", "QuantileTrackingParams", "PercentilePolicyParams",
                 "NoParams", "CapEstimatorParams", "GaussianCap"):
        assert c[name]["additionalProperties"] is False, name


def test_defaults_are_the_engines_and_nothing_unwritten_is_stored(client):
    """A stream declared without parameters is stored with none (the engine's defaults
    apply, as before these models), and quantile tracking keeps its own tail factor (1, not
    THOR's 1.6) when only another estimator field is given."""
    r = _stream(client, "quantile_tracking", {"estimator": {"level_weight": 0.3}})
    assert r.status_code == 201, r.text
    assert r.json()["policy"] == {"kind": "quantile_tracking",
                                  "params": {"estimator": {"level_weight": 0.3}}}
    stored = client.get(f"/v1/reservations/{r.json()['id']}").json()
    engine = ReservationAdapter.build(stored).engine
    assert engine.params.estimator.tail_factor == 1.0
    assert engine.params.estimator.level_weight == 0.3
    bare = client.post("/v1/reservations", json={"name": "t", "resources": RESOURCES,
                                                 "policy": {"kind": "thor"}})
    assert bare.json()["policy"] == {"kind": "thor", "params": {}}


# ---- moment derivations ---------------------------------------------------------------------

def _moment(c, derivation: dict[str, Any], name: str = "m", **policy: Any) -> Any:
    return c.post("/v1/clusters", json={
        "name": name, "capacity_cores": 2000, "sla": 1e-4,
        "policy": {"kind": "second_moment", "threshold": 0.3, "derivation": derivation,
                   **policy}})


CALIBRATED = {"source": "calibration", "bounds": [0.003, 0.3], "sla": 1e-4,
              "scale": {"capacity": 2000, "steps": 600}}


def test_a_calibrations_output_is_declared_as_printed(client, monkeypatch):
    """`headroom calibrate moment --json` prints a policy (app/sim/moments/derive.py) that
    the typed derivation takes as it is, and stores as it was sent."""
    from app.sim.moments import derive as derive_module

    def calibrate(policy, sla, capacity, years, arrival_rate, observations, runs, iterations,
                  seed, steps, **kw):  # noqa: ANN001, ANN003, ANN202
        scale = {"capacity": capacity, "years": years, "arrival_rate": arrival_rate,
                 "observations": observations, "steps": steps}
        if kw.get("arrival_size_evidence"):
            scale["arrival_size_evidence"] = True
        if kw.get("population_prior") is not None:
            scale["population_prior"] = kw["population_prior"]
        # The search's answer 0.5 failed on the held-out lives and was halved once.
        steps = [{"threshold": 0.5, "failure_rate": 1e-3, "utilization": 0.7, "confidence": 0.2,
                  "meets_sla": False},
                 {"threshold": 0.25, "failure_rate": 0.0, "utilization": 0.6, "confidence": 0.97,
                  "meets_sla": True}]
        validation = {"met": True, "steps": steps, "lives": 6, "seeds": [500000, 500005],
                      "target": 0.95, "search_threshold": 0.5}
        return {"threshold": 0.25, "failure_rate": 0.0, "utilization": 0.6,
                "confidence": 0.97, "scale": scale, "validation": validation}

    monkeypatch.setattr(derive_module, "calibrate", calibrate)
    prior = {"lambda": [2.0, 4.0], "mu": [1.0, 100.0], "sigma": [1.0, 1.0]}
    out = derive_module.derive("second_moment", 1e-4, 2000, runs=6, between=(0.1, 0.4),
                               population_prior=prior)
    r = client.post("/v1/clusters", json={"name": "cal", "capacity_cores": 2000, "sla": 1e-4,
                                          "policy": out["policy"]})
    assert r.status_code == 201, r.text
    assert r.json()["policy"]["derivation"] == out["policy"]["derivation"]


@pytest.mark.parametrize("change, field", [
    ({"scale": {"capacity": 2000, "arrival_size_evidence": "yes"}},
     "policy.derivation.scale.arrival_size_evidence"),
    ({"scale": {"capacity": "2000"}}, "policy.derivation.scale.capacity"),
    ({"scale": {"capacity": 2000, "steps": 600.0}}, "policy.derivation.scale.steps"),
    ({"scale": {"capacity": 2000, "seed": -1}}, "policy.derivation.scale.seed"),
    ({"scale": {"capacity": 2000, "between": [0.1]}}, "policy.derivation.scale.between"),
    ({"scale": {"capacity": 2000, "knob": 1}}, "policy.derivation.scale.knob"),
    ({"anchors": [{"capacity": 2000, "value": 0.3, "runs": "6"}]},
     "policy.derivation.anchors[0].runs"),
    ({"anchors": [{"capacity": 2000, "value": 0.3}]}, "policy.derivation.anchors[0].runs"),
    ({"anchors": [{"capacity": 2000, "value": 0.3, "runs": 6, "confidence": 1.5}]},
     "policy.derivation.anchors[0].confidence"),
    ({"anchors": [{"capacity": 2000, "value": 0.3, "runs": 6, "seed": 1}]},
     "policy.derivation.anchors[0].seed"),
    ({"anchors": [[2000, 0.3, 6]]}, "policy.derivation.anchors[0]"),
    ({"by_growth": [{"lambda_factor": 2, "threshold": 0.4, "anchors": [{"capacity": 1}]}]},
     "policy.derivation.by_growth[0].anchors[0].value"),
])
def test_anchors_and_scale_are_typed(client, change, field):
    body = assert_problem(_moment(client, {**CALIBRATED, **change}), 422, "validation_error")
    assert field in [e["field"] for e in body["errors"]], body
    assert client.get("/v1/clusters").json()["items"] == []


def test_a_tables_derivation_declares_again_as_shown(client):
    """A cluster's own table derivation, anchors and growth steps included, is a valid
    declaration of the same cluster."""
    first = client.post("/v1/clusters", json={"name": "a", "capacity_cores": 2000,
                                              "policy": {"kind": "second_moment"}}).json()
    policy = first["policy"]
    assert policy["derivation"]["anchors"] and policy["derivation"]["by_growth"]
    again = client.post("/v1/clusters", json={"name": "b", "capacity_cores": 2000,
                                              "policy": policy})
    assert again.status_code == 201, again.text
    assert again.json()["policy"]["derivation"] == policy["derivation"]


# ---- declarations stored before the models --------------------------------------------------

def test_declarations_stored_before_the_models_still_load_and_decide(app, client):
    """Stored specs are built as they are (app/service/engines.py reads clusters.spec into the
    engine), never through the request models: values these models refuse but the engines
    take (a free-form scale key, an anchor without runs, a THOR gain below the documented
    minimum) keep working after a restart."""
    moment = client.post("/v1/clusters", json={
        "name": "m", "capacity_cores": 2000, "sla": 1e-4,
        "policy": {"kind": "second_moment", "threshold": 0.3, "derivation": CALIBRATED}}).json()
    stream = _stream(client, "thor", {"tracking_gain": 0.5}).json()
    with app.state.ctx.sessions() as s, s.begin():
        for cid, edit in ((moment["id"], _old_moment), (stream["id"], _old_stream)):
            row = s.get(Cluster, cid)
            s.execute(update(Cluster).where(Cluster.id == cid).values(spec=edit(row.spec)))
    fresh = create_app(app.state.ctx.settings, configure_logs=False)
    with admin_client(fresh) as c:
        m = c.get(f"/v1/clusters/{moment['id']}").json()
        assert m["policy"]["derivation"]["scale"]["importance"] is True
        r = c.post(f"/v1/clusters/{moment['id']}/deployments",
                   json={"event_id": "d", "deployment_id": "d", "cores": 4, "at": 0})
        assert r.status_code == 200 and r.json()["decision"] == "admitted", r.text
        assert c.get(f"/v1/clusters/{moment['id']}/state").status_code == 200
        for t in range(3):
            r = c.post(f"/v1/reservations/{stream['id']}/observations",
                       json={"event_id": f"p{t}", "period": t, "demand": {"cpu": 2.0 + t}})
            assert r.status_code == 200, r.text
        assert c.get(f"/v1/reservations/{stream['id']}").json()["policy"]["params"] == \
            {"tracking_gain": 1e-7, "estimator": None}


def _old_moment(spec: dict[str, Any]) -> dict[str, Any]:
    spec = copy.deepcopy(spec)
    derivation = spec["policy"]["derivation"]
    derivation["scale"]["importance"] = True
    derivation["anchors"] = [{"capacity": 2000, "value": 0.3}]
    return spec


def _old_stream(spec: dict[str, Any]) -> dict[str, Any]:
    spec = copy.deepcopy(spec)
    spec["policy"]["params"] = {"tracking_gain": 1e-7, "estimator": None}
    return spec


# ---- no coercion anywhere -------------------------------------------------------------------

WRONG = {"boolean": ["yes", "true", 1, 0], "number": ["5", "1e3", True],
         "integer": ["5", 5.5, True], "string": [5, True, ["x"]]}


def _typed_leaves(doc: Schemas, schema: dict[str, Any], value: Any, path: tuple = ()
                  ) -> Iterator[tuple[tuple, str]]:
    """(path, JSON type) of every bool, number, integer and string field in ``value``."""
    s = doc.branch(schema, value)
    kind = s.get("type")
    if kind in WRONG and "enum" not in s and "const" not in s:
        yield path, kind
    elif kind == "object" and isinstance(value, dict):
        for name, item in value.items():
            sub = s.get("properties", {}).get(name)
            if sub is None:
                extra = s.get("additionalProperties") or next(
                    iter(s.get("patternProperties", {}).values()), None)
                sub = extra if isinstance(extra, dict) else None
            if sub is not None and name != "kind":
                yield from _typed_leaves(doc, sub, item, (*path, name))
    elif kind == "array" and isinstance(value, list) and "items" in s:
        for i, item in enumerate(value[:1]):
            yield from _typed_leaves(doc, s["items"], item, (*path, i))


def _set(body: Any, path: tuple, value: Any) -> Any:
    out = copy.deepcopy(body)
    node = out
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value
    return out


def _write_routes(ids: dict[str, str]) -> list[tuple[str, str, str, dict[str, Any]]]:
    """(method, URL, document path, a valid body naming every optional field it can)."""
    p, q, m, s = ids["placement"], ids["queue"], ids["moment"], ids["stream"]
    gamma = {"lambda": [1.0, 2.0], "mu": [1.0, 1.0], "sigma": [2.0, 1.0]}
    return [
        ("POST", "/v1/clusters", "/v1/clusters", cluster_spec(name="x", policy={
            "kind": "dra", "reservation": {"b": 0.5}, "migrations": "on", "preemption": True,
            "gpa_refresh": {"band": 0.5},
            "migration_budget": {"rate": 1.0, "burst": 2.0, "clock": "client"}}, seed=3)),
        ("POST", "/v1/clusters", "/v1/clusters", cluster_spec(name="x", policy={
            "kind": "rms", "clock": "client", "routing": "jsq", "adaptive": True,
            "replace_dummies": True, "clock_rate": {"small": 1.0, "large": 2.0}, "mu": 1.0,
            "epsilon": 0.5, "b": 0.1, "time_unit_seconds": 1.0, "finished_history": 10})),
        ("POST", "/v1/clusters", "/v1/clusters", cluster_spec(name="x", policy={
            "kind": "power_of_d", "d": 2, "only_feasible": True})),
        ("POST", "/v1/clusters", "/v1/clusters", {
            "name": "x", "capacity_cores": 2000, "sla": 1e-4, "policy": {
                "kind": "second_moment", "threshold": 0.3, "marginal": True,
                "closed_loop": True, "learn_prior": True, "cautious_growth": 1.0,
                "arrival_size_evidence": False, "overflow_sd": 0.5,
                "population_prior": gamma, "derivation": {
                    **CALIBRATED, "runs": 6, "confidence": 0.9, "failure_rate": 0.0,
                    "utilization": 0.5,
                    "scale": {"capacity": 2000, "steps": 600, "years": 3.0, "seed": 1,
                              "arrival_rate": 0.1, "observations": 0, "iterations": 8,
                              "between": [0.1, 0.4], "arrival_size_evidence": False,
                              "population_prior": gamma},
                    "anchors": [{"capacity": 2000, "value": 0.3, "runs": 6,
                                 "confidence": 0.9, "failure_rate": 0.0,
                                 "ratio_to_table": 1.0}]}}}),
        ("POST", "/v1/reservations", "/v1/reservations", {
            "name": "x", "initial": {"cpu": 1.0}, "resources": RESOURCES,
            "policy": {"kind": "thor", "params": {
                "V": 1.0, "alpha": 1.0, "queue_target": 5.0, "tracking_gain": 0.5,
                "normalize": True, "initial_queue": 1.0,
                "caps": {"cpu": {"mean": 1.0, "sigma": 1.0}},
                "estimator": {"level_weight": 0.5, "spread_weight": 0.1, "tail_factor": 1.5,
                              "sigma_floor": 0.01, "sigma_floor_abs": 1e-3,
                              "initial_spread": 0.1}}}}),
        ("POST", "/v1/reservations", "/v1/reservations", {
            "name": "x", "resources": RESOURCES, "policy": {"kind": "quantile_tracking",
                                                            "params": {"step": 1.0,
                                                                       "initial_offset": 0.5}}}),
        ("POST", "/v1/reservations", "/v1/reservations", {
            "name": "x", "resources": RESOURCES, "policy": {"kind": "percentile", "params": {
                "percentile": 0.9, "margin": 0.1, "half_life": 10.0, "first_bucket": 0.01,
                "bucket_ratio": 1.05, "max_value": 100.0}}}),
        ("POST", "/v1/keys", "/v1/keys", {"scopes": ["read"], "description": "x"}),
        ("PATCH", f"/v1/clusters/{p}", "/v1/clusters/{cluster_id}", {"name": "y"}),
        ("POST", f"/v1/clusters/{p}/arrivals", "/v1/clusters/{cluster_id}/arrivals",
         {"event_id": "w", "job_id": "w", "job_type": "small", "dry_run": False}),
        ("POST", f"/v1/clusters/{q}/arrivals", "/v1/clusters/{cluster_id}/arrivals",
         {"event_id": "w", "job_id": "w", "job_type": "small", "at": 9.0}),
        ("POST", f"/v1/clusters/{q}/departures", "/v1/clusters/{cluster_id}/departures",
         {"event_id": "w", "job_id": "w", "at": 9.0}),
        ("POST", f"/v1/clusters/{q}/events:batch", "/v1/clusters/{cluster_id}/events:batch",
         {"events": [{"kind": "arrival", "event_id": "w", "job_id": "w", "job_type": "small",
                      "at": 9.0}]}),
        ("POST", f"/v1/clusters/{q}/tick", "/v1/clusters/{cluster_id}/tick", {"until": 9.0}),
        ("POST", f"/v1/clusters/{m}/deployments", "/v1/clusters/{cluster_id}/deployments",
         {"event_id": "w", "deployment_id": "w", "cores": 1, "at": 1.0, "category": "web",
          "dry_run": False, "prior": {"gamma": gamma, "observations": {
              "core_deaths": 1.0, "core_time": 1.0, "shutdowns": 0.0, "age_time": 1.0,
              "scaleouts": 1.0, "scaleout_time": 1.0, "extra_cores": 1.0}}}),
        ("POST", f"/v1/clusters/{m}/deployments/d/scale-outs",
         "/v1/clusters/{cluster_id}/deployments/{deployment_id}/scale-outs",
         {"event_id": "w", "cores": 1, "at": 1.0}),
        ("POST", f"/v1/reservations/{s}/observations",
         "/v1/reservations/{reservation_id}/observations",
         {"event_id": "w", "period": 0, "demand": {"cpu": 1.0}}),
    ]


def test_no_request_field_takes_a_value_of_another_type(app, client):
    """Every bool, number and string field of every write route's body, named in the base
    bodies below (optional ones included), refuses the other JSON types: nothing is coerced."""
    p = client.post("/v1/clusters", json=cluster_spec(name="p")).json()["id"]
    q = client.post("/v1/clusters", json=cluster_spec(
        name="q", policy={"kind": "best_fit_queue", "clock": "client"})).json()["id"]
    m = client.post("/v1/clusters", json={"name": "m", "capacity_cores": 100,
                                          "policy": {"kind": "threshold"}}).json()["id"]
    s = _stream(client, "thor", {}).json()["id"]
    doc = Schemas(app.openapi())
    checked, accepted = 0, []
    for method, url, template, body in _write_routes(
            {"placement": p, "queue": q, "moment": m, "stream": s}):
        op = doc.doc["paths"][template][method.lower()]
        schema = op["requestBody"]["content"]["application/json"]["schema"]
        for path, kind in _typed_leaves(doc, schema, body):
            for wrong in WRONG[kind]:
                r = client.request(method, url, json=_set(body, path, wrong))
                checked += 1
                if r.status_code != 422:
                    accepted.append(f"{method} {url} {path}={wrong!r}: {r.status_code}")
    assert not accepted, "\n".join(accepted)
    assert checked > 400, checked
