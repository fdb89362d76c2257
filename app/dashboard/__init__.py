"""The live dashboard: static HTML, JS modules and CSS shipped in the package and served by
the service itself at ``/dashboard`` (no CDN, no build step; see docs/dashboard.md).

The page holds no server-side state: it asks for a read key, keeps it in the tab's
sessionStorage and calls the /v1 JSON API with it, so it sees exactly what that key's owner
may see. It polls cheap log reads and fetches an engine's ``/state`` only when the cluster's
version moved (app/dashboard/static/live.js)."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles

STATIC = Path(__file__).parent / "static"
PATH = "/dashboard"

# Everything from this service only: a dashboard in an air-gapped cluster cannot fetch from a
# CDN, and the policy makes any attempt fail loudly in the browser instead of half-working.
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")


def install(app: FastAPI) -> None:
    @app.get(PATH, include_in_schema=False)
    def dashboard() -> FileResponse:
        return FileResponse(STATIC / "index.html", media_type="text/html", headers={
            "Content-Security-Policy": CSP, "Cache-Control": "no-cache",
            "Referrer-Policy": "no-referrer"})

    @app.get(PATH + "/", include_in_schema=False)
    def dashboard_slash() -> RedirectResponse:
        return RedirectResponse(PATH)

    app.mount(PATH + "/assets", StaticFiles(directory=STATIC), name="dashboard-assets")
