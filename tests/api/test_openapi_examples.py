"""Swagger's "Try it out" sends each request body's example as it is: every operation with a
body has an example, it is valid against the body's own model, and sent in order to a live
service none of them is refused (Swagger used to invent values such as `at: 1e12`)."""

from __future__ import annotations

import json
from typing import Any

from fastapi.routing import APIRoute, iter_route_contexts
from pydantic import TypeAdapter

from app.cli import openapi_document
from app.config import Settings
from app.main import create_app


def _examples(doc: dict[str, Any], schema: dict[str, Any]) -> list[Any]:
    """The examples Swagger offers for a body schema: its own, or each oneOf member's."""
    if "$ref" in schema:
        schema = doc["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    if "examples" in schema:
        return list(schema["examples"])
    return [e for member in schema.get("oneOf", []) for e in _examples(doc, member)]


def _body_examples() -> dict[str, list[Any]]:
    doc = openapi_document()
    out = {}
    for path in doc["paths"].values():
        for op in path.values():
            body = op.get("requestBody")
            if body is not None:
                out[op["operationId"]] = _examples(
                    doc, body["content"]["application/json"]["schema"])
    return out


EXAMPLES = _body_examples()


def test_every_request_body_has_an_example_its_model_accepts():
    app = create_app(Settings(database_url="sqlite://"), configure_logs=False)
    routes = [c.route for c in iter_route_contexts(app.routes) if isinstance(c.route, APIRoute)]
    bodies = {r.operation_id: r.body_field for r in routes if r.body_field is not None}
    assert set(bodies) == set(EXAMPLES)
    for op, examples in EXAMPLES.items():
        assert examples, f"{op}: no request example; Swagger would invent one"
        adapter = TypeAdapter(bodies[op].field_info.annotation)
        for example in examples:
            adapter.validate_json(json.dumps(example))  # as it arrives over HTTP


def _first(op: str) -> dict[str, Any]:
    return EXAMPLES[op][0]


def _create(client, body: dict[str, Any]) -> str:
    r = client.post("/v1/clusters", json=body)
    assert r.status_code == 201, r.text
    return r.json()["id"]


def _send(client, method: str, url: str, op: str) -> dict[str, Any]:
    r = client.request(method, url, json=_first(op))
    assert r.status_code < 400, f"{op}: {r.status_code} {r.text}"
    return r.json()


def test_examples_driven_in_order_are_accepted(client):
    placement, moment = EXAMPLES["createCluster"]
    cid = _create(client, placement)
    base = f"/v1/clusters/{cid}"
    _send(client, "POST", f"{base}/arrivals", "postArrival")
    _send(client, "POST", f"{base}/departures", "postDeparture")
    _send(client, "POST", f"{base}/events:batch", "postEventBatch")
    _send(client, "POST", "/v1/keys", "createKey")  # limited to the example cluster's name
    _send(client, "PATCH", base, "updateCluster")
    # kube-scheduler's filter and prioritize on the example cluster (a what-if: it keeps
    # one of the example's nodes); bind needs an API server, so it is left to
    # tests/integrations/kubernetes.
    assert _send(client, "POST", f"{base}/kubernetes/extender/filter", "kubeFilter")["NodeNames"]
    _send(client, "POST", f"{base}/kubernetes/extender/prioritize", "kubePrioritize")

    # Scale-outs and scale-ins share one body schema, hence one example and one event id:
    # each is tried on a cluster of its own, as a Swagger user tries one operation.
    scale_ops = [("postScaleOut", "scale-outs"), ("postScaleIn", "scale-ins")]
    for i, (op, route) in enumerate(scale_ops):
        mid = _create(client, {**moment, "name": f"{moment['name']}-{i}"})
        deployment = _send(client, "POST", f"/v1/clusters/{mid}/deployments", "postDeployment")
        assert deployment["decision"] == "admitted"
        dep = f"/v1/clusters/{mid}/deployments/{_first('postDeployment')['deployment_id']}"
        _send(client, "POST", f"{dep}/{route}", op)

    # The admission webhook's example review: a Deployment of 3 x 2 cores on a moment cluster.
    mid = _create(client, {**moment, "name": f"{moment['name']}-webhook"})
    review = _send(client, "POST", f"/v1/clusters/{mid}/kubernetes/admission", "kubeAdmission")
    assert review["response"]["allowed"], review

    # A queued cluster on the default (wall) clock, as the placement example with a queue policy.
    qid = _create(client, {**placement, "name": "queued", "policy": {"kind": "rms"}})
    _send(client, "POST", f"/v1/clusters/{qid}/tick", "postTick")

    r = client.post("/v1/reservations", json=_first("createReservation"))
    assert r.status_code == 201, r.text
    _send(client, "POST", f"/v1/reservations/{r.json()['id']}/observations", "postObservation")
