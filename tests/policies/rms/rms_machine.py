"""What the queueing engines' state machines share (tests/policies/rms/test_rms_engine.py for
Algorithm 1 and the greedy baselines, tests/policies/rms/test_rms_distributed.py for Algorithm 2):
the bookkeeping of which job is where, the arrival/departure/advance rules, and liveness —
every queued job is eventually started once the running jobs leave."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, precondition, rule

from app.policies.errors import PolicyError

ROUNDS = 300
JOB_TYPES = ["small", "big", "wide"]


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


class QueueMachine(RuleBasedStateMachine):
    """Rules every queueing engine takes; a subclass builds ``self.eng`` in an @initialize
    rule and adds its own rules and invariants (comparing ``running``/``queued``/``finished``
    with the engine's)."""

    def __init__(self):
        super().__init__()
        self.eng = None
        self.n = 0
        self.running: set[str] = set()
        self.queued: set[str] = set()
        self.finished: set[str] = set()
        self.withdrawn: set[str] = set()

    def _absorb(self, out):
        for r in out:
            assert r["job_id"] in self.queued, "started a job that was not waiting"
            self.queued.discard(r["job_id"])
            self.running.add(r["job_id"])

    def _arrive(self, engines, jt, dt=0.0):
        """One new job arriving ``dt`` after the clock, on every engine: same answers."""
        jid = f"j{self.n}"
        self.n += 1
        outs = [e.arrive(jid, jt, e.now + dt) for e in engines]
        assert all(o == outs[0] for o in outs)
        self._absorb(outs[0]["started"])
        (self.running if outs[0]["decision"] == "started" else self.queued).add(jid)

    @precondition(lambda self: self.eng is not None)
    @rule(jt=st.sampled_from(JOB_TYPES), dt=st.floats(0, 2))
    def arrive(self, jt, dt):
        self._arrive([self.eng], jt, dt)

    @precondition(lambda self: self.eng is not None and self.running)
    @rule(data=st.data(), dt=st.floats(0, 2))
    def depart(self, data, dt):
        jid = data.draw(st.sampled_from(sorted(self.running)))
        out = self.eng.depart(jid, self.eng.now + dt)
        self.running.discard(jid)
        self.finished.add(jid)
        self._absorb(out["started"])

    @precondition(lambda self: self.eng is not None and self.queued)
    @rule(data=st.data(), dt=st.floats(0, 2))
    def withdraw(self, data, dt):
        """A waiting job's departure (cancelled before it started) takes it out of its queue,
        unless a clock starts it before its time: then it runs and is released at once."""
        jid = data.draw(st.sampled_from(sorted(self.queued)))
        before = {k: v for k, v in self.eng.to_state().items() if k in ("used", "running")}
        out = self.eng.depart(jid, self.eng.now + dt)
        started = {r["job_id"] for r in out["started"]}
        self._absorb(out["started"])
        if out["decision"] == "withdrawn":
            assert jid not in started
            self.queued.discard(jid)
            self.withdrawn.add(jid)
            view = self.eng.job_view(jid) if self.eng.params["finished_history"] else None
            assert view is None or (view["status"] == "withdrawn" and view["withdrawn_at"] == self.eng.now)
            if not started:  # nothing started, nothing was freed: the same jobs run
                after = {k: v for k, v in self.eng.to_state().items() if k in ("used", "running")}
                assert after["running"] == before["running"]
                if not hasattr(self.eng, "dummies"):  # greedy: no clock or dummy moved the slots
                    assert after["used"] == before["used"]
        else:
            assert out["decision"] == "released" and jid in started
            self.running.discard(jid)
            self.finished.add(jid)
        assert jid not in self.eng.queued and jid not in self.eng.running
        for call in (lambda: self.eng.depart(jid, self.eng.now), lambda: self.eng.arrive(jid, "small", self.eng.now)):
            with pytest.raises(PolicyError):
                call()

    @precondition(lambda self: self.eng is not None)
    @rule(dt=st.floats(0, 5))
    def advance(self, dt):
        self._absorb(self.eng.advance(self.eng.now + dt))

    @precondition(lambda self: self.eng is not None)
    @rule(dt=st.floats(0, 1))
    def invalid_calls_leave_state(self, dt):
        snap = json.dumps(self.eng.to_state(), sort_keys=True)
        dup = next(iter(sorted(self.running | self.queued)), "")
        queued = next(iter(sorted(self.queued)), "never-seen")
        for call in (lambda: self.eng.arrive(dup, "small", self.eng.now),
                     lambda: self.eng.arrive("fresh", "ghost-type", self.eng.now),
                     lambda: self.eng.advance(self.eng.now - 1 - dt),
                     lambda: self.eng.depart("never-seen", self.eng.now + dt),
                     # a waiting job's departure from the past: refused before anything moves
                     lambda: self.eng.depart(queued, self.eng.now - 1 - dt)):
            with pytest.raises(PolicyError):
                call()
        assert json.dumps(self.eng.to_state(), sort_keys=True) == snap

    @precondition(lambda self: self.eng is not None and self.queued)
    @rule()
    def every_waiting_job_eventually_starts(self):
        departed, started = drain(self.eng)
        self.running = (self.running | started) - departed
        self.finished |= departed
        self.queued.clear()
