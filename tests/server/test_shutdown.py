"""SIGTERM ends `headroom serve` within its stated timeout even while a request thread is
busy in CPU work (issue #54): uvicorn's graceful timeout cancels the request's task, and the
lifespan's shutdown then exits the process instead of waiting for the thread."""

from __future__ import annotations

import os
import re
import signal
import threading
import time

import httpx

from tests.api.test_declaration_bounds import big_servers, example_types
from tests.helpers import cluster_spec
from tests.live import LiveServer

TIMEOUT = 1


def test_sigterm_ends_the_server_within_the_timeout_while_a_request_is_busy(tmp_path):
    # A legitimate slow request: a DRA declaration at the size limits (200,000 servers,
    # 64 job types) takes several seconds of CPU in the request thread.
    slow = cluster_spec(policy={"kind": "dra"}, server_pools=big_servers(200_000),
                        job_types=example_types(64))
    env = {"HEADROOM_SHUTDOWN_TIMEOUT_SECONDS": str(TIMEOUT)}
    with LiveServer(f"sqlite:///{tmp_path / 'live.db'}", env=env) as server:
        outcomes: list[dict] = []

        def declare() -> None:
            outcome: dict = {}
            outcomes.append(outcome)
            try:
                with server.client(120) as c:
                    outcome["status"] = c.post("/v1/clusters", json=slow).status_code
            except httpx.HTTPError as exc:
                outcome["error"] = type(exc).__name__

        # Three at once share the process's one GIL, so each takes about three times one
        # declaration's CPU (1-2 s alone): all are still being decided when the graceful
        # timeout ends, however fast the machine.
        senders = [threading.Thread(target=declare) for _ in range(3)]
        for sender in senders:
            sender.start()
        time.sleep(0.5)  # the requests are being decided
        assert server.proc.poll() is None
        sent = time.monotonic()
        os.killpg(server.proc.pid, signal.SIGTERM)
        server.proc.wait(timeout=60)
        took = time.monotonic() - sent
        for sender in senders:
            sender.join(60)
        log = server.log_path.read_text()
        assert re.search(r"abandoning [1-3] request\(s\) still running after the 1 s graceful "
                         r"timeout", log), log
        assert "POST /v1/clusters" in log
        # The timeout plus the lifespan's own shutdown; generous for a loaded machine.
        assert took < TIMEOUT + 10, took
        # abandoned, not answered: told to retry (or cut off when the process ended)
        assert all(o.get("status", 503) == 503 for o in outcomes), outcomes
