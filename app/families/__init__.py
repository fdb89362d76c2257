"""Policy families, each declared in one module here; ``registry`` gathers them.

The declarations sit above both the service and the API layer because a family spans them:
its engine adapter (``app/policies``), the service's time hook, its pydantic models and its
routers (``app/api``). The service never imports them: it receives the registry through its
context (``ServiceContext.families``), so adding a family changes no service module.
"""
