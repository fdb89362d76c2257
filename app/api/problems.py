"""RFC 9457 problem documents for every error, including the ones FastAPI raises itself."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import iter_route_contexts
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from starlette.exceptions import HTTPException as StarletteHTTPException

from app import redact
from app.errors import CODES, HeadroomError

log = logging.getLogger("headroom.api")

PROBLEM_JSON = "application/problem+json"


def problem(status: int, code: str, title: str, detail: str, instance: str | None = None,
            errors: list[dict[str, Any]] | None = None,
            headers: dict[str, str] | None = None,
            extensions: dict[str, Any] | None = None) -> JSONResponse:
    """``extensions``: RFC 9457 §3.2 extension members of one kind of problem, e.g.
    ``existing_id`` of name_taken.

    Every problem document is made here, so this is where the path in ``instance`` and
    whatever the detail quotes of the request (an id, a field name) lose any API key they
    hold (app/redact.py): a proxy or a client may log error bodies."""
    body: dict[str, Any] = {"type": f"urn:headroom:problem:{code}", "title": title,
                            "status": status, "detail": redact.text(detail), "code": code,
                            **(extensions or {})}
    if instance is not None:
        body["instance"] = redact.path(instance)
    if errors:
        body["errors"] = [{k: redact.text(v) if isinstance(v, str) else v
                           for k, v in e.items()} for e in errors]
    return JSONResponse(body, status_code=status, media_type=PROBLEM_JSON, headers=headers)


def coded(code: str, detail: str, instance: str | None = None, **kwargs: Any) -> JSONResponse:
    """The problem document of a code of the table (app/errors.py), with its status and
    title: for errors that are no ``HeadroomError`` (the framework's, the database's)."""
    entry = CODES[code]
    assert entry.status is not None, code
    return problem(entry.status, code, entry.title, detail, instance, **kwargs)


# The codes of the framework's own HTTP errors (an unknown path, a method a path does not
# serve); any other is http_error with its status.
HTTP_CODES = {404: "not_found", 405: "method_not_allowed"}

STATUS_DESCRIPTIONS = {
    400: "Malformed JSON",
    401: "Missing or invalid API key",
    403: "The API key lacks the scope, or is a write key limited to other clusters",
    404: "No such cluster, job, job type, server or key (another owner's cluster or key is "
         "answered the same way)",
    409: "Conflict: an event id reused with another body, a job already known, a name taken, "
         "or a cluster of another kind than the route serves (wrong_cluster_kind)",
    412: "If-Match does not match the current generation",
    413: "Request body too large",
    422: "Invalid request; `errors` names each offending field",
    429: "A request limit refused the request before anything was done: too many requests "
         "per second from this key or its owner (rate_limited), or too many of the owner's "
         "expensive requests in flight (concurrency_limited); send it again after "
         "`Retry-After` seconds",
    503: "The cluster is locked too long by another request, or the database is unreachable; "
         "retrying with the same event_id is safe",
}

PROBLEM_SCHEMA = {
    "title": "Problem",
    "description": "RFC 9457 problem details.",
    "type": "object",
    "required": ["type", "title", "status", "detail", "code"],
    "properties": {
        "type": {"type": "string", "description": "urn:headroom:problem:<code>"},
        "title": {"type": "string"},
        "status": {"type": "integer"},
        "detail": {"type": "string"},
        "code": {"type": "string", "description": "Stable machine-readable code."},
        "instance": {"type": "string"},
        "existing_id": {"type": "string", "description": "name_taken: the id of the cluster "
                        "or reservation stream that holds the name."},
        "errors": {"type": "array", "items": {
            "type": "object", "required": ["field", "message"],
            "properties": {"field": {"type": "string"}, "message": {"type": "string"},
                           "type": {"type": "string"}}}},
    },
}


def responses(*codes: int) -> dict[int | str, dict[str, Any]]:
    """``responses=`` for a route or router: the problem statuses it can answer."""
    return {code: {"description": STATUS_DESCRIPTIONS[code]} for code in codes}


def document_problems(app: FastAPI) -> None:
    """Make the OpenAPI document say what errors really look like: every 4xx/5xx response is
    ``application/problem+json`` with the Problem schema (FastAPI would otherwise describe its
    own JSON validation error, which this service never sends)."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        doc = generate()
        ref = {"$ref": "#/components/schemas/Problem"}
        schemas = doc.setdefault("components", {}).setdefault("schemas", {})
        schemas["Problem"] = PROBLEM_SCHEMA
        for name in ("HTTPValidationError", "ValidationError"):
            schemas.pop(name, None)
        for url, path in doc.get("paths", {}).items():
            if not url.startswith("/v1/"):
                continue  # probes answer plain JSON, e.g. /readyz's 503
            for op in path.values():
                # The request limits may refuse any /v1 request (app/api/throttle.py).
                op["responses"] = _with_status(op.get("responses", {}), "429")
                for status, resp in op["responses"].items():
                    if status[0] in "45":
                        resp["content"] = {"application/problem+json": {"schema": ref}}
                        resp["description"] = STATUS_DESCRIPTIONS.get(int(status),
                                                                      resp.get("description"))
        app.openapi_schema = doc
        return doc

    app.openapi = openapi  # type: ignore[method-assign]


def _with_status(responses: dict[str, Any], status: str) -> dict[str, Any]:
    """``responses`` with ``status`` among them, in order of status."""
    if status in responses:
        return responses
    items = list(responses.items())
    at = next((i for i, (s, _) in enumerate(items) if s > status), len(items))
    return dict([*items[:at], (status, {}), *items[at:]])


def field_path(loc: tuple[Any, ...], body: Any = None, err_type: str = "") -> str:
    """('body', 'server_pools', 0, 'count') -> 'server_pools[0].count'.

    pydantic puts union member names into the location ('policy', 'dra', 'migrations'); walking
    the submitted body tells those apart from real keys, so the path is the one the client sent.
    """
    parts = list(loc[1:] if loc and loc[0] in ("body", "query", "path", "header") else loc)
    out, cur = "", body if loc and loc[0] == "body" else None
    for i, p in enumerate(parts):
        last = i == len(parts) - 1
        if isinstance(p, int):
            out += f"[{p}]"
            cur = cur[p] if isinstance(cur, list) and 0 <= p < len(cur) else None
            continue
        # A name that is not a key of the request is a union member's tag, unless it is the
        # last part of a "missing" or "extra" error, which names the field itself.
        if isinstance(cur, dict) and p not in cur and \
                not (last and err_type in ("missing", "extra_forbidden")):
            continue
        out += ("." if out else "") + str(p)
        cur = cur.get(p) if isinstance(cur, dict) else None
    return out or (str(loc[0]) if loc else "body")


def _allowed(request: Request) -> str:
    """Every method served at this path. Starlette's own 405 names only the first matching
    route's methods, which is wrong when GET and DELETE of one path are separate routes."""
    path = request.url.path
    methods: set[str] = set()
    for route in iter_route_contexts(request.app.routes):
        regex = getattr(route, "path_regex", None)
        if regex is not None and regex.match(path):
            methods |= set(getattr(route, "methods", None) or ())
    return ", ".join(sorted(methods))


def install(app: FastAPI) -> None:
    @app.exception_handler(HeadroomError)
    async def _headroom(request: Request, exc: HeadroomError) -> JSONResponse:
        if exc.status >= 500:
            log.error("request failed: %s", exc.detail)
        return problem(exc.status, exc.code, exc.title, exc.detail, request.url.path,
                       exc.errors, exc.headers, exc.extensions)

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        errs = exc.errors()
        if any(e.get("type") == "json_invalid" for e in errs):
            return coded("malformed_json", "the request body is not valid JSON",
                         request.url.path)
        body = getattr(exc, "body", None)
        errors = [{"field": field_path(tuple(e.get("loc", ())), body, e.get("type", "")),
                   "message": e.get("msg", ""),
                   "type": e.get("type", "")} for e in errs]
        detail = "; ".join(f"{e['field']}: {e['message']}" for e in errors[:5])
        return coded("validation_error", detail, request.url.path, errors=errors)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = HTTP_CODES.get(exc.status_code, "http_error")
        headers = getattr(exc, "headers", None)
        if exc.status_code == 405:
            headers = {**(headers or {}), "Allow": _allowed(request)}
        return problem(exc.status_code, code, CODES[code].title, str(exc.detail),
                       request.url.path, headers=headers)

    def _database_down(request: Request, what: str) -> JSONResponse:
        # Connection refused or dropped (a restarting database, a failover). If it dropped
        # during COMMIT the outcome is unknown to us, but a retry with the same event id
        # returns the logged decision if there is one, so retrying is always safe.
        log.warning("database unavailable: %s", what)
        return coded("database_unavailable", "the database could not be reached; retrying "
                     "with the same event_id is safe", request.url.path,
                     headers={"Retry-After": "1"})

    @app.exception_handler(DBAPIError)
    async def _database_error(request: Request, exc: DBAPIError) -> JSONResponse:
        # OperationalError: the connection (or the server) failed. connection_invalidated:
        # any other error that app/store/db.py counts as a lost connection (a demoted,
        # read-only node). Everything else is a bug: 500, logged.
        if isinstance(exc, OperationalError) or exc.connection_invalidated:
            return _database_down(request, type(exc.orig).__name__ if exc.orig else str(exc))
        return await _unexpected(request, exc)

    @app.exception_handler(PoolTimeout)
    async def _pool_exhausted(request: Request, exc: PoolTimeout) -> JSONResponse:
        # Every pooled connection stayed busy (or connecting) past the pool's timeout: the
        # database is too slow to reach, as far as the client is concerned.
        return _database_down(request, "connection pool timed out")

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error")
        return coded("internal_error", "the server failed to handle this request; it was "
                     "logged", request.url.path)
