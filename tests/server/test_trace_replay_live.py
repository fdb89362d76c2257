"""`headroom replay`'s driver against a live two-worker server on Postgres (issue #17): a slice
of the Alibaba trace with four concurrent client threads ends with zero errors and a final
state (GET /state, every server's jobs, the event log) equal to the ledger the replay kept."""

from __future__ import annotations

import pytest

from app.sim.trace.alibaba import load
from app.sim.trace.replay import replay
from tests.live import LiveServer


@pytest.mark.postgres
def test_replay_against_two_workers_on_postgres(postgres_url):
    trace = load(0.01, seed=0).head(600)
    with LiveServer(postgres_url, workers=2, extra_args=("--no-migrate",)) as server:
        out = replay(server.url, trace, 2, {"kind": "first_fit"}, headers=server.headers,
                     concurrency=4, progress=False)
    assert out["errors"] == 0, out["error_codes"]
    assert out["state_check"]["match"], out["state_check"]["problems"]
    assert out["decisions"] == out["events"] == 2 * out["accepted"] + (600 - out["accepted"])
    assert out["state_check"]["logged_events"] == out["events"]
