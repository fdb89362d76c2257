"""Request limits: requests per second of each API key and of each owner, and how many
expensive requests an owner has in flight, each per process (docs/operations.md, "Request
limits"). A refusal is ``429`` with ``Retry-After`` (seconds) and a problem document.

A raw ASGI layer, inside the request-context middleware (so a refusal has its request id,
access-log line and request metrics) and before routing: a refused request costs a header
read, a SHA-256, a cache lookup and a little arithmetic, with no routing, no JSON parsing, no
thread hand-off and no database. A key's principal comes from the process's AuthCache, as it
does in the route's own dependency; the first request of a key per HEADROOM_AUTH_CACHE_SECONDS
reads it from the database, here instead of there. The outcome is kept in the request's scope
(``authenticated``), so a key is checked once per request whoever asks.

Limits are by who asks: the key's id and its owner, which are known once the key is
authenticated. A request with no key or a bad one is counted nowhere, so nobody can spend
another owner's budget; its 401 costs what it did before.

Each process enforces the full numbers on its own requests, with no shared store: a database
round trip per request would cost more than most decisions do, and what a limit protects is a
process's own threads and CPU. An owner's ceiling over a deployment is each number times the
worker processes serving it. All state lives on the event loop's thread (ASGI calls run
there), so none of it takes a lock.
"""

from __future__ import annotations

import json
import logging
import math
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from fastapi.routing import iter_route_contexts
from pyrate_limiter import GCRA, Duration, Rate

from app.api.middleware import replay
from app.api.problems import problem
from app.errors import ConcurrencyLimited, RateLimited
from app.metrics import Metrics
from app.service.auth import AuthContext, Principal, authenticate

log = logging.getLogger("headroom.limits")

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]

# Where the outcome of this request's authentication is kept in its ASGI scope.
_AUTHENTICATED = "headroom.authenticated"
# Keys and owners whose rate state a process keeps; past this it starts afresh (every budget
# full again), which only real keys can cause: a bad key is never counted.
MAX_TRACKED = 10_000
# Seconds between two log lines about one key's (or owner's) refusals by one limit.
LOG_EVERY = 60.0

# The expensive requests: a declaration builds and checks an engine (up to
# HEADROOM_MAX_SERVERS servers), a batch decides up to HEADROOM_MAX_BATCH_EVENTS events in one
# transaction, the extender's filter and prioritize dry-run a pod over every node named.
_CLUSTER = r"/v1/clusters/[^/]+"
_KUBERNETES = r"/v1/(?:clusters/[^/]+/kubernetes|kubernetes/[^/]+/clusters/[^/]+)"
# A what-if's start declares its alternative (the advisor: every candidate of the family).
_EXPENSIVE = re.compile(rf"/v1/clusters|/v1/reservations|{_CLUSTER}/events:batch"
                        rf"|{_KUBERNETES}/extender/(?:filter|prioritize)"
                        rf"|(?:{_CLUSTER}|/v1/reservations/[^/]+)/what-if")
# Expensive when the body asks for a dry run: ``dry_run`` at the top, or an AdmissionReview's
# ``request.dryRun``.
_DRY_RUN_FIELD = re.compile(rf"{_CLUSTER}/(?:arrivals|deployments)")
_ADMISSION = re.compile(rf"{_KUBERNETES}/admission")


class RequestLimits:
    """The limits of one process and what they have counted.

    ``key_rate`` and ``owner_rate`` are requests per second, with bursts of as many after a
    quiet second (GCRA, pyrate-limiter's, over this process's own state); ``owner_in_flight``
    is expensive requests at once. 0 turns a limit off. ``clock`` gives seconds (monotonic);
    tests pass their own.
    """

    def __init__(self, key_rate: int, owner_rate: int, owner_in_flight: int,
                 clock: Callable[[], float] = time.monotonic):
        self.key_rate, self.owner_rate, self.owner_in_flight = key_rate, owner_rate, \
            owner_in_flight
        self.clock = clock
        self._keys = _Rate(key_rate)
        self._owners = _Rate(owner_rate)
        self._in_flight: dict[str, int] = {}
        # When each (limit, key id or owner) last had a refusal logged: at most one a minute.
        self._logged: dict[tuple[str, str], float] = {}

    @property
    def on(self) -> bool:
        return bool(self.key_rate or self.owner_rate or self.owner_in_flight)

    def admit(self, principal: Principal, expensive: bool) -> Refusal | None:
        """None, with the request counted (and, if ``expensive``, in flight until ``leave``),
        or the refusal to answer with; a refused request is counted nowhere, except against
        its key when its owner's budget is what refused it."""
        owner = principal.owner
        if expensive and self.owner_in_flight and \
                self._in_flight.get(owner, 0) >= self.owner_in_flight:
            return self._refused("owner_concurrency", owner, ConcurrencyLimited(
                f"owner {owner!r} already has {self.owner_in_flight} expensive requests "
                "(declarations, dry runs, batches, extender filter and prioritize) in flight "
                "on this process; retry once one has been answered", 1))
        now_ms = int(self.clock() * 1000)
        # The key first: a key over its own limit then spends nothing of its owner's budget,
        # which its owner's other keys share.
        wait = self._keys.spend(principal.key_id, now_ms)
        if wait is not None:
            return self._refused("key_rate", principal.key_id, RateLimited(
                f"API key {principal.key_id} may send {self.key_rate} requests per second to "
                f"each process; retry after {wait} s", wait))
        wait = self._owners.spend(owner, now_ms)
        if wait is not None:
            return self._refused("owner_rate", owner, RateLimited(
                f"the keys of owner {owner!r} may send {self.owner_rate} requests per second "
                f"to each process together; retry after {wait} s", wait))
        if expensive and self.owner_in_flight:
            self._in_flight[owner] = self._in_flight.get(owner, 0) + 1
        return None

    def leave(self, principal: Principal, expensive: bool) -> None:
        """An admitted request has been answered."""
        if expensive and self.owner_in_flight:
            left = self._in_flight[principal.owner] - 1
            if left:
                self._in_flight[principal.owner] = left
            else:
                del self._in_flight[principal.owner]

    def in_flight(self, owner: str) -> int:
        return self._in_flight.get(owner, 0)

    def _refused(self, reason: str, who: str, error: RateLimited) -> Refusal:
        now = self.clock()
        if now - self._logged.get((reason, who), -LOG_EVERY) >= LOG_EVERY:
            if len(self._logged) >= MAX_TRACKED:
                self._logged.clear()
            self._logged[(reason, who)] = now
            # The key's id or the owner, never the key: it names whom to talk to.
            log.warning("request limit reached", extra={"reason": reason, "who": who})
        return Refusal(reason, error)


@dataclass(frozen=True)
class Refusal:
    """``reason``: the limit that refused, as the refused-requests metric labels it."""

    reason: str
    error: RateLimited


class _Rate:
    """One rate limit's GCRA state per key id (or owner)."""

    _GCRA = GCRA()

    def __init__(self, per_second: int):
        self.on = per_second > 0
        self.rates = [Rate(per_second, Duration.SECOND, burst=per_second)] if self.on else []
        self.states: dict[str, tuple[float, ...]] = {}

    def spend(self, who: str, now_ms: int) -> int | None:
        """None if one more request of ``who`` fits now (it is counted), else the whole
        seconds until one would."""
        if not self.on:
            return None
        state = self.states.get(who)
        new, decision = self._GCRA.step(self.rates, state or self._GCRA.initial(self.rates),
                                        now_ms, 1)
        if not decision.allowed:
            return max(1, math.ceil((decision.retry_after_ms or 1000) / 1000))
        if state is None and len(self.states) >= MAX_TRACKED:
            self.states.clear()
        self.states[who] = new
        return None


def authenticated(scope: Scope, ctx: AuthContext, secret: str | None) -> Principal:
    """``authenticate(ctx, secret)``, once per request: what the limits layer found for this
    secret, else checked now. A failure (401, or the database being down) is raised again
    here, inside the routes, where the exception handlers turn it into its answer."""
    memo = scope.get(_AUTHENTICATED)
    if memo is not None and memo[0] == secret:
        outcome = memo[1]
    else:
        try:
            outcome = authenticate(ctx, secret)
        except Exception as exc:  # noqa: BLE001 - kept to be raised where it is answered
            outcome = exc
        scope[_AUTHENTICATED] = (secret, outcome)
    if isinstance(outcome, Exception):
        raise outcome
    return outcome


def request_secret(scope: Scope) -> str | None:
    """The key a request authenticates with, as its route reads it: the path segment of
    ``/v1/kubernetes/{api_key}/...``, else the ``Authorization: Bearer`` header's."""
    path = scope["path"]
    if path.startswith("/v1/kubernetes/"):
        return path.split("/", 4)[3] or None
    for name, value in scope.get("headers") or ():
        if name == b"authorization":
            scheme, _, credentials = value.decode("latin-1").partition(" ")
            credentials = credentials.strip()
            return credentials if scheme.lower() == "bearer" and credentials else None
    return None


class RequestLimitMiddleware:
    """Counts every ``/v1`` request that carries a valid key against its key and owner;
    ``/livez``, ``/readyz``, ``/metrics``, the docs and the dashboard's files are not
    ``/v1`` and are never limited."""

    def __init__(self, app, ctx: AuthContext, metrics: Metrics,  # noqa: ANN001
                 limits: RequestLimits):
        self.app, self.ctx, self.metrics, self.limits = app, ctx, metrics, limits
        self._routes: list[tuple[re.Pattern[str], set[str] | None, Any]] | None = None

    async def __call__(self, scope, receive, send):  # noqa: ANN001
        if scope["type"] != "http" or not scope["path"].startswith("/v1/"):
            await self.app(scope, receive, send)
            return
        secret = request_secret(scope)
        try:
            principal = authenticated(scope, self.ctx, secret) \
                if secret is not None or self.ctx.settings.auth_disabled else None
        except Exception:  # noqa: BLE001 - the route raises it again and answers it
            principal = None
        if principal is None:
            await self.app(scope, receive, send)
            return
        expensive, receive = await _expensive(scope, receive)
        refusal = self.limits.admit(principal, expensive)
        if refusal is not None:
            await self._refuse(scope, receive, send, refusal)
            return
        try:
            await self.app(scope, receive, send)
        finally:
            self.limits.leave(principal, expensive)

    async def _refuse(self, scope, receive, send, refusal: Refusal) -> None:  # noqa: ANN001
        self.metrics.refused.labels(refusal.reason).inc()
        # The route's template labels the request metrics, as it would once routed.
        scope["route"] = self._route(scope)
        exc = refusal.error
        response = problem(exc.status, exc.code, exc.title, exc.detail, scope["path"],
                           headers=exc.headers)
        await response(scope, receive, send)

    def _route(self, scope: Scope) -> Any:
        """The /v1 route the router would choose (None for a path no route serves), from a
        table made at the first refusal: walking the app's routes each time cost more than the
        rest of a refusal together."""
        if self._routes is None:
            self._routes = [(route.path_regex, route.methods, route)
                            for route in iter_route_contexts(scope["app"].routes)
                            if (route.path or "").startswith("/v1/")]
        path, method = scope["path"], scope["method"]
        return next((route for regex, methods, route in self._routes
                     if regex.match(path) and (not methods or method in methods)), None)


async def _expensive(scope: Scope, receive: Receive) -> tuple[bool, Receive]:
    """Whether the request is an expensive one, and how to receive its body from here on (a
    dry run is told by reading it)."""
    if scope["method"] != "POST":
        return False, receive
    path = scope["path"]
    if _EXPENSIVE.fullmatch(path):
        return True, receive
    field = "dry_run" if _DRY_RUN_FIELD.fullmatch(path) else \
        "dryRun" if _ADMISSION.fullmatch(path) else None
    if field is None:
        return False, receive
    body = await _body(receive)
    return _asks_dry_run(body, field), replay(body, receive)


def _asks_dry_run(body: bytes, field: str) -> bool:
    """Whether the JSON body sets ``field`` to anything but false. Without the field's name
    and without a backslash (a name written with escapes) it cannot; otherwise the body is
    parsed, as the route will parse it. A value the route will refuse counts as a dry run: the
    mistake can only cost its own owner."""
    if field.encode() not in body and b"\\" not in body:
        return False
    try:
        doc = json.loads(body)
    except ValueError:
        return False  # the route answers 400 malformed_json
    if not isinstance(doc, dict):
        return False
    if field == "dryRun":
        doc = doc.get("request")
        if not isinstance(doc, dict):
            return False
    value = doc.get(field)
    return value is not None and value is not False


async def _body(receive: Receive) -> bytes:
    chunks = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(chunks)
