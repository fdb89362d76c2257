"""The same trace slice gives the same decisions in the simulator and over HTTP (issue #17).

The HTTP side is ``headroom replay``'s own driver with one client thread, so the service sees
the events in the simulator's order; every policy here is deterministic given the cluster's
seed (power-of-d draws from the seeded generator the service persists)."""

from __future__ import annotations

from functools import lru_cache

import pytest

from app.sim.trace.alibaba import Trace, load
from app.sim.trace.replay import replay
from app.sim.trace.runner import run_placement


@lru_cache(maxsize=1)
def _slice() -> Trace:
    return load(0.01, seed=0).head(280)


# On one machine the slice's first burst (t = 0-70 s) makes every policy reject some arrivals.
@pytest.mark.parametrize("kind", ["first_fit", "best_fit", "power_of_d", "dra"])
def test_simulator_and_http_decide_alike(client, kind):
    servers = 1
    trace = _slice()
    out = replay("", trace, servers, {"kind": kind}, client=client, concurrency=1,
                 progress=False, seed=7)
    http = out["ledger"]
    sim = run_placement(kind, trace, servers, seed=7, tag=http.tag)
    assert out["errors"] == 0 and out["state_check"]["match"], out["state_check"]
    assert http.decisions == sim.decisions
    decided = {d for _, d, _ in sim.decisions}
    assert decided == {"placed", "rejected", "released"}  # the slice exercises all three
    assert http.running == sim.running == {}
