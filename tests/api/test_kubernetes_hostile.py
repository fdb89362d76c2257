"""Hostile values in every id, name and quantity of the Kubernetes routes' bodies, on SQLite and
on Postgres: lone surrogates, control and bidi characters, non-ASCII digits, huge exponents and
numbers, over-long ids, whitespace, values of the wrong type. Posted to filter, prioritize, bind
and admission on a placement, a queued (wall clock) and a moment cluster, each answer must be:
no 5xx; a 4xx is a problem document with a code; a review never carries a code of 500 or more;
and a refused request changed nothing (the cluster's version and the newest event of its log).

And the other side of the id rule: an id the extender or the webhook accepted can later leave
through the REST routes and be read there.
"""

from __future__ import annotations

import copy
import itertools
import json
import logging
import time
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, currently_in_test_context, event, given, settings
from hypothesis import strategies as st

from app.api.schemas.common import SEGMENT_ID_PATTERN
from app.kubernetes.apiserver import ApiServerError
from app.service import admission
from tests.helpers import cluster_spec
from tests.integrations.kubernetes.fakes import fixture

HOSTILE_STRINGS = [
    "\ud800", "\udfff", "a\ud800b", "\udc00\ud800", "\x00", "\t", "\n", "a\rb", "\x7f", "\x1b[2J",
    "\u202e", "\u2066x\u2069", "ü-\u202e", "\u200b", "\ufeff", "\u00a0", "a b", " ", "  ", "",
    " 1", "1 ", "1\n", "²", "٣", "1٣", "\uff11", "1e400", "1e308", "1e19", "8Ei", "-1", "-0",
    "NaN", "Infinity", "0x10", "1_000", "1,5", "1e" + "9" * 5000, "9" * 5000, "0." + "0" * 5000,
    "x" * 201, "x" * 254, "a" * 64, "..", ".", ".x", "/", "a/b", "%", "a%2Fb", "A", "Rack-0",
    "ü", "日本", "\U0001F600",
]
ODD_VALUES: list[Any] = [None, True, False, 0, -1, 1.5, 2**63, -(2**63), 10**30, 1e308,
                         float("nan"), float("inf"), [], ["a"], {}, {"a": 1}]
# One of each kind, for the sweep that puts every kind into every id, name and quantity.
SWEEP: list[Any] = ["a\ud800", "\x00", "\t", "ü-\u202e", "a b", "", "²", "٣", "1e400",
                    "1e" + "9" * 5000, "x" * 201, "a/b", None, True, 1.5, float("nan"), []]


def _around(middle: st.SearchStrategy) -> st.SearchStrategy:
    """ASCII text with at least one character of ``middle`` in it."""
    ascii_text = st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), max_size=4)
    return st.tuples(ascii_text, middle, ascii_text).map("".join)


# Each kind of hostile value about equally often.
hostile = st.one_of(
    st.sampled_from(HOSTILE_STRINGS),
    st.sampled_from(ODD_VALUES),
    _around(st.characters(categories=["Cs"])),  # lone surrogates
    _around(st.characters(categories=["Cc"])),  # control characters
    _around(st.characters(categories=["Cf"])),  # format characters: bidi, zero width
    _around(st.characters(categories=["Zs", "Zl", "Zp"])),  # whitespace
    _around(st.characters(categories=["Nd", "No"], exclude_characters="0123456789")),
    st.integers(min_value=-(2**70), max_value=2**70).map(lambda i: f"{i}e{i % 997}"),
    st.integers(min_value=190, max_value=300).map(lambda n: "x" * n),
)

SMALL = "ExtenderArgs.etl-small.NodeNames.json"
LARGE = "ExtenderArgs.etl-large.Nodes.json"
CREATE = "AdmissionReview.deployment-create.json"
SCALE = "AdmissionReview.deployments-scale-out.json"
BINDING = "ExtenderBindingArgs.etl-small.json"
REQUESTS = ("spec", "containers", 0, "resources", "requests")
TEMPLATE = ("request", "object", "spec", "template", "spec")

# Where a hostile value goes, per body: every id, name and quantity Headroom reads, a resource
# name (a key), and fields it does not read.
EXTENDER_PLACES = [
    ("Pod", "metadata", "uid"), ("Pod", "metadata", "name"), ("Pod", "metadata", "namespace"),
    ("Pod", *REQUESTS, "cpu"), ("Pod", *REQUESTS, "memory"), ("Pod", *REQUESTS, "<key>"),
    ("Pod", "spec", "containers", 0, "resources", "limits", "cpu"),
    ("Pod", "spec", "initContainers"), ("Pod", "spec", "overhead", "cpu"),
    ("Pod", "spec", "containers", 0, "resources"), ("Pod", "spec"), ("Pod",),
    ("Pod", "metadata", "labels", "app"), ("Pod", "status", "phase"), ("<key>",),
]
NODE_NAMES_PLACES = [("NodeNames", 0), ("NodeNames", 3), ("NodeNames",), ("Nodes",)]
NODES_PLACES = [("Nodes", "items", 0, "metadata", "name"), ("Nodes", "items", 1, "metadata"),
                ("Nodes", "items", 0, "metadata", "labels", "kubernetes.io/hostname"),
                ("Nodes", "items", 2, "status", "capacity", "cpu"), ("Nodes", "items", 3),
                ("Nodes", "items"), ("NodeNames",)]
BINDING_PLACES = [("PodUID",), ("PodName",), ("PodNamespace",), ("Node",), ("<key>",)]
REVIEW_PLACES = [
    ("request", "uid"), ("request", "namespace"), ("request", "name"), ("request", "dryRun"),
    ("request", "subResource"), ("request", "operation"), ("request", "resource", "resource"),
    ("request", "resource", "group"), ("request", "object", "metadata", "uid"),
    ("request", "object", "spec", "replicas"), ("request", "oldObject", "spec", "replicas"),
    ("request", "oldObject", "metadata", "uid"), ("request", *TEMPLATE, "containers", 0,
                                                  "resources", "requests", "cpu"),
    ("request", *TEMPLATE, "containers", 1, "resources", "limits", "cpu"),
    ("request", *TEMPLATE, "containers", 0, "resources", "requests", "<key>"),
    ("request", *TEMPLATE), ("request", "object", "metadata", "name"),
    ("request", "userInfo", "username"), ("request", "<key>"), ("apiVersion",),
]


def _put(body: Any, place: tuple[Any, ...], value: Any) -> None:
    """Set ``place`` in ``body`` to ``value``, creating objects on the way; ``<key>`` puts the
    value in as a key instead (a string, for JSON), with a valid quantity under it."""
    at = body
    for key in place[:-1]:
        if isinstance(at, list):
            if not isinstance(key, int) or key >= len(at):
                return
        elif not isinstance(at, dict):
            return
        elif key not in at or not isinstance(at[key], (dict, list)):
            at[key] = {}
        at = at[key]
    last = place[-1]
    if last == "<key>" and isinstance(at, dict):
        at[value if isinstance(value, str) else json.dumps(value)] = "1"
    elif isinstance(at, dict) or isinstance(at, list) and isinstance(last, int) and last < len(at):
        at[last] = value


class PodsByName:
    """An API server serving the fixtures' pods (with the UID a test sets) and recording
    bindings."""

    def __init__(self) -> None:
        self.uids: dict[str, str] = {}
        self.bound: list[tuple[str, str, str, str]] = []

    def get_pod(self, namespace: str, name: str) -> dict[str, Any]:
        if name not in ("etl-small", "etl-large"):
            raise ApiServerError(f"reading pod {namespace}/{name}: 404 Not Found")
        pod = fixture(f"Pod.{name}.json")
        pod["metadata"]["uid"] = self.uids.get(name, pod["metadata"]["uid"])
        return pod

    def bind(self, namespace: str, name: str, uid: str, node: str) -> None:
        self.bound.append((namespace, name, uid, node))


@pytest.fixture
def clusters(app, client) -> dict[str, str]:
    app.state.kube_api = PodsByName()
    return _clusters(client)


def _clusters(client) -> dict[str, str]:
    """A placement, a queued (wall clock) and a moment cluster."""
    ids = {}
    for kind, spec in [
            ("placement", cluster_spec(policy={"kind": "dra"})),
            ("queued", cluster_spec(policy={"kind": "first_fit_queue"})),
            ("moment", {"name": f"paas-{next(_fresh)}", "capacity_cores": 10,
                        "policy": {"kind": "threshold", "threshold": 8}})]:
        r = client.post("/v1/clusters", json=spec)
        assert r.status_code == 201, r.text
        ids[kind] = r.json()["id"]
    # The Deployment the Scale fixtures scale: admitted, 3 cores.
    r = client.post(f"/v1/clusters/{ids['moment']}/kubernetes/admission", json=fixture(CREATE))
    assert r.json()["response"]["allowed"], r.text
    return ids


def _mark(client, cid: str) -> tuple[int, int | None]:
    """The cluster's version and the seq of the newest event of its log."""
    version = client.get(f"/v1/clusters/{cid}").json()["version"]
    newest = client.get(f"/v1/clusters/{cid}/events", params={"order": "desc", "limit": 1})
    items = newest.json()["items"]
    return version, items[0]["seq"] if items else None


def _post(client, url: str, body: Any):
    # JSON escapes (ensure_ascii), so a lone surrogate travels as "\ud800", as any client
    # sends it; NaN and Infinity as Python's json writes them.
    return client.post(url, content=json.dumps(body).encode(),
                       headers={"content-type": "application/json"})


def _seen(what: str) -> None:
    """What the examples reached (pytest --hypothesis-show-statistics)."""
    if currently_in_test_context():
        event(what)


def _answered(url: str, r) -> bool:
    """The answer is one of the allowed kinds; True when it refused the request (a 4xx, or a
    review refused before any decision), which must then have changed nothing."""
    _seen(f"HTTP {r.status_code}")
    assert r.status_code < 500, r.text
    if r.status_code >= 400:
        assert r.headers["content-type"].startswith("application/problem+json"), r.text
        assert r.json()["code"], r.text
        return True
    if url.endswith("/admission"):
        out = r.json()["response"]
        _seen(f"review {out['status']['code']}")
        assert out["status"]["code"] < 500, out
        return not out["allowed"] and out["status"]["code"] != 403  # 403: decided, logged
    return False


def _check(client, cid: str, url: str, body: Any) -> None:
    before = _mark(client, cid)
    r = _post(client, url, body)
    if _answered(url, r):
        assert _mark(client, cid) == before, r.text


def _log(client, cid: str) -> list[str]:
    """The event ids of the cluster's whole log."""
    ids, cursor = [], None
    while True:
        page = client.get(f"/v1/clusters/{cid}/events",
                          params={"limit": 1000, **({"cursor": cursor} if cursor else {})}).json()
        ids += [e["event_id"] for e in page["items"]]
        if not (cursor := page["next_cursor"]):
            return ids


HOSTILE = settings(max_examples=60, deadline=None,
                   suppress_health_check=[HealthCheck.function_scoped_fixture,
                                          HealthCheck.too_slow])
_fresh = itertools.count()


def _changes(places: list[tuple[Any, ...]]) -> st.SearchStrategy:
    return st.lists(st.tuples(st.sampled_from(places), hostile), min_size=1, max_size=3)


def _apply(body: Any, changes: list[tuple[tuple[Any, ...], Any]]) -> Any:
    for place, value in changes:
        _put(body, place, copy.deepcopy(value))
    return body


# The ids, names and quantities of each body (a subset of the places above).
POD_IDS = [("Pod", "metadata", "uid"), ("Pod", "metadata", "name"),
           ("Pod", "metadata", "namespace"), ("Pod", *REQUESTS, "cpu"),
           ("Pod", *REQUESTS, "<key>"), ("Pod", "spec", "overhead", "memory")]
REVIEW_IDS = [("request", "uid"), ("request", "namespace"), ("request", "name"),
              ("request", "object", "metadata", "uid"), ("request", "object", "spec", "replicas"),
              ("request", *TEMPLATE, "containers", 0, "resources", "requests", "cpu"),
              ("request", *TEMPLATE, "containers", 1, "resources", "limits", "<key>")]


def test_every_id_name_and_quantity_refuses_every_kind_of_hostile_value(app, client, clusters,
                                                                         caplog):
    """Deterministic: each kind of value (SWEEP) in each id, name and quantity, one at a time,
    on the routes' committing paths: filter and prioritize on the queued cluster, bind on the
    placement cluster, admission (a Deployment's creation, a Scale's update) on the moment
    cluster."""
    queued, placement, moment = clusters["queued"], clusters["placement"], clusters["moment"]
    extender = f"/v1/clusters/{queued}/kubernetes/extender"
    cases = [(SMALL, place, f"{extender}/filter", queued)
             for place in [*POD_IDS, ("NodeNames", 0)]]
    cases += [(LARGE, ("Nodes", "items", 0, "metadata", "name"), f"{extender}/prioritize",
               queued)]
    cases += [(BINDING, place, f"/v1/clusters/{placement}/kubernetes/extender/bind", placement)
              for place in BINDING_PLACES[:-1]]
    cases += [(CREATE, place, f"/v1/clusters/{moment}/kubernetes/admission", moment)
              for place in REVIEW_IDS]
    cases += [(SCALE, place, f"/v1/clusters/{moment}/kubernetes/admission", moment)
              for place in [("request", "object", "spec", "replicas"),
                            ("request", "oldObject", "spec", "replicas")]]
    # Refusals are checked at the end, for speed: every event logged must be one a request
    # that was answered (not refused) asked for, and the version must count exactly those.
    taken = {cid: set(_log(client, cid)) for cid in clusters.values()}
    with caplog.at_level(logging.ERROR, logger="headroom.kubernetes"):
        for name, place, url, cid in cases:
            for value in SWEEP:
                body = _fresh_body(app, name)
                _put(body, place, copy.deepcopy(value))
                if not _answered(url, _post(client, url, body)):
                    taken[cid].add(_event_id(name, body))
    assert not [r for r in caplog.records
                if r.name == "headroom.kubernetes" and r.levelno >= logging.ERROR]
    for cid, ids in taken.items():
        logged = _log(client, cid)
        assert set(logged) <= ids
        assert client.get(f"/v1/clusters/{cid}").json()["version"] == len(logged)


def _event_id(name: str, body: Any) -> Any:
    """The event id a request asks for (its pod's or its review's uid)."""
    if name in (SMALL, LARGE):
        return body["Pod"]["metadata"]["uid"]
    return body["PodUID"] if name == BINDING else body["request"]["uid"]


def _fresh_body(app, name: str) -> Any:
    """The fixture with new ids, so that each request is decided, not answered from the log."""
    body, n = fixture(name), next(_fresh)
    if name in (SMALL, LARGE):
        body["Pod"]["metadata"]["uid"] = f"pod-{n}"
    elif name == BINDING:
        body["PodUID"] = app.state.kube_api.uids["etl-small"] = f"pod-{n}"
    else:
        body["request"]["uid"] = f"review-{n}"
        if name == CREATE:
            body["request"]["object"]["metadata"]["uid"] = f"deployment-{n}"
    return body


@HOSTILE
@given(data=st.data())
def test_hostile_extender_args_are_refused_before_anything_is_decided(app, client, clusters,
                                                                      data):
    name, places = data.draw(st.sampled_from([(SMALL, NODE_NAMES_PLACES),
                                              (LARGE, NODES_PLACES)]))
    verb = data.draw(st.sampled_from(["filter", "prioritize"]))
    cid = clusters[data.draw(st.sampled_from(["placement", "queued", "moment"]))]
    body = _apply(_fresh_body(app, name), data.draw(_changes(EXTENDER_PLACES + places)))
    _check(client, cid, f"/v1/clusters/{cid}/kubernetes/extender/{verb}", body)


@HOSTILE
@given(data=st.data())
def test_hostile_binding_args_are_refused_before_anything_is_decided(app, client, clusters,
                                                                     data):
    cid = clusters[data.draw(st.sampled_from(["placement", "queued", "moment"]))]
    body = _apply(_fresh_body(app, BINDING), data.draw(_changes(BINDING_PLACES)))
    _check(client, cid, f"/v1/clusters/{cid}/kubernetes/extender/bind", body)


@HOSTILE
@given(data=st.data())
def test_hostile_admission_reviews_are_refused_and_never_answered_500(app, client, clusters,
                                                                      caplog, data):
    cid = clusters[data.draw(st.sampled_from(["moment", "moment", "placement"]))]
    name = data.draw(st.sampled_from([CREATE, SCALE]))
    body = _apply(_fresh_body(app, name), data.draw(_changes(REVIEW_PLACES)))
    with caplog.at_level(logging.ERROR, logger="headroom.kubernetes"):
        _check(client, cid, f"/v1/clusters/{cid}/kubernetes/admission", body)
    assert not [r for r in caplog.records
                if r.name == "headroom.kubernetes" and r.levelno >= logging.ERROR]


@pytest.mark.parametrize("cpu, replicas", [("9223372036854775807", 2), ("1e18", 2**31 - 1),
                                           ("10000001", 1), ("5000001", 2)])
def test_deployments_larger_than_any_moment_cluster_are_refused_not_overflowed(
        client, clusters, cpu, replicas):
    body = fixture(CREATE)
    body["request"]["object"]["spec"]["replicas"] = replicas
    for container in body["request"]["object"]["spec"]["template"]["spec"]["containers"]:
        container["resources"] = {"requests": {"cpu": cpu}}
    del body["request"]["object"]["spec"]["template"]["spec"]["containers"][1:]
    body["request"]["object"]["metadata"]["uid"] = "too-large"
    cid = clusters["moment"]
    before = _mark(client, cid)
    r = client.post(f"/v1/clusters/{cid}/kubernetes/admission", json=body)
    out = r.json()["response"]
    assert (r.status_code, out["allowed"], out["status"]["code"]) == (200, False, 422), out
    assert "more than any moment cluster holds (10000000)" in out["status"]["message"]
    assert _mark(client, cid) == before


def test_a_bug_in_a_decision_is_still_a_readable_review_and_a_log_line(client, clusters,
                                                                        monkeypatch, caplog):
    """The safety net stays for bugs (no input reaches it: the tests above)."""
    def broken(self):
        raise RuntimeError("a bug")

    monkeypatch.setattr(admission._Decider, "decide", broken)
    cid = clusters["moment"]
    with caplog.at_level(logging.ERROR, logger="headroom.kubernetes"):
        r = client.post(f"/v1/clusters/{cid}/kubernetes/admission", json=fixture(CREATE))
    out = r.json()["response"]
    assert (r.status_code, out["allowed"], out["status"]["code"]) == (200, False, 500)
    assert "admission review crashed" in caplog.text


# ---- what is accepted can leave through REST -------------------------------------------------

# Any id: one of the rule's, or a hostile one. Whichever the extender or the webhook takes,
# REST must serve.
segment_ids = st.from_regex(SEGMENT_ID_PATTERN, fullmatch=True).filter(lambda s: len(s) <= 200)
any_ids = st.one_of(segment_ids, st.sampled_from(HOSTILE_STRINGS + [
    "has space", "a\tb", "\t", "x" * 200, "x" * 201, "a?b#c", "%2F", "-", "~"]),
    st.text(st.characters(codec="utf-8"), min_size=1, max_size=8))


def _segment(uid: str) -> str:
    """``uid`` as a path segment for the in-process client, which percent-decodes a path twice
    (httpx, then Starlette's TestClient), so it is encoded twice; a real server decodes once
    (the live contract test sends such ids over HTTP)."""
    return quote(quote(uid, safe=""), safe="")


ROUND_TRIP = settings(max_examples=30, deadline=None,
                      suppress_health_check=[HealthCheck.function_scoped_fixture,
                                             HealthCheck.too_slow])


@ROUND_TRIP
@given(uid=any_ids)
def test_a_pod_uid_the_extender_takes_can_depart_and_be_read_through_rest(app, client, clusters,
                                                                         uid):
    fresh = _clusters(client)  # per example: an id may come twice
    queued, placement = fresh["queued"], fresh["placement"]
    args = fixture(SMALL)
    args["Pod"]["metadata"]["uid"] = uid
    r = _post(client, f"/v1/clusters/{queued}/kubernetes/extender/filter", args)
    if r.status_code == 422:
        event("refused")
        return
    event("taken")
    assert r.status_code == 200, r.text
    job = client.get(f"/v1/clusters/{queued}/jobs/{_segment(uid)}")
    assert job.status_code == 200 and job.json()["job_id"] == uid, job.text

    app.state.kube_api.uids["etl-small"] = uid
    binding = fixture(BINDING) | {"PodUID": uid}
    r = _post(client, f"/v1/clusters/{placement}/kubernetes/extender/bind", binding)
    assert r.status_code == 200 and r.json()["Error"] == "", r.text
    held = client.get(f"/v1/clusters/{placement}/jobs").json()["items"]
    assert uid in [j["job_id"] for j in held]
    for cid in (queued, placement):
        gone = client.post(f"/v1/clusters/{cid}/departures",
                           json={"event_id": f"gone-{next(_fresh)}", "job_id": uid})
        assert gone.status_code in (200, 201), gone.text
    held = client.get(f"/v1/clusters/{placement}/jobs").json()["items"]
    assert uid not in [j["job_id"] for j in held]


@ROUND_TRIP
@given(uid=any_ids)
def test_a_deployment_uid_the_webhook_takes_can_be_read_and_shut_down_through_rest(
        client, clusters, uid):
    cid = _clusters(client)["moment"]  # per example: an id may come twice
    active = client.get(f"/v1/clusters/{cid}/state").json()["active_cores"]
    body = fixture(CREATE)
    body["request"]["uid"] = f"create-{next(_fresh)}"
    body["request"]["object"]["metadata"]["uid"] = uid
    r = _post(client, f"/v1/clusters/{cid}/kubernetes/admission", body)
    if r.status_code == 422:
        event("refused")
        return
    event("taken")
    assert r.status_code == 200 and r.json()["response"]["allowed"], r.text
    path = f"/v1/clusters/{cid}/deployments/{_segment(uid)}"
    view = client.get(path)
    assert view.status_code == 200, view.text
    down = client.delete(path, params={"at": time.time() / 3600 + 1,
                                       "event_id": f"down-{next(_fresh)}"})
    assert down.status_code == 200, down.text
    assert client.get(f"/v1/clusters/{cid}/state").json()["active_cores"] == active
