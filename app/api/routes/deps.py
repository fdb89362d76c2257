"""Dependencies shared by the routers."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from app.service.context import ServiceContext


def get_context(request: Request) -> ServiceContext:
    return request.app.state.ctx


Ctx = Annotated[ServiceContext, Depends(get_context)]
