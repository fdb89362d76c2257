"""The moment kernel is compiled before /readyz says ready, so no request pays for it
(issue #54: a first POST .../deployments took seconds, past a webhook's 10 s when loaded)."""

from __future__ import annotations

import threading
import time

import pytest

from app.main import create_app
from app.service.warmup import Warmup
from tests.conftest import admin_client, make_settings
from tests.live import LiveServer


def test_readyz_is_503_until_the_warm_up_is_done(sqlite_url):
    app = create_app(make_settings(sqlite_url), configure_logs=False)
    release = threading.Event()
    app.state.warmup = Warmup([("moments", lambda: release.wait(30))])
    with admin_client(app) as c:
        r = c.get("/readyz")
        assert r.status_code == 503
        assert r.json()["warming"] == ["moments"]
        release.set()
        assert app.state.warmup._done.wait(30)
        assert c.get("/readyz").status_code == 200


def test_the_lifespan_warms_the_moment_family(sqlite_url):
    app = create_app(make_settings(sqlite_url), configure_logs=False)
    assert app.state.warmup.pending == ["moments"]
    with admin_client(app):
        assert app.state.warmup._done.wait(300)
        assert app.state.warmup.failed is None


@pytest.mark.parametrize("kind", ["first_moment", "second_moment"])
def test_the_first_moment_decision_after_ready_is_fast(tmp_path, kind):
    # Without the warm-up a fresh process's first decision compiled the kernel: seconds,
    # over 30 s on a loaded machine (1 s even from numba's cache). Generous for a loaded CI
    # machine; the measured figures are in docs/operations.md.
    # An empty numba cache: the process compiles the kernel as on a fresh install.
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    with LiveServer(f"sqlite:///{tmp_path / 'live.db'}", env=env) as server, \
            server.client(120) as c:
        cid = c.post("/v1/clusters", json={"name": "m", "capacity_cores": 2000, "sla": 0.001,
                                           "policy": {"kind": kind}}).json()["id"]
        started = time.perf_counter()
        r = c.post(f"/v1/clusters/{cid}/deployments",
                   json={"event_id": "a1", "deployment_id": "d1", "cores": 4, "at": 0.0})
        took = time.perf_counter() - started
        assert r.status_code == 200, r.text
        assert took < 1.0, took
