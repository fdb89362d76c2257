"""Hostile bodies, ids and headers on the REST routes of all four families (issue #54).

Hypothesis puts hostile values into the fields (values, keys, repeated keys) of a valid body of
each write route: lone surrogates (escaped and as raw bytes), NUL, other control and bidi
characters, non-ASCII digits, NaN and Infinity literals, 1e999, a 5,000-digit integer, nesting
far beyond the limit. Per request: never a 5xx; every refusal is problem+json with a `code`;
a refusal leaves every cluster's version, every log's length and the other tables unchanged;
what the strict JSON reading refuses (app/api/json_body.py) is a 422 naming the field where
it was put. Over each run: the log holds exactly the answered events, each with the answer
its client got. Headers (If-Match, Idempotency-Key, X-Request-Id, Authorization,
Content-Length), query parameters and path ids get their own hostile values.
"""

from __future__ import annotations

import copy
import itertools
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import text

from app.api.middleware import RequestContextMiddleware
from app.api.schemas.common import CLIENT_ID_PATTERN, NAME_PATTERN
from app.metrics import Metrics
from app.policies.placement import PlacementAdapter
from app.service.engines import DELIVERY_KEYS
from app.service.log import list_events
from tests.conftest import admin_client
from tests.helpers import assert_problem, cluster_spec

EXAMPLES = 60  # request sequences per family and database, of up to 8 requests each


# ---- hostile JSON text ----------------------------------------------------------------------

@dataclass(frozen=True)
class Raw:
    """JSON text put into the body as it is (NaN, 1e999, nesting)."""

    text: str


@dataclass(frozen=True)
class Repeated:
    """An object whose key ``key`` appears twice: first as given, then with ``again``."""

    items: dict[str, Any]
    key: str
    again: Any


def to_text(value: Any, ascii_only: bool) -> str:
    if isinstance(value, Raw):
        return value.text
    if isinstance(value, (dict, Repeated)):
        items = list((value.items if isinstance(value, Repeated) else value).items())
        if isinstance(value, Repeated):
            items.append((value.key, value.again))
        return "{" + ",".join(f"{json.dumps(k, ensure_ascii=ascii_only)}:"
                              f"{to_text(v, ascii_only)}" for k, v in items) + "}"
    if isinstance(value, list):
        return "[" + ",".join(to_text(v, ascii_only) for v in value) + "]"
    return json.dumps(value, ensure_ascii=ascii_only)


def body_bytes(value: Any, ascii_only: bool) -> bytes:
    # surrogatepass: a lone surrogate written unescaped arrives as its raw UTF-8-style bytes
    return to_text(value, ascii_only).encode("utf-8", "surrogatepass")


plain = st.text(st.characters(codec="ascii", categories=["L", "N"]), max_size=4)
lone_surrogate = st.builds(lambda a, s, b: a + s + b, plain, st.characters(categories=["Cs"]),
                           plain)
nul = st.builds(lambda a, b: f"{a}\x00{b}", plain, plain)
# What the strict JSON reading refuses, by the type it names.
STRICT: list[tuple[str, st.SearchStrategy]] = [
    ("lone_surrogate", lone_surrogate),
    ("control_character", nul),
    ("non_finite_number", st.sampled_from([Raw("NaN"), Raw("Infinity"), Raw("-Infinity"),
                                           Raw("1e999"), Raw("-2.5E+400")])),
    ("number_too_long", st.just(Raw("9" * 5000))),
    ("nesting_too_deep", st.sampled_from([65, 200, 800, 5000]).map(
        lambda n: Raw("[" * n + "]" * n))),
]
# Hostile but not the strict reading's to refuse: the schemas decide (never a 5xx).
OTHER = st.one_of(
    st.text(st.characters(categories=["Cc", "Cf", "Nd", "No", "Zl", "Zp", "Zs"],
                          exclude_characters="\x00"), min_size=1, max_size=6),
    st.sampled_from(["²", "١٢", "٣٫٥", "\u202eabc", "\u2066x\u2069", "\ufeffx", "x" * 300, "",
                     "1e999", "NaN", "é", "5"]),
    st.sampled_from([5e-324, -0.0, 1e308, -1e308, 2**64, -(2**63) - 1, 10**100, True, False,
                     None, [], {}, 1.5, 0, -1]),
)


@dataclass(frozen=True)
class Change:
    """Where a hostile value goes: ``how`` is "value" (replace the value at ``path``), "key"
    (rename the key at ``path`` to ``value``) or "repeat" (give the key at ``path`` again)."""

    how: str
    path: tuple
    value: Any
    strict: str | None  # the type the strict reading refuses it as, if it is its to refuse


def places(value: Any, at: tuple = ()) -> Iterator[tuple]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield (*at, k)
            yield from places(v, (*at, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield (*at, i)
            yield from places(v, (*at, i))


def changes(body: dict[str, Any]) -> st.SearchStrategy[Change]:
    spots = list(places(body))
    keyed = [p for p in spots if isinstance(p[-1], str)]
    strict = st.sampled_from(STRICT).flatmap(
        lambda kv: st.tuples(st.just(kv[0]), kv[1]))
    return st.one_of(
        st.tuples(st.sampled_from(spots), strict).map(
            lambda t: Change("value", t[0], t[1][1], t[1][0])),
        st.tuples(st.sampled_from(spots), OTHER).map(lambda t: Change("value", t[0], t[1], None)),
        st.tuples(st.sampled_from(keyed), st.one_of(lone_surrogate, nul)).map(
            lambda t: Change("key", t[0], t[1],
                             "control_character" if "\x00" in t[1] else "lone_surrogate")),
        st.tuples(st.sampled_from(keyed), st.one_of(OTHER, st.just("copy"))).map(
            lambda t: Change("repeat", t[0], t[1], "duplicate_key")),
    )


def apply(body: dict[str, Any], change: Change) -> Any:
    """``body`` (a fresh copy) with ``change`` made."""
    *parents, last = change.path
    node: Any = body
    for step in parents:
        node = node[step]
    if change.how == "value":
        node[last] = change.value
        return body
    if change.how == "key":
        node[change.value] = node.pop(last)
        return body
    repeated = Repeated(dict(node), last, node[last] if change.value == "copy" else change.value)
    if not parents:
        return repeated
    grand: Any = body
    for step in parents[:-1]:
        grand = grand[step]
    grand[parents[-1]] = repeated
    return body


_UNPRINTABLE = re.compile("[\x00-\x1f\x7f\ud800-\udfff]")


def field_name(path: tuple, key: str | None = None) -> str:
    """The field as problem documents name it (``a.b[0].c``), ending in ``key`` if given."""
    out = ""
    for step in (*path, *([] if key is None else [key])):
        if isinstance(step, int):
            out += f"[{step}]"
        else:
            name = step if step.isprintable() else \
                _UNPRINTABLE.sub(lambda m: f"\\u{ord(m[0]):04x}", step)
            out += f".{name}" if out else name
    return out


# ---- the world and the checks -----------------------------------------------------------------

_ids = itertools.count()


def uid(prefix: str = "h") -> str:
    return f"{prefix}{next(_ids)}"


QUEUE = {"kind": "best_fit_queue", "clock": "client"}
DERIVATION = {"source": "calibration", "bounds": [0.003, 0.3], "runs": 6, "sla": 1e-4,
              "scale": {"capacity": 100, "steps": 600, "years": 3.0, "seed": 1000},
              "anchors": [{"capacity": 100, "value": 0.3, "runs": 6, "confidence": 0.9,
                           "failure_rate": 0.0}]}
THOR = {"kind": "thor", "params": {"queue_target": 5, "caps": {"cpu": {"mean": 4, "sigma": 1}},
                                   "estimator": {"tail_factor": 1.6}}}
GAMMA = {"lambda": [1.0, 2.0], "mu": [1.0, 1.0], "sigma": [2.0, 1.0]}


@dataclass
class World:
    """One cluster of every family, the log each should hold, and the checks."""

    app: Any
    c: Any
    ids: dict[str, str]
    clock: dict[str, float] = field(default_factory=lambda: {"queue": 1.0, "moment": 0.0})
    period: int = 1
    answered: dict[str, dict[int, dict[str, Any]]] = field(default_factory=dict)
    refused: dict[str, set[str]] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(
        ("requests", "refused", "named"), 0))

    def fingerprint(self) -> tuple:
        with self.app.state.ctx.db.connect() as conn:
            return tuple(conn.execute(text(q)).all() for q in (
                "SELECT id, name, version, generation FROM clusters ORDER BY id",
                "SELECT cluster_id, count(*), max(seq) FROM events GROUP BY cluster_id "
                "ORDER BY cluster_id",
                "SELECT count(*) FROM api_keys", "SELECT count(*) FROM idempotency_keys"))

    def send(self, method: str, url: str, body: Any = None, ascii_only: bool = True,
             headers: dict[str, Any] | None = None, change: Change | None = None) -> Any:
        before = self.fingerprint()
        content = None if body is None else body_bytes(body, ascii_only)
        r = self.c.request(method, url, content=content, headers={
            **({"content-type": "application/json"} if content is not None else {}),
            **(headers or {})})
        label = f"{method} {url} {change} -> {r.status_code} {r.text[:300]}"
        assert r.status_code < 500, label
        self.counts["requests"] += 1
        if r.status_code >= 400:
            self.counts["refused"] += 1
            problem = r.json()
            assert r.headers["content-type"].startswith("application/problem+json"), label
            assert problem["code"] and problem["status"] == r.status_code, label
            assert self.fingerprint() == before, f"refused but changed: {label}"
            if change is not None and change.strict is not None:
                self.check_named(problem, change, label)
                self.counts["named"] += 1
        return r

    def log(self, cid: str) -> dict[int, dict[str, Any]]:
        """The cluster's log by seq: GET .../events, or for a stream (which has only its
        history, without whole answers) the same read in the service."""
        if cid == self.ids["stream"]:
            items, _ = list_events(self.app.state.ctx, cid, 100_000, 0)
            return {e["seq"]: e for e in items}
        logged: dict[int, dict[str, Any]] = {}
        cursor = None
        while True:
            page = self.c.get(f"/v1/clusters/{cid}/events",
                              params={"limit": 1000, **({"cursor": cursor} if cursor else {})})
            assert page.status_code == 200, page.text
            logged.update({e["seq"]: e for e in page.json()["items"]})
            cursor = page.json()["next_cursor"]
            if cursor is None:
                return logged

    @staticmethod
    def check_named(problem: dict[str, Any], change: Change, label: str) -> None:
        assert problem["status"] == 422 and problem["code"] == "validation_error", label
        (error,) = problem["errors"]
        assert error["type"] == change.strict, label
        where = field_name(change.path[:-1], change.value) if change.how == "key" else \
            field_name(change.path)
        if change.strict == "nesting_too_deep":
            assert error["field"].startswith(where) or error["field"] == "body", label
        else:
            assert error["field"] == where, label

    def event(self, cluster: str, url: str, body: dict[str, Any], change: Change | None,
              ascii_only: bool) -> Any:
        """Send an event; remember what was answered (by log position) or refused."""
        sent = apply(copy.deepcopy(body), change) if change is not None else body
        r = self.send("POST", url, sent, ascii_only, change=change)
        cid = self.ids[cluster]
        if r.status_code < 300:
            answer = r.json()
            for item in answer.get("results", [answer]):  # a batch answers each event
                if item.get("event_seq") is not None:
                    self.answered.setdefault(cid, {})[item["event_seq"]] = item
        elif isinstance(body.get("event_id"), str):
            self.refused.setdefault(cid, set()).add(body["event_id"])
        return r

    def check_logs(self) -> None:
        """Every answered event is in its cluster's log with the answer its client got; no
        refused event is. The answer is the logged one through its family's answer model,
        which may leave logged keys out (an observation's decision) and fill in the empty
        defaults of keys the engine left out (a queued job's server_id: null), nothing else."""
        for cid, answers in self.answered.items():
            logged = self.log(cid)
            for seq, answer in answers.items():
                assert seq in logged, (cid, seq, answer)
                response = logged[seq]["response"]
                shown = {k: v for k, v in answer.items() if k not in DELIVERY_KEYS}
                assert {k: v for k, v in shown.items() if k in response} == \
                    {k: response[k] for k in shown if k in response}, (seq, answer)
                added = {k: v for k, v in shown.items() if k not in response}
                assert all(v in (None, [], {}) for v in added.values()), (seq, added)
            ids = {e["event_id"] for e in logged.values()}
            assert not ids & self.refused.get(cid, set())


@pytest.fixture
def world(app) -> Iterator[World]:
    with admin_client(app, raise_server_exceptions=False) as c:
        def create(url: str, body: dict[str, Any]) -> str:
            r = c.post(url, json=body)
            assert r.status_code == 201, r.text
            return r.json()["id"]

        ids = {"placement": create("/v1/clusters", cluster_spec(name="p", servers=8)),
               "queue": create("/v1/clusters", cluster_spec(name="q", policy=QUEUE)),
               "moment": create("/v1/clusters", {"name": "m", "capacity_cores": 100,
                                                 "policy": {"kind": "threshold"}}),
               "stream": create("/v1/reservations", {
                   "name": "s", "policy": THOR,
                   "resources": [{"name": "cpu", "cost": 1, "epsilon": 0.05}]})}
        w = World(app, c, ids)
        for cluster, url, body in (
                ("placement", "arrivals", {"event_id": "e0", "job_id": "j0",
                                           "job_type": "small"}),
                ("queue", "arrivals", {"event_id": "e0", "job_id": "j0", "job_type": "small",
                                       "at": 1.0}),
                ("moment", "deployments", {"event_id": "e0", "deployment_id": "d0",
                                           "cores": 2, "at": 0.0})):
            w.event(cluster, f"/v1/clusters/{ids[cluster]}/{url}", body, None, True)
        w.event("stream", f"/v1/reservations/{ids['stream']}/observations",
                {"event_id": "e0", "period": 0, "demand": {"cpu": 3.0}}, None, True)
        yield w
        w.check_logs()
        # The figures docs/reliability.md quotes (`pytest -s` shows them).
        print(f"\nhostile: {w.counts['requests']} requests, {w.counts['refused']} refused, "
              f"{w.counts['named']} by the strict reading, naming the field; "
              f"{sum(map(len, w.answered.values()))} answered events checked against the log")


Request = tuple[str, str, Callable[[World], dict[str, Any]]]


def _run(world: World, requests: list[Request]) -> None:
    """Send hostile variants of ``requests`` (cluster, url, valid body) in drawn orders."""
    ordered = st.lists(st.sampled_from(requests), min_size=1, max_size=8)

    @settings(max_examples=EXAMPLES, deadline=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture,
                                     HealthCheck.too_slow])
    @given(data=st.data(), chosen=ordered)
    def run(data, chosen):
        for cluster, url, fresh in chosen:
            body = fresh(world)
            hostile = data.draw(st.one_of(st.none(), changes(body)), label="change")
            ascii_only = data.draw(st.booleans(), label="ascii_only")
            r = world.event(cluster, url.format(**world.ids), body, hostile, ascii_only)
            if r.status_code < 300:
                _moved(world, cluster, r.json())

    run()


def _moved(world: World, cluster: str, answer: dict[str, Any]) -> None:
    """Follow an accepted event's clock (queues, moments) or period (streams)."""
    if cluster == "stream":
        if "period" in answer:  # an observation, not a declaration
            world.period = answer["period"] + 1
    elif cluster in world.clock:
        for t in (answer.get("at"), answer.get("now")):
            if isinstance(t, (int, float)) and not isinstance(t, bool):
                world.clock[cluster] = max(world.clock[cluster], float(t))


def test_placement_routes(world):
    _run(world, [
        ("placement", "/v1/clusters/{placement}/arrivals",
         lambda w: {"event_id": uid(), "job_id": uid("j"), "job_type": "small"}),
        ("placement", "/v1/clusters/{placement}/departures",
         lambda w: {"event_id": uid(), "job_id": "j0"}),
        ("placement", "/v1/clusters/{placement}/events:batch",
         lambda w: {"events": [{"kind": "arrival", "event_id": uid(), "job_id": "jb",
                                "job_type": "large"},
                               {"kind": "departure", "event_id": uid(), "job_id": "jb"}]}),
        ("placement", "/v1/clusters", lambda w: cluster_spec(name=uid("c"), policy={
            "kind": "dra", "reservation": {"b": 0.5}, "migrations": "on",
            "gpa_refresh": {"every_events": 2}})),
    ])


def test_queue_routes(world):
    _run(world, [
        ("queue", "/v1/clusters/{queue}/arrivals",
         lambda w: {"event_id": uid(), "job_id": uid("j"), "job_type": "small",
                    "at": w.clock["queue"]}),
        ("queue", "/v1/clusters/{queue}/departures",
         lambda w: {"event_id": uid(), "job_id": "j0", "at": w.clock["queue"]}),
        ("queue", "/v1/clusters/{queue}/tick", lambda w: {"until": w.clock["queue"] + 1}),
        ("queue", "/v1/clusters", lambda w: cluster_spec(name=uid("c"), policy={
            "kind": "rms", "clock": "client", "clock_rate": {"small": 2.0, "large": 1.0},
            "mu": 1.0, "replace_dummies": False})),
    ])


def test_moment_routes(world):
    _run(world, [
        ("moment", "/v1/clusters/{moment}/deployments",
         lambda w: {"event_id": uid(), "deployment_id": uid("d"), "cores": 1,
                    "at": w.clock["moment"], "category": "web",
                    "prior": {"gamma": GAMMA, "observations": {"core_time": 1.0}}}),
        ("moment", "/v1/clusters/{moment}/deployments/d0/scale-outs",
         lambda w: {"event_id": uid(), "cores": 1, "at": w.clock["moment"]}),
        ("moment", "/v1/clusters/{moment}/deployments/d0/scale-ins",
         lambda w: {"event_id": uid(), "cores": 1, "at": w.clock["moment"]}),
        ("moment", "/v1/clusters", lambda w: {
            "name": uid("m"), "capacity_cores": 100, "sla": 1e-4,
            "policy": {"kind": "second_moment", "threshold": 0.3, "closed_loop": True,
                       "derivation": DERIVATION}}),
    ])


def test_reservation_routes(world):
    _run(world, [
        ("stream", "/v1/reservations/{stream}/observations",
         lambda w: {"event_id": uid(), "period": w.period, "demand": {"cpu": 4.0}}),
        ("stream", "/v1/reservations", lambda w: {
            "name": uid("r"), "policy": THOR, "initial": {"cpu": 1.0},
            "resources": [{"name": "cpu", "cost": 1, "epsilon": 0.05}]}),
        ("stream", "/v1/reservations", lambda w: {
            "name": uid("r"), "resources": [{"name": "cpu", "epsilon": 0.1}],
            "policy": {"kind": "percentile", "params": {"margin": 0.1, "half_life": 10}}}),
        ("stream", "/v1/keys", lambda w: {"scopes": ["read"], "description": "robot"}),
    ])


# ---- answers that cannot be sent ----------------------------------------------------------------

class _Unsendable:
    """A decision whose answer has no JSON text the API could send."""

    def __init__(self, decision: Any, value: Any):
        self.decision, self.value = decision, value

    def to_dict(self) -> dict[str, Any]:
        return {**self.decision.to_dict(), "details": {"note": self.value}}


@pytest.mark.parametrize("value", ["\ud800", float("nan")], ids=["lone_surrogate", "nan"])
def test_an_answer_that_cannot_be_sent_is_never_logged(app, monkeypatch, value):
    """Defence behind the strict reading: an engine answer the API could not encode fails
    before the commit, so it is neither logged nor applied, and the next event is decided as
    if it had never been sent."""
    real = PlacementAdapter.apply

    def apply(self, event):  # noqa: ANN001, ANN202
        out = real(self, event)
        return _Unsendable(out, value) if event["job_id"] == "bad" else out

    monkeypatch.setattr(PlacementAdapter, "apply", apply)
    with admin_client(app, raise_server_exceptions=False) as c:
        cid = c.post("/v1/clusters", json=cluster_spec(servers=1)).json()["id"]
        url = f"/v1/clusters/{cid}"
        assert c.post(f"{url}/arrivals", json={"event_id": "a", "job_id": "a",
                                               "job_type": "small"}).status_code == 200
        r = c.post(f"{url}/arrivals", json={"event_id": "b", "job_id": "bad",
                                            "job_type": "small"})
        assert_problem(r, 500, "internal_error")
        assert c.get(url).json()["version"] == 1
        assert [e["event_id"] for e in c.get(f"{url}/events").json()["items"]] == ["a"]
        # Its slot was never taken: three more small jobs fill the server (4 slots).
        placed = [c.post(f"{url}/arrivals", json={"event_id": f"n{i}", "job_id": f"n{i}",
                                                  "job_type": "small"}).json()["decision"]
                  for i in range(4)]
        assert placed == ["placed"] * 3 + ["rejected"]


# ---- headers, query parameters and path ids ---------------------------------------------------

@pytest.fixture
def client_raw(app) -> Iterator[Any]:
    with admin_client(app, raise_server_exceptions=False) as c:
        yield c


def _fingerprint(app) -> tuple:
    return World(app, None, {}).fingerprint()


MALFORMED_IF_MATCH = ["nope", "²", "1", '"1', '1"', '"1" "2"', 'w/"1"', "W/1", "", " , ",
                      ",,,", '"a"b"', '*, "1"', '"1"\t;', '"\x7f"', '"1"\x01', '"1 "', '" 1"']
UNMATCHED_IF_MATCH: list[Any] = [
    '"²"'.encode("latin-1"), '"²"'.encode(), '"١"'.encode(), 'W/"1"', '"01"', '"+1"', '"1e0"',
    '"' + "9" * 30 + '"', '"0x1"', '""', '"a,b"', 'W/"1", W/"1"', '"7", "8"']
# '"1"' stands for the current generation.
MATCHING_IF_MATCH = ['"1"', ' "1" ', '"7", "1"', 'W/"1", "1"', '"1",,', "*", " * "]


def _admin_write(c, kind: str) -> tuple[Callable[[Any], Any], str]:
    """A fresh thing to PATCH or DELETE: the request given an If-Match value (in which
    '"1"' is replaced by the current generation), and its URL."""
    if kind == "stream":
        url = "/v1/reservations/" + c.post("/v1/reservations", json={
            "name": uid("r"), "resources": [{"name": "cpu", "epsilon": 0.1}]}).json()["id"]
    else:
        url = "/v1/clusters/" + c.post("/v1/clusters",
                                       json=cluster_spec(name=uid("c"))).json()["id"]

    def write(value: Any) -> Any:
        if isinstance(value, str):  # as Latin-1, the header's own charset
            if kind == "rename":
                value = value.replace('"1"', f'"{c.get(url).json()["generation"]}"')
            value = value.encode("latin-1")
        if kind == "rename":
            return c.patch(url, json={"name": uid("n")}, headers={"If-Match": value})
        return c.delete(url, headers={"If-Match": value})

    return write, url


@pytest.mark.parametrize("kind", ["rename", "delete", "stream"])
def test_if_match_is_read_by_rfc_9110(app, client_raw, kind):
    """Outside the grammar: 422 naming If-Match. Well-formed but naming no current ETag
    (weak tags, which strong comparison never matches; "²", "01", 30 digits, tags never
    issued): 412. A list naming the current one, or "*": done."""
    c = client_raw
    write, url = _admin_write(c, kind)
    before = _fingerprint(app)
    for value in MALFORMED_IF_MATCH:
        body = assert_problem(write(value), 422, "validation_error")
        assert body["errors"][0]["field"] == "If-Match", value
    for value in UNMATCHED_IF_MATCH:
        assert_problem(write(value), 412, "precondition_failed")
    assert _fingerprint(app) == before
    for value in MATCHING_IF_MATCH:
        r = write(value)
        assert r.status_code in (200, 204), (value, r.text)
        if kind != "rename":
            assert_problem(c.get(url), 404)
            write, url = _admin_write(c, kind)


@pytest.mark.parametrize("key", [
    "²".encode("latin-1"), "١".encode(), b"a\x7fb", b"\xff", b"x" * 201, b"a b", b"",
    "\u202e".encode(), b"\x1b[31m"])
def test_hostile_idempotency_keys_are_refused(app, client_raw, world, key):
    before = _fingerprint(app)
    for url, body in ((f"/v1/clusters/{world.ids['placement']}/arrivals",
                       {"job_id": "jk", "job_type": "small"}),
                      (f"/v1/reservations/{world.ids['stream']}/observations",
                       {"period": world.period, "demand": {"cpu": 1.0}}),
                      ("/v1/clusters", cluster_spec(name="fresh"))):
        r = client_raw.post(url, json=body, headers={"Idempotency-Key": key})
        problem = assert_problem(r, 422, "validation_error")
        assert problem["errors"][0]["field"] == "Idempotency-Key"
    assert _fingerprint(app) == before


VISIBLE_ASCII = re.compile(r"[!-~]{1,100}")


@pytest.mark.parametrize("sent", [
    "²".encode("latin-1"), "é".encode(), b"a b", b"a\tb", b"\x7f", b"x" * 101, b"",
    "\u202eid".encode(), b"\xff\xfe"])
def test_a_request_id_is_echoed_only_if_a_client_could_send_it(client_raw, sent):
    r = client_raw.get("/livez", headers={"X-Request-Id": sent})
    echoed = r.headers["x-request-id"]
    assert VISIBLE_ASCII.fullmatch(echoed) and echoed.encode() != sent, echoed
    good = b"trace-" + b"!~" * 20
    assert client_raw.get("/livez", headers={"X-Request-Id": good}).headers[
        "x-request-id"] == good.decode()


@pytest.mark.parametrize("authorization", [
    "Bearer ²".encode("latin-1"), "Bearer ١٢".encode(), b"Bearer \x7f", b"Bearer " + b"x" * 8000,
    b"Basic eDp5", b"Bearer", b"bearer hr_x", b"Bearer hr_\xff", b"\xff"])
def test_hostile_authorization_headers_are_401(app, authorization):
    from fastapi.testclient import TestClient

    with TestClient(app, raise_server_exceptions=False) as c:
        r = c.get("/v1/clusters", headers={"Authorization": authorization})
        assert_problem(r, 401)


@pytest.mark.parametrize("value", [
    "²", "١٢", "9" * 5000, "1e3", "%EF%BC%95", "%ED%A0%80", "%E2%80%AE1", "-1", "1.5"])
@pytest.mark.parametrize("name", ["limit", "cursor"])
def test_hostile_limits_and_cursors_are_422(app, client_raw, world, name, value):
    before = _fingerprint(app)
    p, q, r = world.ids["placement"], world.ids["queue"], world.ids["stream"]
    digits, ids, names = r"[0-9]{1,18}", CLIENT_ID_PATTERN.strip("^$"), NAME_PATTERN.strip("^$")
    for url, cursor in ((f"/v1/clusters/{p}/events", digits),
                        (f"/v1/reservations/{r}/history", digits),
                        (f"/v1/clusters/{p}/servers", digits), (f"/v1/clusters/{q}/jobs", ids),
                        ("/v1/clusters", names), ("/v1/reservations", names)):
        if name == "cursor" and re.fullmatch(cursor, unquote(value)):
            continue  # a well-formed cursor (past the end): not an error
        assert_problem(client_raw.get(f"{url}?{name}={value}"), 422, "validation_error")
    assert _fingerprint(app) == before


@pytest.mark.parametrize("query", [
    "order=%E2%80%AEasc", "decision=pl%C3%A1ced", "reason=%D9%A1", "job_id=%E2%80%AE",
    "job_id=" + "x" * 201])
def test_hostile_log_filters_are_422(client_raw, world, query):
    url = f"/v1/clusters/{world.ids['placement']}/events?{query}"
    assert_problem(client_raw.get(url), 422, "validation_error")


@pytest.mark.parametrize("segment", [
    "%ED%A0%80", "%C2%B2", "%D9%A1", "%E2%80%AE", "%EF%BB%BF", "x" * 5000, "%FF"])
def test_hostile_path_ids_are_not_found(app, client_raw, world, segment):
    before = _fingerprint(app)
    cid, rid = world.ids["placement"], world.ids["stream"]
    for method, url in (("GET", f"/v1/clusters/{segment}"), ("DELETE", f"/v1/clusters/{segment}"),
                        ("GET", f"/v1/clusters/{cid}/servers/{segment}"),
                        ("GET", f"/v1/clusters/{world.ids['queue']}/jobs/{segment}"),
                        ("GET", f"/v1/reservations/{segment}"),
                        ("POST", f"/v1/clusters/{world.ids['moment']}/deployments/{segment}"
                                 "/scale-outs"),
                        ("GET", f"/v1/reservations/{rid}/history?cursor={segment}")):
        r = client_raw.request(method, url, json={"event_id": uid(), "cores": 1, "at": 1e6}
                               if method == "POST" else None)
        assert r.status_code < 500, (method, url, r.text)
        assert_problem(r, r.status_code)
        assert r.status_code in (404, 409, 422), (method, url, r.status_code)
    assert _fingerprint(app) == before


@pytest.mark.parametrize("declared", [b"9" * 5000, b"9" * 19, "²".encode("latin-1"), b"-1"])
def test_hostile_content_length_never_crashes_the_middleware(declared):
    """Content-Length reaches the middleware as the client wrote it: thousands of digits
    (int() refuses over 4,300) are too large, not a crash; anything not digits is left to
    the server, which reads the body that came."""
    sent: list[dict[str, Any]] = []

    async def app(scope, receive, send):  # noqa: ANN001, ANN202
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    async def receive():  # noqa: ANN202
        return {"type": "http.request", "body": b"{}", "more_body": False}

    async def send(message):  # noqa: ANN001, ANN202
        sent.append(message)

    import anyio

    scope = {"type": "http", "method": "POST", "path": "/v1/clusters", "query_string": b"",
             "headers": [(b"content-length", declared)]}
    anyio.run(RequestContextMiddleware(app, Metrics(), 1 << 20), scope, receive, send)
    status = sent[0]["status"]
    assert status == (413 if declared.isdigit() else 200), sent


@pytest.mark.parametrize("timeout, expected", [
    ("10s", 5.0), ("١٠s", 20.0), ("10s\n", 20.0), ("9" * 5000 + "s", 20.0), ("²s", 20.0),
    ("500ms", 0.25), ("1m", 20.0), ("", 20.0)])
def test_the_admission_timeout_reads_ascii_durations_only(timeout, expected):
    from types import SimpleNamespace

    from app.api.routes.kubernetes import _deadline

    ctx = SimpleNamespace(settings=SimpleNamespace(kube_webhook_deadline_seconds=20.0))
    assert _deadline(ctx, timeout) == expected
