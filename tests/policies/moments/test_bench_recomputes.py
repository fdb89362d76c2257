"""The per-life recompute counter of app/bench/moments.py (--life --recomputes): what it counts
backs the per-life floor in docs/benchmarks.md, so it is checked against an engine whose
recomputes are known."""

from __future__ import annotations

from app.bench.moments import CountingEngine
from app.policies.moments import MomentEngine
from app.policies.moments.formulas import Grid
from app.policies.moments.options import MomentOptions


def test_counts_event_marked_and_drift_recomputes_by_decision() -> None:
    options = MomentOptions(10**6, "second_moment", threshold=0.5, grid=Grid(steps=20),
                            refresh_per_admit=2)
    eng, plain = CountingEngine(options), MomentEngine(options)
    counter = eng
    for i in range(6):
        eng.admit(f"d{i}", 2, float(i))
    assert counter.counts.get("event_marked", 0) == 0
    admitted_before = counter.counts["at_admitted"]
    eng.scale_out("d0", 1, 6.0)
    eng.scale_out("d1", 1, 6.0)
    eng.admit("d6", 2, 7.0)
    # Two event-marked deployments plus the two stalest others of the round-robin.
    assert counter.counts["event_marked"] == 2
    assert counter.counts["at_admitted"] - admitted_before == 4
    eng.admit("huge", 10**6, 8.0)  # no capacity: rejected, after the same refresh
    assert counter.counts["at_rejected"] == 2
    eng.scale_out("d2", 1, 8.2)
    eng.admit("d7", 1, 8.5, dry_run=True)  # a dry run recomputes nothing it keeps
    assert counter.counts["event_marked"] == 2
    eng.admit("d7", 1, 8.6)  # the real one recomputes d2 and the next two of the rotation
    assert counter.counts["event_marked"] == 3
    assert counter.counts["at_admitted"] - admitted_before == 7
    # Counting changes nothing the engine decides.
    for i in range(6):
        plain.admit(f"d{i}", 2, float(i))
    plain.scale_out("d0", 1, 6.0)
    plain.scale_out("d1", 1, 6.0)
    plain.admit("d6", 2, 7.0)
    plain.admit("huge", 10**6, 8.0)
    plain.scale_out("d2", 1, 8.2)
    plain.admit("d7", 1, 8.6)
    assert plain.to_state() == eng.to_state()
