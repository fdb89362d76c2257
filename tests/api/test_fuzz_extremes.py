"""Every operation driven with schema-derived extreme values, on SQLite and on Postgres.

For each operation (declaring each kind of cluster and a reservation stream, then every event
on them) a valid base request is mutated one field at a time. The fields and their bounds come
from the operation's JSON schema in the app's own OpenAPI document, so a field added later is
fuzzed too: for a number its minimum and maximum, just outside both, 0, -0.0, 5e-324, 1e300,
2**63, a bool and a numeric string; for a string NUL, '/', and over-long. Path ids, cursors and
the Idempotency-Key header get their own odd values. The assertions, per request: never a 5xx;
a refusal is problem+json; a refusal changed nothing (the target's `state` and event log for
events, the number of clusters, events and idempotency rows for declarations). Deterministic:
no randomness at all, every value is listed.
"""

from __future__ import annotations

import copy
import math
import uuid
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import quote

import pytest
from sqlalchemy import text

from tests.conftest import admin_client
from tests.helpers import cluster_spec

TINY = 5e-324
ODD_NUMBERS: list[Any] = [0, -0.0, TINY, -TINY, 1e300, -1e300, 2**63, -(2**63) - 1, 2**64,
                          -1, 1.5, True, False, "5", None]
ODD_STRINGS = ["a\x00b", "\x00", "a/b", "../x", "x" * 1001, "", " ", "é", "a%00b"]
ODD_PATH_IDS = ["a/b", "a\x00b", "x" * 201, "%", "..", "é", " "]
ODD_CURSORS = ["\x00", "a\x00", "a" * 101, "-1", "9" * 30, "1e3", "é"]
ODD_LIMITS = [0, -1, 2**63, "x", 10**6, 1.5]
ODD_KEYS: list[Any] = ["", " ", "a" * 201, "a\tb", "ü".encode("latin-1"), "a/b"]


# ---- schema walking -------------------------------------------------------------------------

class Schemas:
    def __init__(self, openapi: dict[str, Any]):
        self.doc = openapi

    def resolve(self, s: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in s:
            node: Any = self.doc
            for part in s["$ref"].lstrip("#/").split("/"):
                node = node[part]
            s = node
        return s

    def branch(self, s: dict[str, Any], value: Any) -> dict[str, Any]:
        """The branch of a union that ``value`` is written in (by its ``kind`` or its type)."""
        s = self.resolve(s)
        options = s.get("anyOf") or s.get("oneOf")
        if not options:
            return s
        options = [self.resolve(o) for o in options if self.resolve(o).get("type") != "null"]
        for o in options:
            if isinstance(value, dict) and o.get("type") == "object":
                kind = self.resolve(o.get("properties", {}).get("kind", {}))
                kinds = kind.get("enum") or ([kind["const"]] if "const" in kind else None)
                if kinds is None and set(value) <= set(o.get("properties", {})) or \
                        kinds is not None and value.get("kind") in kinds:
                    return self.branch(o, value)
            if isinstance(value, (int, float)) and o.get("type") in ("number", "integer"):
                return o
        return self.branch(options[0], value)

    def leaves(self, s: dict[str, Any], value: Any, path: tuple = ()
               ) -> Iterator[tuple[tuple, dict[str, Any]]]:
        """(path, schema) of every number and string field, present in ``value`` or optional."""
        s = self.branch(s, value)
        kind = s.get("type")
        if kind in ("number", "integer", "string") and "enum" not in s and "const" not in s:
            yield path, s
        elif kind == "object":
            for name, sub in s.get("properties", {}).items():
                if name == "kind":
                    continue
                yield from self.leaves(sub, (value or {}).get(name), (*path, name))
            extra = s.get("additionalProperties")
            if isinstance(extra, dict) and isinstance(value, dict):
                for key, sub_value in value.items():
                    yield from self.leaves(extra, sub_value, (*path, key))
        elif kind == "array" and isinstance(value, list) and value:
            yield from self.leaves(s["items"], value[0], (*path, 0))


def odd_values(s: dict[str, Any]) -> list[Any]:
    if s.get("type") == "string":
        return ODD_STRINGS
    out = list(ODD_NUMBERS)
    for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        if key in s:
            b = s[key]
            out += [b, math.nextafter(b, -math.inf), math.nextafter(b, math.inf)]
            if s.get("type") == "integer" and isinstance(b, int):
                out += [b - 1, b + 1]
    seen, unique = set(), []
    for v in out:
        tag = (type(v), repr(v))
        if tag not in seen:
            seen.add(tag)
            unique.append(v)
    return unique


def mutated(body: dict[str, Any], path: tuple, value: Any) -> dict[str, Any]:
    out = copy.deepcopy(body)
    node: Any = out
    for part in path[:-1]:
        node = node.setdefault(part, {}) if isinstance(node, dict) else node[part]
    node[path[-1]] = value
    return out


# ---- the harness ----------------------------------------------------------------------------

class Fuzzer:
    def __init__(self, app, client):
        self.app, self.c = app, client
        self.schemas = Schemas(app.openapi())
        self.failures: list[str] = []
        self.requests = 0
        self.refused = 0

    def finish(self) -> None:
        # The figures docs/reliability.md quotes (`pytest -s` shows them).
        print(f"\nfuzz: {self.requests} requests, {self.refused} refused, "
              f"{len(self.failures)} failures")
        assert not self.failures, (f"{len(self.failures)} of {self.requests}:\n"
                                   + "\n".join(self.failures[:60]))

    def body_schema(self, path: str, method: str = "post") -> dict[str, Any]:
        op = self.schemas.doc["paths"][path][method]
        return op["requestBody"]["content"]["application/json"]["schema"]

    def counts(self) -> tuple[int, ...]:
        with self.app.state.ctx.db.connect() as conn:
            return tuple(conn.execute(text(f"SELECT count(*) FROM {t}")).scalar_one()
                         for t in ("clusters", "events", "idempotency_keys"))

    def target_view(self, state_url: str, events_url: str) -> Any:
        state = self.c.get(state_url)
        log = self.c.get(events_url, params={"limit": 1000})
        return state.status_code, state.json(), log.json()

    def check(self, label: str, send: Callable[[], Any], view: Callable[[], Any]) -> Any:
        before = view()
        r = send()
        self.requests += 1
        if r.status_code >= 500:
            self.failures.append(f"{label}: {r.status_code} {r.text[:300]}")
            return r
        if r.status_code >= 400:
            self.refused += 1
            if not r.headers.get("content-type", "").startswith("application/problem+json"):
                self.failures.append(f"{label}: {r.status_code} without problem+json")
            after = view()
            if after != before:
                self.failures.append(f"{label}: refused ({r.status_code}) but state changed")
        return r

    def fuzz_body(self, label: str, url: str, schema: dict[str, Any],
                  fresh: Callable[[], dict[str, Any]], view: Callable[[], Any],
                  accepted: Callable[[dict[str, Any], Any], None] = lambda b, r: None) -> None:
        for path, leaf in list(self.schemas.leaves(schema, fresh())):
            for value in odd_values(leaf):
                body = mutated(fresh(), path, value)
                r = self.check(f"{label} {'.'.join(map(str, path))}={value!r:.40}",
                               lambda: self.c.post(url, json=body), view)
                if r.status_code < 300:
                    accepted(body, r)


def _uid() -> str:
    return uuid.uuid4().hex[:12]


@pytest.fixture
def fuzzer(app) -> Iterator[Fuzzer]:
    with admin_client(app, raise_server_exceptions=False) as c:
        yield Fuzzer(app, c)


# ---- declarations ----------------------------------------------------------------------------

PLACEMENT_POLICIES = [
    {"kind": "dra", "reservation": {"slots": 2.0}},
    {"kind": "dra", "reservation": {"b": 0.5}},
    {"kind": "power_of_d", "d": 2},
    {"kind": "rms", "clock": "client", "clock_rate": 2.0, "mu": 1.0},
    {"kind": "first_fit_queue", "clock": "wall", "time_unit_seconds": 1.0},
]


def test_declarations_with_extreme_values(fuzzer):
    f = fuzzer
    for policy in PLACEMENT_POLICIES:
        f.fuzz_body(f"createCluster[{policy['kind']}]", "/v1/clusters",
                    f.body_schema("/v1/clusters"),
                    lambda policy=policy: cluster_spec(name=f"c-{_uid()}", policy=policy),
                    f.counts)
    f.fuzz_body("createCluster[moment]", "/v1/clusters", f.body_schema("/v1/clusters"),
                lambda: {"name": f"m-{_uid()}", "capacity_cores": 100, "sla": 0.01,
                         "policy": {"kind": "second_moment", "threshold": 0.01}}, f.counts)
    f.fuzz_body("createReservation", "/v1/reservations", f.body_schema("/v1/reservations"),
                lambda: {"name": f"r-{_uid()}", "resources": [{"name": "cpu", "cost": 1.0,
                                                               "epsilon": 0.1}],
                         "policy": {"kind": "thor"}, "initial": {"cpu": 1.0}}, f.counts)
    for key in ODD_KEYS:
        f.check(f"createCluster Idempotency-Key={key!r:.30}",
                lambda key=key: f.c.post("/v1/clusters", json=cluster_spec(name=f"k-{_uid()}"),
                                         headers={"Idempotency-Key": key}), f.counts)
    for cursor in ODD_CURSORS:
        for url in ("/v1/clusters", "/v1/reservations"):
            f.check(f"GET {url} cursor={cursor!r:.20}",
                    lambda url=url, cursor=cursor: f.c.get(url, params={"cursor": cursor}),
                    f.counts)
    f.finish()


# ---- events ---------------------------------------------------------------------------------

def _create(c, url: str, body: dict[str, Any]) -> str:
    r = c.post(url, json=body)
    assert r.status_code == 201, r.text
    return r.json()["id"]


def _common_reads(f: Fuzzer, base: str, view: Callable[[], Any], id_routes: list[str]) -> None:
    for cursor in ODD_CURSORS:
        f.check(f"GET {base}/events cursor={cursor!r:.20}",
                lambda cursor=cursor: f.c.get(f"{base}/events", params={"cursor": cursor}), view)
    for limit in ODD_LIMITS:
        f.check(f"GET {base}/events limit={limit!r:.20}",
                lambda limit=limit: f.c.get(f"{base}/events", params={"limit": limit}), view)
    for route in id_routes:
        for odd in ODD_PATH_IDS:
            f.check(f"GET {route} id={odd!r:.20}",
                    lambda route=route, odd=odd: f.c.get(route.format(quote(odd, safe=""))),
                    view)


def test_job_events_with_extreme_values(fuzzer):
    f = fuzzer
    for policy in PLACEMENT_POLICIES:
        cid = _create(f.c, "/v1/clusters", cluster_spec(name=f"c-{_uid()}", policy=policy))
        base = f"/v1/clusters/{cid}"

        def view(base: str = base) -> Any:
            return f.target_view(f"{base}/state", f"{base}/events")

        clock = {"at": 0.0}
        client_clock = policy.get("clock") == "client"

        def moved(body: dict[str, Any], r: Any, clock: dict = clock) -> None:
            answer = r.json()
            for t in (answer.get("at"), answer.get("now"), body.get("at"), body.get("until")):
                if isinstance(t, (int, float)) and not isinstance(t, bool):
                    clock["at"] = max(clock["at"], float(t))

        def arrival(clock: dict = clock, client_clock: bool = client_clock) -> dict[str, Any]:
            out = {"event_id": _uid(), "job_id": _uid(), "job_type": "small"}
            return {**out, "at": clock["at"]} if client_clock else out

        def departure(clock: dict = clock, client_clock: bool = client_clock) -> dict[str, Any]:
            out = {"event_id": _uid(), "job_id": _uid()}
            return {**out, "at": clock["at"]} if client_clock else out

        label = policy["kind"]
        f.fuzz_body(f"arrival[{label}]", f"{base}/arrivals",
                    f.body_schema("/v1/clusters/{cluster_id}/arrivals"), arrival, view, moved)
        f.fuzz_body(f"departure[{label}]", f"{base}/departures",
                    f.body_schema("/v1/clusters/{cluster_id}/departures"), departure, view,
                    moved)
        if not client_clock:
            f.fuzz_body(f"batch[{label}]", f"{base}/events:batch",
                        f.body_schema("/v1/clusters/{cluster_id}/events:batch"),
                        lambda: {"events": [{"kind": "arrival", **arrival()}]}, view)
        if "queue" in label or label == "rms":
            f.fuzz_body(f"tick[{label}]", f"{base}/tick",
                        f.body_schema("/v1/clusters/{cluster_id}/tick"),
                        lambda clock=clock, client_clock=client_clock:
                        {"until": clock["at"] + 1} if client_clock else {}, view, moved)
        for key in ODD_KEYS:
            f.check(f"arrival[{label}] Idempotency-Key={key!r:.30}",
                    lambda key=key, base=base, arrival=arrival: f.c.post(
                        f"{base}/arrivals", json={k: v for k, v in arrival().items()
                                                  if k != "event_id"},
                        headers={"Idempotency-Key": key}), view)
        _common_reads(f, base, view, [f"{base}/servers/{{}}", f"{base}/jobs/{{}}"])
    f.finish()


def test_moment_events_with_extreme_values(fuzzer):
    f = fuzzer
    # A declared threshold: a capacity the table does not hold would admit nothing until
    # its background calibration lands.
    cid = _create(f.c, "/v1/clusters", {"name": f"m-{_uid()}", "capacity_cores": 10_000_000,
                                        "sla": 0.01, "policy": {"kind": "first_moment",
                                                                "threshold": 7_000_000.0}})
    base = f"/v1/clusters/{cid}"

    def view() -> Any:
        return f.target_view(f"{base}/state", f"{base}/events")

    clock = {"at": 0.0}

    def moved(body: dict[str, Any], _r: Any) -> None:
        at = body.get("at")
        if isinstance(at, (int, float)) and not isinstance(at, bool):
            clock["at"] = max(clock["at"], float(at))

    r = f.c.post(f"{base}/deployments", json={"event_id": "d0", "deployment_id": "dep",
                                              "cores": 1000, "at": 0.0})
    assert r.status_code == 200 and r.json()["decision"] == "admitted", r.text
    deployments = "/v1/clusters/{cluster_id}/deployments"
    f.fuzz_body("deployment", f"{base}/deployments", f.body_schema(deployments),
                lambda: {"event_id": _uid(), "deployment_id": _uid(), "cores": 1,
                         "at": clock["at"]}, view, moved)
    for prior in ({"gamma": {"lambda": [TINY, TINY], "mu": [1e6, TINY], "sigma": [TINY, 1e6]}},
                  {"gamma": {"lambda": [1e300, 1.0], "mu": [1.0, 1.0], "sigma": [1.0, 1.0]}},
                  {"gamma": {"lambda": [-1, 1], "mu": [1, 1], "sigma": [1, 1]}},
                  {"observations": {"core_time": 1e300}}, {"observations": {"scaleouts": TINY}},
                  {"observations": {"core_deaths": float("1e308")}}, {"gamma": "x"}, []):
        f.check(f"deployment prior={prior!r:.60}", lambda prior=prior: f.c.post(
            f"{base}/deployments", json={"event_id": _uid(), "deployment_id": _uid(),
                                         "cores": 1, "at": clock["at"], "prior": prior}), view)
    for route in ("scale-outs", "scale-ins"):
        f.fuzz_body(route, f"{base}/deployments/dep/{route}",
                    f.body_schema(deployments + "/{deployment_id}/" + route),
                    lambda: {"event_id": _uid(), "cores": 1, "at": clock["at"]}, view, moved)
    for at in odd_values({"type": "number", "minimum": 0, "maximum": 1e9}):
        f.check(f"shutdown at={at!r:.30}", lambda at=at: f.c.delete(
            f"{base}/deployments/{_uid()}", params={"at": at, "event_id": _uid()}), view)
    for odd in ODD_PATH_IDS:
        seg = quote(odd, safe="")
        f.check(f"scale-out id={odd!r:.20}", lambda seg=seg: f.c.post(
            f"{base}/deployments/{seg}/scale-outs",
            json={"event_id": _uid(), "cores": 1, "at": clock["at"]}), view)
        f.check(f"deployment id={odd!r:.20}", lambda odd=odd: f.c.post(
            f"{base}/deployments", json={"event_id": _uid(), "deployment_id": odd, "cores": 1,
                                         "at": clock["at"]}), view)
    _common_reads(f, base, view, [f"{base}/deployments/{{}}"])
    f.finish()


@pytest.mark.parametrize("kind", ["quantile_tracking", "thor", "ftl", "percentile"])
def test_observations_with_extreme_values(fuzzer, kind):
    f = fuzzer
    rid = _create(f.c, "/v1/reservations", {
        "name": f"r-{_uid()}", "policy": {"kind": kind},
        "resources": [{"name": "cpu", "cost": 1.0, "epsilon": 0.1}]})
    base = f"/v1/reservations/{rid}"

    def view() -> Any:
        r = f.c.get(base)
        log = f.c.get(f"{base}/history", params={"limit": 1000})
        return r.status_code, r.json().get("state"), log.json()

    period = {"next": 0}

    def moved(_body: dict[str, Any], r: Any) -> None:
        period["next"] = r.json()["period"] + 1

    f.fuzz_body("observation", f"{base}/observations",
                f.body_schema("/v1/reservations/{reservation_id}/observations"),
                lambda: {"event_id": _uid(), "period": period["next"], "demand": {"cpu": 1.0}},
                view, moved)
    # Demand series that stress the estimator: zeros, constants, the extremes, alternating.
    for series in ([0.0] * 6, [TINY] * 6, [1e12] * 6, [0.0, 1e12] * 3, [1.0] * 6):
        for d in series:
            r = f.check(f"observation[{kind}] series demand={d!r}", lambda d=d: f.c.post(
                f"{base}/observations", json={"event_id": _uid(), "period": period["next"],
                                              "demand": {"cpu": d}}), view)
            if r.status_code < 300:
                moved({}, r)
    for cursor in ODD_CURSORS:
        f.check(f"history cursor={cursor!r:.20}",
                lambda cursor=cursor: f.c.get(f"{base}/history", params={"cursor": cursor}), view)
    f.finish()
