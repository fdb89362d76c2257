"""The lean event path: the single-event routes, called without FastAPI's routing and
dependency solving when the request is well formed.

A single event (an arrival, a departure, an observation, a deployment's arrival or scale) is
the request an orchestrator sends most, and most of what it cost was the framework's: matching
the path against every route, solving each dependency (the context, the bearer scheme, the
key, the header, the body) and wrapping the call. For the routes marked with ``@lean`` this
middleware, which sits inside the request context and limits (``app/api/middleware.py``,
``app/api/throttle.py``) and in front of the router, does it directly: one regular expression
per route, the body the strict JSON reading already parsed (``app/api/json_body.py``)
validated once into the route's model, the key authenticated as the route's dependency does,
then the route's own function. What the function raises is answered by the app's exception
handlers, as when FastAPI calls it.

Only what it can do exactly as FastAPI would goes this way: a body the model refuses, no
JSON, another content type or an ``Idempotency-Key`` outside its pattern is handed to the
full app unchanged, which answers it as it always did (``tests/api/test_lean_path.py`` holds
both ways to the same answers).
"""

from __future__ import annotations

import re
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute, iter_route_contexts
from pydantic import BaseModel, ValidationError
from starlette.requests import Request
from starlette.responses import Response

from app.api.json_body import PARSED
from app.api.schemas.common import CLIENT_ID_PATTERN
from app.api.throttle import authenticated, request_secret

F = typing.TypeVar("F", bound=Callable[..., Any])

# The parameters a lean route may take; any other makes it an ordinary route.
_PARAMETERS = {"body", "ctx", "principal", "request", "idempotency_key"}
_IDEMPOTENCY_KEY = re.compile(CLIENT_ID_PATTERN)
_JSON_TYPES = (b"application/json", b"application/json; charset=utf-8")


def lean(endpoint: F) -> F:
    """Mark a single-event route for the lean path."""
    endpoint.__headroom_lean__ = True  # type: ignore[attr-defined]
    return endpoint


@dataclass
class _Route:
    route: APIRoute
    body: type[BaseModel]
    path: list[str]  # the path parameters, by name
    params: frozenset[str]  # the others


class LeanPath:
    def __init__(self, app, fastapi: FastAPI):
        self.app = app
        self.fastapi = fastapi
        self.routes: list[_Route] | None = None  # found once the app is built

    def _routes(self) -> list[_Route]:
        # With tracing on, every request takes the full path: FastAPI makes the spans.
        if self.routes is None:
            self.routes = [] if self.fastapi.state.ctx.tracing.on else [
                _lean_route(context.original_route)
                for context in iter_route_contexts(self.fastapi.routes)
                if isinstance(context.original_route, APIRoute)
                and getattr(context.endpoint, "__headroom_lean__", False)]
        return self.routes

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] != "POST" or PARSED not in scope:
            await self.app(scope, receive, send)
            return
        for lean_route in self._routes():
            match = lean_route.route.path_regex.match(scope["path"])
            if match is not None:
                break
        else:
            await self.app(scope, receive, send)
            return
        kwargs = _arguments(lean_route, scope, match)
        if kwargs is None:  # FastAPI answers what this path does not take
            await self.app(scope, receive, send)
            return
        route = lean_route.route
        scope["route"], scope["endpoint"] = route, route.endpoint
        scope["path_params"] = {name: match[name] for name in lean_route.path}
        request = Request(scope, receive)
        ctx, params = self.fastapi.state.ctx, lean_route.params
        try:
            if "principal" in params:
                kwargs["principal"] = authenticated(scope, ctx, request_secret(scope))
            if "ctx" in params:
                kwargs["ctx"] = ctx
            if "request" in params:
                kwargs["request"] = request
            response = _response(route, await route.endpoint(**kwargs))
        except Exception as exc:  # noqa: BLE001 - answered as the router's handlers would
            response = await self._handled(request, exc)
        await response(scope, receive, send)

    async def _handled(self, request: Request, exc: Exception) -> Response:
        for cls in type(exc).__mro__:
            handler = self.fastapi.exception_handlers.get(cls)
            if handler is not None:
                return await handler(request, exc)
        raise exc


def _lean_route(route: APIRoute) -> _Route:
    hints = typing.get_type_hints(route.endpoint, include_extras=False)
    path = list(route.param_convertors)
    rest = set(hints) - {"return"} - set(path)
    if not rest <= _PARAMETERS or not all(
            route.param_convertors[name].regex == "[^/]+" for name in path):
        raise TypeError(f"{route.path}: a lean route takes only path segments and "
                        f"{sorted(_PARAMETERS)}")
    return _Route(route, hints.get("body", BaseModel), path, frozenset(rest))


def _arguments(lean_route: _Route, scope: dict[str, Any], match: re.Match[str]
               ) -> dict[str, Any] | None:
    """The route's arguments read from the request (the caller adds the context, the key
    and the request), or None when FastAPI must answer instead: a body the model refuses, no
    content type or another than JSON (FastAPI reads no body without one), an
    Idempotency-Key outside its pattern."""
    content_type = idempotency_key = None
    for name, value in scope["headers"]:
        if name == b"content-type" and content_type is None:
            content_type = value
        elif name == b"idempotency-key" and idempotency_key is None:
            idempotency_key = value.decode("latin-1")
    if content_type is None or content_type.lower() not in _JSON_TYPES:
        return None
    if idempotency_key is not None and not _IDEMPOTENCY_KEY.fullmatch(idempotency_key):
        return None
    params = lean_route.params
    kwargs: dict[str, Any] = {name: match[name] for name in lean_route.path}
    if "body" in params:
        try:
            kwargs["body"] = lean_route.body.model_validate(scope[PARSED])
        except ValidationError:
            return None
    if "idempotency_key" in params:
        kwargs["idempotency_key"] = idempotency_key
    return kwargs


def _response(route: APIRoute, result: Any) -> Response:
    """What the route returned, as FastAPI sends it: a response as is, anything else through
    the route's response model (by alias, as FastAPI dumps it)."""
    if isinstance(result, Response):
        return result
    model = route.response_model
    return JSONResponse(model.model_validate(result).model_dump(mode="json", by_alias=True),
                        status_code=route.status_code or 200)
