"""RFC 9457 problem documents for every error, including the ones FastAPI raises itself."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.errors import HeadroomError

log = logging.getLogger("headroom.api")

PROBLEM_JSON = "application/problem+json"


def problem(status: int, code: str, title: str, detail: str, instance: str | None = None,
            errors: list[dict[str, Any]] | None = None,
            headers: dict[str, str] | None = None) -> JSONResponse:
    body: dict[str, Any] = {"type": f"urn:headroom:problem:{code}", "title": title,
                            "status": status, "detail": detail, "code": code}
    if instance is not None:
        body["instance"] = instance
    if errors:
        body["errors"] = errors
    return JSONResponse(body, status_code=status, media_type=PROBLEM_JSON, headers=headers)


def field_path(loc: tuple[Any, ...], body: Any = None) -> str:
    """('body', 'server_pools', 0, 'count') -> 'server_pools[0].count'.

    pydantic puts union member names into the location ('policy', 'dra', 'migrations'); walking
    the submitted body tells those apart from real keys, so the path is the one the client sent.
    """
    parts = list(loc[1:] if loc and loc[0] in ("body", "query", "path", "header") else loc)
    out, cur = "", body
    for i, p in enumerate(parts):
        last = i == len(parts) - 1
        if isinstance(p, int):
            out += f"[{p}]"
            cur = cur[p] if isinstance(cur, list) and 0 <= p < len(cur) else None
            continue
        if isinstance(cur, dict) and p not in cur and not last:
            continue  # a union member's name, not a key of the request
        out += ("." if out else "") + str(p)
        cur = cur.get(p) if isinstance(cur, dict) else None
    return out or (str(loc[0]) if loc else "body")


def install(app: FastAPI) -> None:
    @app.exception_handler(HeadroomError)
    async def _headroom(request: Request, exc: HeadroomError) -> JSONResponse:
        if exc.status >= 500:
            log.error("request failed: %s", exc.detail)
        return problem(exc.status, exc.code, exc.title, exc.detail, request.url.path,
                       exc.errors, exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        errs = exc.errors()
        if any(e.get("type") == "json_invalid" for e in errs):
            return problem(400, "malformed_json", "Malformed JSON",
                           "the request body is not valid JSON", request.url.path)
        body = getattr(exc, "body", None)
        errors = [{"field": field_path(tuple(e.get("loc", ())), body),
                   "message": e.get("msg", ""),
                   "type": e.get("type", "")} for e in errs]
        detail = "; ".join(f"{e['field']}: {e['message']}" for e in errors[:5])
        return problem(422, "validation_error", "Request is invalid", detail, request.url.path,
                       errors)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        codes = {404: ("not_found", "Not found"), 405: ("method_not_allowed",
                                                         "Method not allowed")}
        code, title = codes.get(exc.status_code, ("http_error", "HTTP error"))
        return problem(exc.status_code, code, title, str(exc.detail), request.url.path,
                       headers=getattr(exc, "headers", None))

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error")
        return problem(500, "internal_error", "Internal error",
                       "the server failed to handle this request; it was logged",
                       request.url.path)
