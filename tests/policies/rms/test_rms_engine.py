"""RMS engine and greedy queue baselines: unit tests and hypothesis state-machine invariants."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import initialize, invariant, precondition, rule

from app.policies.model import FIT_TOLERANCE, ClusterModel, JobType, ServerPool
from app.policies.rms import RmsScheduler, make_scheduler
from tests.policies.rms.rms_machine import QueueMachine

from app.policies.errors import (DuplicateJob, PolicyError, TimeWentBackwards, UnknownJob,
                                 UnknownJobType)
from app.policies.rms.errors import JobNotRunningError, RmsInputError

MODEL = ClusterModel(
    ("cpu", "mem"),
    (ServerPool("a", 2, (10.0, 8.0)), ServerPool("b", 1, (6.0, 12.0))),
    (JobType("small", (2.0, 1.0), 1.0), JobType("big", (5.0, 4.0), 1.0),
     JobType("wide", (1.0, 6.0), 1.0)),
)
POLICIES = ["rms", "rms_rf", "rms_bf", "rms_ad", "rms_rf_ad", "rms_bf_ad", "rms_plus",
            "rms_rf_ad_plus", "best_fit_queue", "first_fit_queue", "random_fit_queue"]


def make(name: str, seed: int = 0, **params):
    return make_scheduler(name, MODEL, params, np.random.default_rng(seed))


def started_ids(out) -> list[str]:
    return [r["job_id"] for r in out]


def check_capacity(eng) -> None:
    """Recompute usage from running and dummy jobs; it must match ``used`` and fit."""
    L, D = MODEL.num_servers, len(MODEL.dimensions)
    used = [[0.0] * D for _ in range(L)]
    for s, j, _, _ in eng.running.values():
        for d, x in enumerate(MODEL.job_types[j].demand):
            used[s][d] += x
    for s, j, _ in getattr(eng, "dummies", {}).values():
        for d, x in enumerate(MODEL.job_types[j].demand):
            used[s][d] += x
    for s in range(L):
        cap = MODEL.capacity(s)
        for d in range(D):
            assert used[s][d] <= cap[d] + FIT_TOLERANCE
            assert math.isclose(used[s][d], eng.used[s][d], abs_tol=1e-7)


def test_rms_arrival_queues_then_clock_starts_it():
    eng = make("rms")
    out = eng.arrive("j1", "small", 0.0)
    assert out["decision"] == "queued" and out["position"] == 0
    starts = eng.advance(50.0)
    assert started_ids(starts) == ["j1"]
    view = eng.job_view("j1")
    assert view["status"] == "running" and view["started_at"] == starts[0]["at"] > 0
    rel = eng.depart("j1", 60.0)
    assert rel["decision"] == "released" and rel["server_id"] == view["server_id"]
    assert eng.job_view("j1")["status"] == "finished"
    assert eng.arrived == 1 and eng.finished_total == 1


def test_idle_rms_creates_dummies_and_weights_follow_queue():
    eng = make("rms")
    eng.advance(5.0)
    d = eng.describe()
    assert sum(d["dummies"].values()) > 0  # idle clocks fill servers with reservations
    for i in range(30):
        eng.arrive(f"q{i}", "big", 5.0)
    w = eng.weights()
    assert math.isclose(w[1], math.log1p(len(eng.queues[1])))
    floor = 0.5 / (8 * eng.M) * math.log1p(max(eng.queue_lengths()))
    assert all(x >= floor - 1e-12 for x in w)


def test_replace_dummies_gives_dummy_slot_to_arrival():
    eng = make("rms_plus")
    eng.advance(5.0)
    j = next(i for i, ds in enumerate(eng.dummies_by_type) if ds)
    name = MODEL.job_types[j].name
    before = len(eng.dummies_by_type[j])
    out = eng.arrive("x", name, 5.0)
    assert out["decision"] == "started" and out["position"] is None
    assert len(eng.dummies_by_type[j]) == before - 1


def test_greedy_starts_on_arrival_and_fills_on_departure():
    eng = make("best_fit_queue")
    # big = (5, 4): two fit on each (10, 8) server, one on the (6, 12) server
    outs = [eng.arrive(f"b{i}", "big", 0.0) for i in range(6)]
    assert [o["decision"] for o in outs] == ["started"] * 5 + ["queued"]
    rel = eng.depart("b0", 1.0)
    assert started_ids(rel["started"]) == ["b5"]


def test_first_fit_uses_lowest_server():
    eng = make("first_fit_queue")
    assert eng.arrive("s", "small", 0.0)["server_id"] == "a-0"


# Algorithm 2 (tests/policies/rms/test_rms_distributed.py) shares the validation contract.
@pytest.mark.parametrize("name", [*POLICIES, "rms_jsq", "rms_po2_plus"])
def test_validation_errors_carry_field_and_leave_state(name):
    eng = make(name)
    eng.arrive("j1", "small", 1.0)
    eng.advance(2.0)
    snap = json.dumps(eng.to_state(), sort_keys=True)
    cases = [
        (lambda: eng.arrive("j2", "nope", 3.0), UnknownJobType, "job_type"),
        (lambda: eng.arrive("j1", "small", 3.0), DuplicateJob, "job_id"),
        (lambda: eng.arrive("j2", "small", 1.0), TimeWentBackwards, "at"),
        (lambda: eng.arrive("j2", "small", float("nan")), TimeWentBackwards, "at"),
        (lambda: eng.depart("ghost", 3.0), UnknownJob, "job_id"),
        (lambda: eng.advance(0.5), TimeWentBackwards, "until"),
        (lambda: eng.job_view("ghost"), UnknownJob, "job_id"),
    ]
    # Queued or running, a departure from the past is refused before anything moves (a queued
    # job's departure in time withdraws it: test_a_waiting_job_departure_withdraws_it).
    cases.append((lambda: eng.depart("j1", 1.5), TimeWentBackwards, "at"))
    for call, err, field in cases:
        with pytest.raises(err) as info:
            call()
        assert isinstance(info.value, ValueError) and isinstance(info.value, PolicyError)
        assert info.value.field == field
        assert json.dumps(eng.to_state(), sort_keys=True) == snap


def test_bad_parameters_rejected():
    with pytest.raises(RmsInputError) as info:
        RmsScheduler(MODEL, {"epsilon": 2.0})
    assert info.value.field == "epsilon"
    with pytest.raises(RmsInputError):
        make("rms", clock_rate={"small": 1.0})
    with pytest.raises(RmsInputError):
        make_scheduler("nope", MODEL)


@pytest.mark.parametrize("name", ["first_fit_queue", "rms", "rms_jsq"])
def test_a_waiting_job_departure_withdraws_it(name):
    """A job cancelled before it started: its departure takes it out of its queue, the others
    keep their order, nothing else moves, and it can neither depart again nor come back."""
    eng = make(name, 1, clock_rate=1e-9)  # clocks that never tick in this test (greedy: none)
    for i in range(5):
        eng.arrive(f"r{i}", "big", 0.0)  # five fit on the empty cluster (RMS queues them all)
    for jid in ("w0", "w1", "w2"):
        assert eng.arrive(jid, "big", 0.5)["decision"] == "queued"
    waiting = sorted(eng.queued, key=lambda j: eng.job_view(j)["position"])
    before = eng.to_state()
    out = eng.depart("w1", 1.0)
    assert out["decision"] == "withdrawn" and out["job_id"] == "w1" and out["started"] == []
    after = eng.to_state()
    assert after["running"] == before["running"] and after["used"] == before["used"]
    assert set(eng.queued) == set(waiting) - {"w1"} and eng.withdrawn_total == 1
    if name != "rms_jsq":  # one central queue per type: the ones behind w1 moved up by one
        rest = [j for j in waiting if j != "w1"]
        assert [eng.job_view(j)["position"] for j in rest] == list(range(len(rest)))
        assert out["server_id"] is None
    else:  # the server whose local queue it waited in
        assert out["server_id"] in MODEL.server_ids
    view = eng.job_view("w1")
    assert view == {"job_id": "w1", "job_type": "big", "status": "withdrawn", "queued_at": 0.5,
                    "withdrawn_at": 1.0}
    assert eng.describe()["withdrawn"] == 1
    assert len(eng.queued) + len(eng.running) + eng.finished_total + eng.withdrawn_total == eng.arrived
    with pytest.raises(JobNotRunningError) as info:
        eng.depart("w1", 2.0)
    assert "withdrawn" in str(info.value)
    with pytest.raises(DuplicateJob):
        eng.arrive("w1", "big", 2.0)
    twin = type(eng).from_state(MODEL, eng.params, json.loads(json.dumps(eng.to_state())))
    assert twin.to_state() == eng.to_state() and twin.job_view("w1") == view


def test_a_state_from_before_withdrawals_loads():
    eng = make("rms")
    eng.arrive("j1", "small", 0.0)
    state = eng.to_state()
    del state["withdrawn"], state["withdrawn_total"]
    old = type(eng).from_state(MODEL, eng.params, state)
    assert old.withdrawn_total == 0 and not old.withdrawn
    assert old.depart("j1", 0.0)["decision"] in ("withdrawn", "released")


def test_finished_history_is_bounded():
    eng = make("first_fit_queue", finished_history=2)
    for i in range(4):
        eng.arrive(f"j{i}", "small", float(i))
        eng.depart(f"j{i}", float(i) + 0.5)
    assert list(eng.finished) == ["j2", "j3"] and eng.finished_total == 4
    with pytest.raises(UnknownJob):
        eng.job_view("j0")


def test_split_advance_equals_single_advance():
    a, b = make("rms_rf_ad", 3), make("rms_rf_ad", 3)
    for e in (a, b):
        for i in range(12):
            e.arrive(f"j{i}", ("small", "big", "wide")[i % 3], 0.1 * i)
    sa = a.advance(20.0)
    sb = []
    for t in np.linspace(1.3, 20.0, 17):
        sb += b.advance(float(t))
    assert sa == sb and a.to_state() == b.to_state()


# ---- hypothesis state machine -------------------------------------------------------------

class SchedulerMachine(QueueMachine):
    """Random arrivals, departures, advances and state round-trips against one engine, with a
    twin restored from JSON that must make exactly the same decisions afterwards."""

    @initialize(name=st.sampled_from(POLICIES), seed=st.integers(0, 2**16))
    def init(self, name, seed):
        self.eng = make(name, seed, finished_history=5)

    @precondition(lambda self: self.eng is not None)
    @rule(horizon=st.floats(0.5, 10))
    def roundtrip_is_deterministic(self, horizon):
        state = json.loads(json.dumps(self.eng.to_state()))
        twin = type(self.eng).from_state(MODEL, self.eng.params, state)
        twin.kind = self.eng.kind
        assert twin.to_state() == self.eng.to_state()
        # Same future from both: an arrival then a horizon of clocks.
        t = self.eng.now + horizon
        self._arrive([self.eng, twin], "small")
        later = [e.advance(t) for e in (self.eng, twin)]
        assert later[0] == later[1]
        self._absorb(later[0])
        assert twin.to_state() == self.eng.to_state()

    @invariant()
    def capacity_and_accounting(self):
        if self.eng is None:
            return
        e = self.eng
        check_capacity(e)
        assert set(e.running) == self.running
        assert set(e.queued) == self.queued
        assert len(e.queued) + len(e.running) + e.finished_total + e.withdrawn_total == e.arrived
        assert e.withdrawn_total == len(self.withdrawn)
        assert sum(e.queue_lengths()) == len(e.queued)
        if e.params.get("replace_dummies"):
            for j, ds in enumerate(e.dummies_by_type):
                assert not (ds and e.queues[j]), "a dummy holds a slot while its type waits"

    @invariant()
    def greedy_is_work_conserving(self):
        e = self.eng
        if e is None or e.kind not in ("best_fit_queue", "first_fit_queue", "random_fit_queue"):
            return
        from app.policies.rms.selection import fits

        for j, q in enumerate(e.queues):
            if q:
                assert not any(fits(MODEL, e.used[s], s, j) for s in range(MODEL.num_servers))


SchedulerMachine.TestCase.settings = settings(
    max_examples=40, stateful_step_count=25, deadline=None,
    suppress_health_check=[HealthCheck.too_slow])
TestSchedulerMachine = SchedulerMachine.TestCase


# ---- vectorised server choice -------------------------------------------------------------

@settings(max_examples=200, deadline=None)
@given(rule=st.sampled_from(["ff", "rf", "bf"]), j=st.integers(0, 2), seed=st.integers(0, 99),
       fill=st.lists(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 1 / 3, 4.0, 5.0, 6.0]),
                              min_size=2, max_size=2), min_size=3, max_size=3))
def test_vectorised_choice_equals_the_scalar_rule(rule, j, seed, fill):
    """Ties (many equal scores here) and near-ties must resolve exactly as the scalar scan."""
    from app.policies.rms.selection import choose_server

    used = [list(u) for u in fill]
    used_np = np.array(used)
    caps = np.array([MODEL.capacity(s) for s in range(MODEL.num_servers)])
    a = choose_server(rule, MODEL, used, j, np.random.default_rng(seed))
    b = choose_server(rule, MODEL, used, j, np.random.default_rng(seed), (used_np, caps))
    assert a == b
