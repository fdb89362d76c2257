"""Liveness of the queueing engines, shared by their state machines: every queued job is
eventually started once the running jobs leave."""

from __future__ import annotations

from typing import Any

ROUNDS = 300


def drain(eng: Any, step: float = 2.0) -> tuple[set[str], set[str]]:
    """Depart every running job and advance ``step`` time units, round after round, until no
    job waits; assert that none does within ``ROUNDS`` rounds. Returns (departed, started).

    Every job type fits some empty server, so with the cluster emptied again and again a
    waiting job can only stay if it was lost or is stuck behind something that never moves
    (a dummy that never departs, a clock that never ticks, a freed slot never offered)."""
    departed: set[str] = set()
    started: set[str] = set()
    for _ in range(ROUNDS):
        if not eng.queued:
            break
        for jid in list(eng.running):
            departed.add(jid)
            started |= {s["job_id"] for s in eng.depart(jid, eng.now)["started"]}
        started |= {s["job_id"] for s in eng.advance(eng.now + step)}
    assert not eng.queued, f"{len(eng.queued)} jobs still wait after {ROUNDS} rounds"
    return departed, started
