"""Every route of openapi/openapi.json driven from outside with hostile input, as an attacker or
a buggy client would: a live server (two workers, Postgres, authentication on, two owners),
restarted by SIGTERM and by SIGKILL part-way.

Asserted over the whole run:
- no answer is a 5xx, and no AdmissionReview answer hides one in ``response.status.code``;
- every 4xx is an ``application/problem+json`` document with a ``code``;
- a refused request leaves its cluster's log and version as they were;
- an id one route accepts (a job, a deployment, a pod's uid) is one the others take: it can be
  read back and can leave;
- another owner's clusters, streams and keys answer exactly as absent ones do, and ``/metrics``
  names no cluster;
- no API key appears in the server's log (access log at INFO included) or in a response header;
- every declaration is answered, and a fresh process after each restart holds every engine as
  the old one did (the same ``/state``).
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from tests.live import LiveServer

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

# Strings a hostile client puts where ids, names and quantities go.
HOSTILE_STRINGS = [
    "\ud800", "a\udfffb", "has space", "ü-\u202e", "\t", "\u202e", "x" * 201, "²", "٣",
    "..", ".", "", "\u200b", "🙂", "a/b", "%2e%2e", "1e999", "9" * 5000, "-1", "1e400",
    "1e308", "0x10", " 3", "3 ", "Infinity", "NaN", "3Ki ", "+.5", "1E+2M",
]
# Raw JSON text put where any value goes (not all of it is JSON a parser keeps).
HOSTILE_NUMBERS = [
    "1e999", "-1e999", "NaN", "Infinity", "-Infinity", "9" * 5000, "1e308", "1e400", "-1",
    "-0", "1e-400", "0.5", "true", '"5"', "null", "[]", "{}", "2147483648", "1e12",
]
PER_LEAF = 4          # hostile values tried per field (sampled, seeded), plus a lone surrogate
DECLARATION_S = 20.0  # generous: a loaded CI machine; the goal (5 s) is a benchmark's
SEED = 20261201


@dataclass
class Findings:
    server_errors: list[str] = field(default_factory=list)
    hidden_errors: list[str] = field(default_factory=list)
    not_problems: list[str] = field(default_factory=list)
    changed_on_refusal: list[str] = field(default_factory=list)
    id_mismatch: list[str] = field(default_factory=list)
    cross_owner: list[str] = field(default_factory=list)
    requests: int = 0

    def empty(self) -> bool:
        return not any((self.server_errors, self.hidden_errors, self.not_problems,
                        self.changed_on_refusal, self.id_mismatch, self.cross_owner))


@dataclass
class Target:
    """One cluster (or stream) of owner A, with a valid body per operation it takes."""

    kind: str             # "placement", "dra", "queue", "queue_client", "moment", "stream"
    id: str
    bodies: dict[str, Any]


class Harness:
    def __init__(self, server: LiveServer, keys: dict[str, str]):
        self.server, self.keys = server, keys
        self.found = Findings()
        self.rng = random.Random(SEED)
        self.http = httpx.Client(base_url=server.url, timeout=60)
        self._answered = time.monotonic()

    # -- sending and checking -------------------------------------------------------------
    def send(self, method: str, path: str, key: str | None, content: str | None = None,
             headers: dict[str, str] | None = None, what: str = "") -> httpx.Response:
        h = {"content-type": "application/json"} if content is not None else {}
        if key is not None:
            h["Authorization"] = f"Bearer {key}"
        # Raw bytes, as a hostile client sends them: latin-1 where it can (what servers decode
        # header bytes as), else UTF-8.
        h.update({k: _header_bytes(v) for k, v in (headers or {}).items()})
        body = None if content is None else content.encode("utf-8", "surrogatepass")
        self.found.requests += 1
        logged = self._log_size()
        try:
            r = self.http.request(method, path, content=body, headers=h)
        except httpx.TransportError as exc:  # a dropped connection is an answer too
            # With what the server logged meanwhile and how long the connection had been idle,
            # so a finding says whether a worker died, raised, or the connection timed out.
            idle = time.monotonic() - self._answered
            self.found.server_errors.append(
                f"{method} {path[:120]} {what}: {exc!r}; idle {idle:.1f} s before; server log "
                f"meanwhile: {self._log_since(logged)[-1500:]!r}")
            self.reconnect()
            r = self.http.request(method, path, content=body, headers=h)
        self._answered = time.monotonic()
        self._check(r, f"{method} {path[:120]} {what}")
        return r

    def _log_size(self) -> int:
        try:
            return self.server.log_path.stat().st_size
        except OSError:
            return 0

    def _log_since(self, offset: int) -> str:
        try:
            with self.server.log_path.open("rb") as f:
                f.seek(offset)
                return f.read().decode(errors="replace")
        except OSError as exc:
            return f"(unreadable: {exc})"

    def reconnect(self) -> None:
        self.http.close()
        self.http = httpx.Client(base_url=self.server.url, timeout=60)

    def _check(self, r: httpx.Response, label: str) -> None:
        for name, value in r.headers.items():
            if any(k in value for k in self.keys.values()):
                self.found.server_errors.append(f"{label}: a key in header {name}")
        if r.status_code >= 500:
            self.found.server_errors.append(f"{label}: {r.status_code} {r.text[:200]}")
            return
        if r.status_code >= 400:
            ctype = r.headers.get("content-type", "")
            ok = ctype.startswith("application/problem+json")
            if ok:
                try:
                    ok = isinstance(r.json().get("code"), str)
                except ValueError:
                    ok = False
            if not ok:
                self.found.not_problems.append(f"{label}: {r.status_code} {ctype} "
                                               f"{r.text[:120]}")
            return
        if "/kubernetes/" in label and label.split()[1].endswith("/admission"):
            code = ((r.json().get("response") or {}).get("status") or {}).get("code", 0)
            if code >= 500:
                self.found.hidden_errors.append(f"{label}: status.code {code} "
                                                f"{r.text[:200]}")

    def signature(self, target: Target) -> Any:
        """What a refusal must leave as it was: the log's non-tick entries (a wall-clock
        queue's ticker logs ticks of its own meanwhile) and, for a stream, its history."""
        key = self.keys["a_admin"]
        if target.kind == "stream":
            return tuple((i["period"], i["event_id"]) for i in self._all(
                f"/v1/reservations/{target.id}/history", key))
        return tuple((e["seq"], e["event_id"], e["decision"]) for e in self._all(
            f"/v1/clusters/{target.id}/events", key) if e["kind"] != "tick")

    def _all(self, path: str, key: str) -> Iterator[dict[str, Any]]:
        cursor = None
        while True:
            params = {"limit": 500, **({"cursor": cursor} if cursor else {})}
            try:
                r = self.http.get(path, params=params, headers={"Authorization": f"Bearer {key}"})
            except httpx.TransportError as exc:
                self.found.server_errors.append(f"GET {path}: {exc!r}")
                self.reconnect()
                r = self.http.get(path, params=params, headers={"Authorization": f"Bearer {key}"})
            if r.status_code != 200:  # a log that cannot be read back is a finding too
                self.found.server_errors.append(f"GET {path}: {r.status_code} {r.text[:120]}")
                yield {"seq": -1, "event_id": "unreadable", "decision": "", "kind": "",
                       "period": -1}
                return
            page = r.json()
            yield from page["items"]
            cursor = page.get("next_cursor")
            if not cursor:
                return

    def hostile(self, target: Target, method: str, path: str, body: Any, key: str,
                op: str) -> None:
        """``body`` with each of its leaves replaced in turn by hostile values, plus whole-body
        mutations; every refusal checked against the log."""
        for text, what in self._mutations(body):
            before = self.signature(target)
            r = self.send(method, path, key, text, what=f"{op} {what}")
            if 400 <= r.status_code < 500 and self.signature(target) != before:
                self.found.changed_on_refusal.append(f"{op} {what}: {r.status_code} "
                                                     f"{r.text[:160]}")
            elif r.status_code < 300:
                self.follow_up(target, op, r, text)

    def _mutations(self, body: Any) -> Iterator[tuple[str, str]]:
        marker = "@@hostile@@"
        for path in _leaves(body):
            values = [json.dumps("\ud800")] + self.rng.sample(
                [json.dumps(s) for s in HOSTILE_STRINGS] + HOSTILE_NUMBERS, PER_LEAF)
            for raw in values:
                text = json.dumps(_replace(body, path, marker)).replace(json.dumps(marker), raw)
                yield text, f"{'.'.join(map(str, path))}={raw[:24]!r}"
        if isinstance(body, dict) and body:
            first = next(iter(body))
            dup = json.dumps(body)[:-1] + f", {json.dumps(first)}: {json.dumps(body[first])}}}"
            yield dup, f"duplicate key {first}"
            yield json.dumps({**body, "zz_unknown": 1}), "unknown field"
        yield "[" * 800 + "]" * 800, "800-deep list"
        yield json.dumps(body)[:-1], "truncated"
        yield json.dumps(_nest(body, 800)), "800-deep object"

    def follow_up(self, target: Target, op: str, r: httpx.Response, text: str) -> None:
        """An id the route accepted must be one the read and leave routes take."""
        try:
            sent, answer = json.loads(text), r.json()
        except ValueError:
            return
        if not isinstance(sent, dict) or not isinstance(answer, dict) or answer.get("replayed"):
            return
        if op == "postArrival" and answer.get("decision") in ("placed", "queued", "started"):
            self._leaves_again(target, sent.get("job_id"))
        elif op.startswith("kubeFilter") and target.kind == "queue":
            self._leaves_again(target, (((sent.get("Pod") or {}).get("metadata")) or {}).get("uid"))
        elif op == "postDeployment" and answer.get("decision") == "admitted":
            did = sent.get("deployment_id")
            base = f"/v1/clusters/{target.id}/deployments/{quote(str(did), safe='')}"
            got = self.send("GET", base, self.keys["a_admin"], what="read back")
            gone = self.send("DELETE", f"{base}?at={float(sent.get('at', 0))}&event_id="
                             f"leave-{uuid.uuid4().hex}", self.keys["a_admin"], what="leave")
            if got.status_code != 200 or gone.status_code >= 300:
                self.found.id_mismatch.append(f"deployment {str(did)[:40]!r}: read "
                                              f"{got.status_code}, shut down {gone.status_code}")

    def _leaves_again(self, target: Target, job_id: Any) -> None:
        """A job the cluster holds can be read (queues) and can leave, by the id it came with."""
        if not isinstance(job_id, str):
            return
        base, key = f"/v1/clusters/{target.id}", self.keys["a_admin"]
        if target.kind in ("queue", "queue_client"):
            got = self.send("GET", f"{base}/jobs/{quote(job_id, safe='')}", key, what="read")
            if got.status_code != 200:
                self.found.id_mismatch.append(f"job {job_id[:40]!r}: read {got.status_code}")
                return
            if got.json().get("status") not in ("queued", "running"):
                return
        at = {"at": float(self.found.requests)} if target.kind == "queue_client" else {}
        left = self.send("POST", f"{base}/departures", key, json.dumps(
            {"event_id": f"leave-{uuid.uuid4().hex}", "job_id": job_id, **at}), what="leave")
        if left.status_code >= 300:
            self.found.id_mismatch.append(f"job {job_id[:40]!r}: leave {left.status_code} "
                                          f"{left.text[:100]}")

    # -- owners ---------------------------------------------------------------------------
    def cross_owner(self, method: str, template: str, ids: dict[str, str],
                    body: Any = None) -> None:
        """Owner B on A's ids and on random ids: the same answer, ids aside."""
        def answer(values: dict[str, str]) -> tuple[int, str, str]:
            path = template.format(**values)
            r = self.send(method, path, self.keys["b_admin"],
                          None if body is None else json.dumps(body), what="as owner B")
            try:
                doc = r.json()
            except ValueError:
                doc = {}
            detail = str(doc.get("detail", "")) if isinstance(doc, dict) else ""
            for v in values.values():
                detail = detail.replace(v, "<id>")
            return r.status_code, str(doc.get("code", "")) if isinstance(doc, dict) else "", \
                detail
        theirs = answer(ids)
        absent = answer({k: str(uuid.uuid4()) for k in ids})
        if theirs != absent:
            self.found.cross_owner.append(f"{method} {template}: {theirs} vs absent {absent}")


def _header_bytes(value: str) -> bytes:
    try:
        return value.encode("latin-1")
    except UnicodeEncodeError:
        return value.encode("utf-8")


def _leaves(value: Any, at: tuple = ()) -> Iterator[tuple]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _leaves(v, (*at, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _leaves(v, (*at, i))
    else:
        yield at


def _replace(value: Any, path: tuple, new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {k: _replace(v, rest, new) if k == head else v for k, v in value.items()}
    return [_replace(v, rest, new) if i == head else v for i, v in enumerate(value)]


def _nest(body: Any, depth: int) -> Any:
    inner: Any = 1
    for _ in range(depth):
        inner = {"a": inner}
    if isinstance(body, dict) and body:
        return {**body, next(iter(body)): inner}
    return inner


# -- the clusters owner A declares -------------------------------------------------------------
POOL = {"name": "m5", "count": 4, "capacity": {"cpu": 16, "memory": 64}}
TYPES = [{"name": "small", "demand": {"cpu": 2, "memory": 4}, "reward": 1},
         {"name": "large", "demand": {"cpu": 8, "memory": 32}, "reward": 5}]


def _job_cluster(name: str, policy: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "dimensions": ["cpu", "memory"], "server_pools": [POOL],
            "job_types": TYPES, "policy": policy}


def _pod(uid: str, cpu: str = "2", memory: str = "4Gi") -> dict[str, Any]:
    return {"metadata": {"name": "web-1", "namespace": "shop", "uid": uid},
            "spec": {"containers": [{"name": "web", "image": "nginx", "resources": {
                "requests": {"cpu": cpu, "memory": memory}}}]}}


def _review(uid: str, op: str = "CREATE", replicas: int = 2, cpu: str = "2",
            dry: bool = False) -> dict[str, Any]:
    obj = {"metadata": {"name": "web", "namespace": "shop", "uid": f"dep-{uid}"},
           "spec": {"replicas": replicas, "template": {"spec": {"containers": [
               {"name": "web", "resources": {"requests": {"cpu": cpu}}}]}}}}
    return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
            "request": {"uid": uid, "kind": {"group": "apps", "version": "v1",
                                             "kind": "Deployment"},
                        "resource": {"group": "apps", "version": "v1",
                                     "resource": "deployments"},
                        "operation": op, "namespace": "shop", "name": "web",
                        "object": obj, "dryRun": dry}}


def _declare(h: Harness) -> dict[str, Target]:
    key = h.keys["a_admin"]
    specs = {
        "placement": _job_cluster("hx-first-fit", {"kind": "first_fit"}),
        "dra": _job_cluster("hx-dra", {"kind": "dra", "reservation": {"slots": 1}}),
        "queue": _job_cluster("hx-rms", {"kind": "rms"}),
        "queue_client": _job_cluster("hx-bfq", {"kind": "best_fit_queue",
                                                "clock": "client"}),
        "moment": {"name": "hx-moment", "capacity_cores": 2000, "sla": 1e-4,
                   "policy": {"kind": "second_moment"}},
    }
    targets = {}
    for kind, spec in specs.items():
        r = h.send("POST", "/v1/clusters", key, json.dumps(spec), what=kind)
        assert r.status_code == 201, r.text
        targets[kind] = Target(kind, r.json()["id"], {})
    r = h.send("POST", "/v1/reservations", key, json.dumps(
        {"name": "hx-stream", "resources": [{"name": "cpu", "cost": 1, "epsilon": 0.05}],
         "initial": {"cpu": 10}}))
    assert r.status_code == 201, r.text
    targets["stream"] = Target("stream", r.json()["id"], {})
    return targets


def _valid_bodies(t: Target, n: int) -> dict[str, Any]:
    """A valid body per operation this target takes, fresh ids each call (``n``)."""
    at = {"at": float(n)} if t.kind == "queue_client" else {}
    bodies: dict[str, Any] = {}
    if t.kind in ("placement", "dra", "queue", "queue_client"):
        bodies["postArrival"] = {"event_id": f"a{n}", "job_id": f"j{n}", "job_type": "small",
                                 **at}
        bodies["postDeparture"] = {"event_id": f"d{n}", "job_id": "j0", **at}
        bodies["postEventBatch"] = {"events": [
            {"kind": "arrival", "event_id": f"b{n}", "job_id": f"bj{n}", "job_type": "small",
             **at}]}
        bodies["updateCluster"] = {"name": f"renamed-{t.kind}-{n}".replace("_", "-")}
    if t.kind in ("placement", "dra", "queue"):
        bodies["kubeFilter"] = {"Pod": _pod(f"pod-{n}"), "NodeNames": ["m5-0", "m5-1"]}
        bodies["kubePrioritize"] = {"Pod": _pod(f"pod-{n}"),
                                    "Nodes": {"items": [{"metadata": {"name": "m5-0"}}]}}
        bodies["kubeBind"] = {"PodName": "web-1", "PodNamespace": "shop",
                              "PodUID": f"pod-{n}", "Node": "m5-0"}
    if t.kind in ("queue", "queue_client"):
        bodies["postTick"] = {"until": float(n)} if t.kind == "queue_client" else {}
    if t.kind == "moment":
        bodies["postDeployment"] = {"event_id": f"m{n}", "deployment_id": f"dep{n}",
                                    "cores": 2, "at": float(n)}
        bodies["postScaleOut"] = {"event_id": f"so{n}", "cores": 1, "at": float(n)}
        bodies["postScaleIn"] = {"event_id": f"si{n}", "cores": 1, "at": float(n)}
        bodies["kubeAdmission"] = _review(f"rev-{n}")
    if t.kind == "stream":
        bodies["postObservation"] = {"event_id": f"o{n}", "period": n, "demand": {"cpu": 4.0}}
    return bodies


ROUTES = {  # operation id -> (method, path under the target)
    "postArrival": ("POST", "/v1/clusters/{id}/arrivals"),
    "postDeparture": ("POST", "/v1/clusters/{id}/departures"),
    "postEventBatch": ("POST", "/v1/clusters/{id}/events:batch"),
    "updateCluster": ("PATCH", "/v1/clusters/{id}"),
    "postTick": ("POST", "/v1/clusters/{id}/tick"),
    "kubeFilter": ("POST", "/v1/clusters/{id}/kubernetes/extender/filter"),
    "kubePrioritize": ("POST", "/v1/clusters/{id}/kubernetes/extender/prioritize"),
    "kubeBind": ("POST", "/v1/clusters/{id}/kubernetes/extender/bind"),
    "kubeAdmission": ("POST", "/v1/clusters/{id}/kubernetes/admission"),
    "postDeployment": ("POST", "/v1/clusters/{id}/deployments"),
    "postScaleOut": ("POST", "/v1/clusters/{id}/deployments/dep0/scale-outs"),
    "postScaleIn": ("POST", "/v1/clusters/{id}/deployments/dep0/scale-ins"),
    "postObservation": ("POST", "/v1/reservations/{id}/observations"),
}
KEYED = {"kubeFilter": "extender/filter", "kubePrioritize": "extender/prioritize",
         "kubeBind": "extender/bind", "kubeAdmission": "admission"}


def _seed(h: Harness, targets: dict[str, Target]) -> None:
    """Something in every log for the routes to act on: job j0, deployment dep0, period 0."""
    key = h.keys["a_admin"]
    for t in targets.values():
        bodies = _valid_bodies(t, 0)
        for op in ("postArrival", "postDeployment", "postObservation"):
            if op in bodies:
                method, path = ROUTES[op]
                r = h.send(method, path.format(id=t.id), key, json.dumps(bodies[op]))
                assert r.status_code in (200, 201, 202), r.text
    r = h.send("POST", f"/v1/clusters/{targets['moment'].id}/deployments/dep0/scale-outs", key,
               json.dumps({"event_id": "so-seed", "cores": 1, "at": 0.5}))
    assert r.status_code == 200, r.text


def _hostile_pass(h: Harness, targets: dict[str, Target], n: int) -> None:
    a_admin, a_write = h.keys["a_admin"], h.keys["a_write"]
    for t in targets.values():
        for op, body in _valid_bodies(t, n).items():
            method, path = ROUTES[op]
            h.hostile(t, method, path.format(id=t.id), body, a_admin, op)
            if op in KEYED:
                keyed = f"/v1/kubernetes/{a_write}/clusters/{t.id}/{KEYED[op]}"
                h.hostile(t, "POST", keyed, body, None, op + "Keyed")
        if t.kind != "stream":  # key-in-path requests refused before or without routing
            keyed = f"/v1/kubernetes/{a_write}/clusters/{t.id}"
            for method, tail, content in (
                    ("POST", "/extender/filter", "x" * 1_100_000), ("POST", "/extender/%00", "{}"),
                    ("POST", "/extender/filter/", "{}"), ("GET", "/extender/filter", None),
                    ("POST", "/../../clusters", "{}"), ("POST", "/nowhere", "{}"),
                    ("POST", "/admission?timeout=%00", "{}")):
                h.send(method, keyed + tail, None, content, what="keyed, refused early")
        # Hostile path segments and headers on the routes that take them.
        base = "/v1/reservations" if t.kind == "stream" else "/v1/clusters"
        for s in HOSTILE_STRINGS[:12]:
            seg = quote(s.encode("utf-8", "surrogatepass"), safe="")
            sub = ("history", "hindsight") if t.kind == "stream" else \
                ("jobs/" + seg, "servers/" + seg, "deployments/" + seg, "state", "events")
            for tail in sub:
                h.send("GET", f"{base}/{t.id}/{tail}", a_admin, what="hostile segment")
            h.send("GET", f"{base}/{seg}", a_admin, what="hostile id")
            h.send("GET", f"/v1/kubernetes/{seg}/clusters/{t.id}/extender/filter", None,
                   what="hostile key segment")
        for tag in ('"²"', '"٣"', '"1"x', 'W/"1"', '"' + "9" * 5000 + '"', "*, \"1\"", "",
                    '"-1"', '"1e3"', '" 1"'):
            before = h.signature(t)
            name = f"hx-{t.kind.replace('_', '-')}"
            r = h.send("PATCH", f"{base}/{t.id}", a_admin, json.dumps({"name": name}),
                       headers={"If-Match": tag}, what=f"If-Match {tag[:12]!r}")
            if r.status_code >= 400 and h.signature(t) != before:
                h.found.changed_on_refusal.append(f"If-Match {tag[:12]!r}")
        for q in ("limit=²", "limit=1e999", "cursor=%ED%A0%80", "cursor=%ff%fe", "limit=-1",
                  "order=sideways", "job_id=%00"):
            h.send("GET", f"{base}/{t.id}/{'history' if t.kind == 'stream' else 'events'}?{q}",
                   a_admin, what="hostile query")


def _cross_owner(h: Harness, targets: dict[str, Target]) -> None:
    ids = {k: t.id for k, t in targets.items()}
    reads = ["", "/state", "/events", "/jobs", "/jobs/j0", "/servers", "/servers/m5-0",
             "/decisions"]
    for kind in ("placement", "dra", "queue", "queue_client"):
        for tail in reads:
            h.cross_owner("GET", "/v1/clusters/{id}" + tail, {"id": ids[kind]})
        for op, body in _valid_bodies(targets[kind], 900).items():
            method, path = ROUTES[op]
            h.cross_owner(method, path, {"id": ids[kind]}, body)
    for tail in ("", "/state", "/events", "/deployments/dep0"):
        h.cross_owner("GET", "/v1/clusters/{id}" + tail, {"id": ids["moment"]})
    h.cross_owner("DELETE", "/v1/clusters/{id}/deployments/dep0?at=1", {"id": ids["moment"]})
    for op, body in _valid_bodies(targets["moment"], 900).items():
        method, path = ROUTES[op]
        h.cross_owner(method, path, {"id": ids["moment"]}, body)
    for tail in ("", "/history", "/hindsight"):
        h.cross_owner("GET", "/v1/reservations/{id}" + tail, {"id": ids["stream"]})
    h.cross_owner("POST", ROUTES["postObservation"][1], {"id": ids["stream"]},
                  _valid_bodies(targets["stream"], 900)["postObservation"])
    for method in ("PATCH", "DELETE"):
        h.cross_owner(method, "/v1/clusters/{id}", {"id": ids["placement"]},
                      {"name": "stolen"} if method == "PATCH" else None)
        h.cross_owner(method, "/v1/reservations/{id}", {"id": ids["stream"]},
                      {"name": "stolen"} if method == "PATCH" else None)
    h.cross_owner("DELETE", "/v1/keys/{id}", {"id": h.keys["a_write_id"]})
    metrics = h.http.get("/metrics").text
    leaked = [k for k, v in ids.items() if v in metrics]
    if leaked:
        h.found.cross_owner.append(f"/metrics without a key names clusters {leaked}")


def _declarations(h: Harness) -> list[tuple[str, float, int]]:
    """Declarations whose derivation could run away, each answered (any status) in time."""
    key = h.keys["a_admin"]
    many = [{"name": f"t{i}", "demand": {"cpu": 1 + i % 7, "memory": 1 + i % 5},
             "reward": 1 + i} for i in range(64)]
    out = []
    for name, types in (("dra-16", many[:16]), ("dra-32", many[:32]), ("dra-64", many)):
        spec = {"name": f"hx-{name}", "dimensions": ["cpu", "memory"],
                "server_pools": [{"name": "p", "count": 10, "capacity": {"cpu": 64,
                                                                         "memory": 64}}],
                "job_types": types, "policy": {"kind": "dra"}}
        started = time.monotonic()
        r = h.send("POST", "/v1/clusters", key, json.dumps(spec), what=name)
        out.append((name, time.monotonic() - started, r.status_code))
    return out


def _states(h: Harness, targets: dict[str, Target]) -> dict[str, Any]:
    """What a restarted process must rebuild identically (the clocked queue excluded: its
    ticker moves it between reads)."""
    key = h.keys["a_admin"]
    out = {}
    for k, t in targets.items():
        if k == "queue":
            continue
        path = f"/v1/reservations/{t.id}" if k == "stream" else f"/v1/clusters/{t.id}/state"
        r = h.http.get(path, headers={"Authorization": f"Bearer {key}"})
        assert r.status_code == 200, r.text
        doc = r.json()
        doc.pop("updated_at", None)
        out[k] = doc
    return out


def _keys(database_url: str) -> dict[str, str]:
    from app.config import Settings
    from app.service.auth import create_key
    from app.service.context import ServiceContext

    ctx = ServiceContext.from_settings(Settings(database_url=database_url))
    try:
        a = create_key(ctx, "acme", ["admin"])
        b = create_key(ctx, "globex", ["admin"])
        return {"a_admin": a["key"], "b_admin": b["key"], "a_admin_id": a["id"]}
    finally:
        ctx.close()


def _limited_key(database_url: str, names: list[str]) -> dict[str, str]:
    from app.config import Settings
    from app.service.auth import create_key
    from app.service.context import ServiceContext

    ctx = ServiceContext.from_settings(Settings(database_url=database_url))
    try:
        w = create_key(ctx, "acme", ["write"], clusters=names)
        return {"a_write": w["key"], "a_write_id": w["id"]}
    finally:
        ctx.close()


def test_outside_harness(postgres_url):
    env = {"HEADROOM_LOG_LEVEL": "info"}
    args = ("--no-migrate",)
    logs: list[str] = []
    keys = _keys(postgres_url)
    server = LiveServer(postgres_url, workers=2, extra_args=args, env=env).__enter__()
    try:
        h = Harness(server, keys)
        targets = _declare(h)
        keys.update(_limited_key(postgres_url, [n for n in (
            "hx-first-fit", "hx-dra", "hx-rms", "hx-moment")]))
        h.keys = keys
        _seed(h, targets)
        _hostile_pass(h, targets, 1)
        declared = _declarations(h)
        before = _states(h, targets)

        # SIGTERM: a clean restart.
        h.http.close()
        server.__exit__()
        logs.append(server.log_path.read_text(errors="replace"))
        server = LiveServer(postgres_url, workers=2, extra_args=args, env=env).__enter__()
        h.server = server
        h.reconnect()
        assert _states(h, targets) == before, "a fresh process rebuilt another state"
        _hostile_pass(h, targets, 2)
        _cross_owner(h, targets)
        before = _states(h, targets)

        # SIGKILL: every process of the server at once.
        h.http.close()
        os.killpg(server.proc.pid, signal.SIGKILL)
        server.proc.wait()
        server._log.close()
        logs.append(server.log_path.read_text(errors="replace"))
        server = LiveServer(postgres_url, workers=2, extra_args=args, env=env).__enter__()
        h.server = server
        h.reconnect()
        assert _states(h, targets) == before, "a fresh process rebuilt another state"
        _hostile_pass(h, targets, 3)
    finally:
        h.http.close()
        server.__exit__()
        logs.append(server.log_path.read_text(errors="replace"))

    secrets = [v for k, v in keys.items() if not k.endswith("_id")]
    in_logs = sum(line.count(s) for line in logs for s in secrets)
    f = h.found
    # A worker the supervisor found dead or hung, or an exception past the app's handlers,
    # drops requests on the floor: a finding even when the resend was answered.
    f.server_errors += [line[:300] for line in "".join(logs).splitlines()
                        if re.search(r"Child process \[\d+\] died|Traceback|Exception in ASGI", line)]
    report = (f"{f.requests} requests; declarations {declared}; 5xx {len(f.server_errors)}, "
              f"hidden 5xx {len(f.hidden_errors)}, not problem+json {len(f.not_problems)}, "
              f"changed on refusal {len(f.changed_on_refusal)}, ids {len(f.id_mismatch)}, "
              f"cross-owner {len(f.cross_owner)}, keys in logs {in_logs}")
    print("\n" + report)
    assert f.empty() and in_logs == 0, report + "\n" + json.dumps(
        {k: v[:8] for k, v in vars(f).items() if isinstance(v, list) and v}, indent=1)
    assert all(seconds < DECLARATION_S for _n, seconds, _s in declared), declared
    assert re.search(r'"msg": "request".*"status": 4\d\d', "".join(logs)), "no access log captured"
