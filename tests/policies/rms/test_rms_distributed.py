"""RMS with distributed queues (Algorithm 2, app/policies/rms/distributed.py): hand-checked
routing, tick and departure rules, a hypothesis state machine, determinism, and a short
simulation of the paper's §III example."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import initialize, invariant, precondition, rule

from tests.policies.rms.rms_machine import JOB_TYPES, QueueMachine

from app.policies.model import FIT_TOLERANCE, ClusterModel, JobType, ServerPool
from app.policies.rms import (GREEDY, DistributedRmsScheduler, RmsScheduler, is_queue_policy,
                              make_scheduler)
from app.policies.rms.distributed import DESCRIBE_QUEUES
from app.policies.rms.errors import RmsInputError

# One resource, three servers of capacity 10, job sizes 2 and 5 (the §III shapes): M = 5, so
# the weight floor is eps/(8M) f(Q_max) = 0.5/40 * log(1 + Q_max).
LINE = ClusterModel(("units",), (ServerPool("s", 3, (10.0,)),),
                    (JobType("two", (2.0,), 1.0), JobType("five", (5.0,), 1.0)))
TWO, FIVE = 0, 1
FLOOR = 0.5 / (8 * 5)

# Heterogeneous, two resources; pool c (4, 4) cannot hold "big" (5, 4) or "wide" (1, 6) even
# when empty, so routing must never queue those types there.
MODEL = ClusterModel(
    ("cpu", "mem"),
    (ServerPool("a", 2, (10.0, 8.0)), ServerPool("b", 1, (6.0, 12.0)),
     ServerPool("c", 1, (4.0, 4.0))),
    (JobType("small", (2.0, 1.0), 1.0), JobType("big", (5.0, 4.0), 1.0),
     JobType("wide", (1.0, 6.0), 1.0)),
)
POLICIES = ["rms_jsq", "rms_po2", "rms_jsq_plus", "rms_po2_plus"]


class ScriptedRng:
    """Stands in for the engine's generator: each draw is the next scripted one, and a draw
    of another kind, or one more than scripted, fails the test."""

    def __init__(self, *script):
        self.script = list(script)

    def _take(self, kind):
        assert self.script, f"unscripted draw: {kind}"
        item = self.script.pop(0)
        assert item[0] == kind, f"engine drew {kind}, script expected {item}"
        return item

    def random(self):
        return self._take("random")[1]

    def integers(self, n):
        item = self._take("integers")
        assert item[1] == n, f"integers({n}), script expected integers({item[1]})"
        return item[2]

    def exponential(self, scale):
        return self._take("exponential")[1]


def rnd(u):
    return ("random", u)


def ints(n, k):
    return ("integers", n, k)


def expo(x):
    return ("exponential", x)


def engine(name, model=LINE, seed=0, **params):
    return make_scheduler(name, model, params, np.random.default_rng(seed))


def restored(name, queues=None, running=(), dummies=(), next_tick=100.0, script=(),
             model=LINE, **params):
    """An engine in a hand-written state, built through the public to_state/from_state:
    ``queues`` {(server, type): [job ids]}, ``running`` [(id, server, type)], ``dummies``
    [(server, type, departs_at)]; its generator then draws only ``script``."""
    eng = engine(name, model, **params)
    st = json.loads(json.dumps(eng.to_state()))
    st["queues"] = [[s, j, [[jid, 0.0] for jid in ids]] for (s, j), ids in (queues or {}).items()]
    st["running"] = [[jid, s, j, 0.0, 0.0] for jid, s, j in running]
    used = [[0.0] * len(model.dimensions) for _ in range(model.num_servers)]
    for s, j in [(s, j) for _, s, j in running] + [(s, j) for s, j, _ in dummies]:
        used[s] = [u + d for u, d in zip(used[s], model.job_types[j].demand)]
    st["used"] = used
    st["arrived"] = len(running) + sum(len(ids) for ids in (queues or {}).values())
    st["extra"].update(next_tick=next_tick, dummy_seq=len(dummies),
                       dummies=[[i, s, j, t] for i, (s, j, t) in enumerate(dummies)])
    out = type(eng).from_state(model, eng.params, st)
    out.kind = eng.kind
    out.rng = ScriptedRng(*script)
    return out


def ids(recs):
    return [(r["job_id"], r["server_id"]) for r in recs]


def done(eng):
    assert eng.rng.script == [], f"scripted draws left over: {eng.rng.script}"


# ---- names and parameters ---------------------------------------------------------------

def test_names_build_algorithm_2_and_is_queue_policy_matches_make_scheduler():
    for name, routing, plus in [("rms_jsq", "jsq", False), ("rms_po2", "po2", False),
                                ("rms_jsq_plus", "jsq", True), ("rms_po2_plus", "po2", True)]:
        eng = engine(name)
        assert isinstance(eng, DistributedRmsScheduler) and eng.kind == name
        assert eng.params["routing"] == routing and eng.params["replace_dummies"] is plus
        # clock_rate is the per-type total r_j (default L, x5 for _plus) split over servers
        r = 3.0 * (5 if plus else 1)
        assert eng.rates == [r, r] and eng.server_rates == [r / 3, r / 3]
    assert isinstance(engine("rms", routing="po2"), DistributedRmsScheduler)
    assert type(engine("rms_jsq", routing="central")) is RmsScheduler
    assert engine("rms_po2", routing=None).params["routing"] == "po2"
    assert type(engine("rms", routing=None)) is RmsScheduler
    accepted = ["rms", "rms_rf_ad_plus", "rms_bf", "rms_jsq", "rms_po2_plus", *GREEDY]
    refused = ["rms_jsq_ad", "rms_rf_jsq", "rms_po3", "jsq", "rms_plus_jsq", "", None, 3]
    for name in accepted:
        assert is_queue_policy(name)
        make_scheduler(name, LINE)
    for name in refused:
        assert not is_queue_policy(name)
        with pytest.raises(RmsInputError):
            make_scheduler(name, LINE)


@pytest.mark.parametrize("params,field", [({"routing": "random"}, "routing"),
                                          ({"sampling": "rf"}, "sampling"),
                                          ({"adaptive": True}, "adaptive"),
                                          ({"clock_rate": {"two": 1.0}}, "clock_rate"),
                                          ({"epsilon": 1.5}, "epsilon")])
def test_bad_parameters_name_their_field(params, field):
    with pytest.raises(RmsInputError) as info:
        engine("rms_jsq", **params)
    assert info.value.field == field


# ---- routing ------------------------------------------------------------------------------

def test_jsq_joins_a_shortest_queue_and_breaks_ties_with_the_generator():
    eng = restored("rms_jsq", script=[ints(3, 1), ints(2, 0), ints(3, 2)])
    assert eng.arrive("a", "five", 0.0)["position"] == 0  # lengths (0, 0, 0): draw 1
    assert eng.job_view("a")["server_id"] == "s-1"
    eng.arrive("b", "five", 0.0)   # lengths (0, 1, 0): tie {0, 2}, draw 0 -> server 0
    eng.arrive("c", "five", 0.0)   # lengths (1, 1, 0): unique shortest, no draw
    out = eng.arrive("d", "five", 0.0)  # lengths (1, 1, 1): draw 2 -> server 2
    assert [eng.job_view(x)["server_id"] for x in "abcd"] == ["s-1", "s-0", "s-2", "s-2"]
    assert out == {"decision": "queued", "job_id": "d", "position": 1, "started": []}
    assert eng.queue_lengths() == [0, 4]
    done(eng)


def test_jsq_is_balanced_on_a_seeded_generator():
    eng = engine("rms_jsq", MODEL)
    hosts_big = [0, 1, 2]  # server 3 (pool c) cannot hold a big job
    for i in range(40):
        before = [len(eng.local[s][1]) for s in range(4)]
        eng.arrive(f"b{i}", "big", 0.0)
        s = MODEL.server_ids.index(eng.job_view(f"b{i}")["server_id"])
        assert s in hosts_big and before[s] == min(before[x] for x in hosts_big)
    assert sorted(len(eng.local[s][1]) for s in hosts_big) == [13, 13, 14]
    assert len(eng.local[3][1]) == 0


def test_po2_takes_the_shorter_of_two_sampled_queues():
    queues = {(0, FIVE): ["x0", "x1", "x2"], (2, FIVE): ["y0"], (3, FIVE): ["z0", "z1"]}
    model = ClusterModel(("units",), (ServerPool("s", 4, (10.0,)),), LINE.job_types)
    eng = restored("rms_po2", queues, model=model, script=[
        ints(4, 3), ints(3, 0),          # servers 3 and 0: lengths 2 vs 3 -> 3
        ints(4, 1), ints(3, 1),          # servers 1 and 2 (second draw skips the first)
        ints(4, 1), ints(3, 1), ints(2, 1),  # servers 1, 2 again: 1 vs 1, tie draw -> 2
    ])
    # server 1 is the global shortest (empty) but was not sampled: po2 does not see it
    assert eng.arrive("a", "five", 0.0)["position"] == 2
    assert eng.job_view("a")["server_id"] == "s-3"
    eng.arrive("b", "five", 0.0)
    assert eng.job_view("b")["server_id"] == "s-1"
    eng.arrive("c", "five", 0.0)
    assert eng.job_view("c") == {"job_id": "c", "job_type": "five", "status": "queued",
                                 "queued_at": 0.0, "position": 1, "server_id": "s-2"}
    done(eng)


def test_po2_with_two_candidate_servers_is_jsq_without_sampling():
    model = ClusterModel(("units",), (ServerPool("s", 2, (10.0,)),), LINE.job_types)
    eng = restored("rms_po2", {(0, TWO): ["x"]}, model=model, script=[ints(2, 0)])
    eng.arrive("a", "two", 0.0)   # only 2 servers: both compared, no sampling draws
    eng.arrive("b", "two", 0.0)   # 1 vs 1: tie draw
    assert [eng.job_view(x)["server_id"] for x in "ab"] == ["s-1", "s-0"]
    done(eng)


def test_replace_dummies_routes_to_a_tied_server_holding_a_dummy_and_takes_its_slot():
    eng = restored("rms_jsq_plus", dummies=[(2, FIVE, 50.0), (2, FIVE, 60.0)])
    out = eng.arrive("a", "five", 1.0)   # all queues empty: server 2 wins the tie, no draw
    assert out["decision"] == "started" and out["server_id"] == "s-2"
    assert out["position"] is None and out["started"] == []
    assert [d[2] for d in eng.dummies.values()] == [60.0]  # the oldest dummy made room
    assert eng.used[2] == [10.0]
    # a dummy of another type does not attract an arrival: a plain three-way tie draw
    eng2 = restored("rms_jsq_plus", dummies=[(1, FIVE, 50.0)], script=[ints(3, 0)])
    assert eng2.arrive("b", "two", 1.0)["decision"] == "queued"
    assert eng2.job_view("b")["server_id"] == "s-0"
    # without replace_dummies a dummy neither attracts nor gives way
    eng3 = restored("rms_jsq", dummies=[(2, FIVE, 50.0)], script=[ints(3, 2)])
    assert eng3.arrive("c", "five", 1.0)["decision"] == "queued"
    assert eng3.job_view("c")["server_id"] == "s-2" and len(eng3.dummies) == 1
    for e in (eng, eng2, eng3):
        done(e)


# ---- clock ticks --------------------------------------------------------------------------

def test_tick_starts_the_head_of_the_ticking_servers_own_queue():
    queues = {(0, FIVE): ["q0"], (1, FIVE): ["q1", "q1b"]}
    # rates r = (3, 3): u = 0.9 -> type five; then the server uniformly: 1; next gap 100
    eng = restored("rms_jsq", queues, next_tick=0.5, script=[rnd(0.9), ints(3, 1), expo(100.0)])
    assert eng.next_event_time() == 0.5
    started = eng.advance(1.0)
    assert ids(started) == [("q1", "s-1")] and started[0]["at"] == 0.5
    assert eng.job_view("q0")["status"] == "queued"   # another server's queue is untouched
    assert eng.job_view("q1b")["position"] == 0
    assert eng.next_tick == 100.5
    done(eng)


def test_tick_with_an_empty_own_queue_places_a_dummy_and_without_room_does_nothing():
    full = [("r1", 2, FIVE), ("r2", 2, FIVE)]
    eng = restored("rms_jsq", {(0, FIVE): ["q0"]}, running=full, next_tick=0.5, script=[
        rnd(0.9), ints(3, 2), expo(0.25),        # t=0.5: five on full server 2 -> nothing
        rnd(0.9), ints(3, 1), expo(7.0), expo(100.0),  # t=0.75: empty Q^1 -> dummy, life 7
    ])
    assert eng.advance(1.0) == []
    assert eng.job_view("q0")["status"] == "queued"
    assert [(s, j, t) for s, j, t in eng.dummies.values()] == [(1, FIVE, 7.75)]
    assert eng.describe()["dummies"] == {"two": 0, "five": 1}
    assert eng.used[1] == [5.0] and eng.used[2] == [10.0]
    done(eng)


# ---- departures ---------------------------------------------------------------------------

@pytest.mark.parametrize("u,refills", [(0.7499, True), (0.7501, False)])
def test_departure_refills_from_its_own_queue_with_probability_1_minus_exp_minus_w(u, refills):
    # server 0: Q_five^0 = 3 -> w = log 4, P(refill) = 1 - 1/4 = 0.75
    queues = {(0, FIVE): ["a", "b", "c"], (1, FIVE): ["d"]}
    eng = restored("rms_jsq", queues, running=[("r", 0, FIVE)], script=[rnd(u)])
    assert math.isclose(eng.weight(0, FIVE), math.log(4))
    out = eng.depart("r", 0.1)
    assert ids(out["started"]) == ([("a", "s-0")] if refills else [])
    assert eng.job_view("d")["status"] == "queued"
    done(eng)


@pytest.mark.parametrize("refills", [True, False])
def test_departure_weight_floor_places_a_dummy_not_another_servers_job(refills):
    # server 0: Q_five^0 = 0 but Q_two^0 = 5, so w_five^0 = eps/(8M) log 6 (the floor);
    # server 1's waiting five-job (w_five^1 = log 2) does not count at server 0.
    queues = {(0, TWO): [f"t{i}" for i in range(5)], (1, FIVE): ["d"]}
    w = FLOOR * math.log(6)
    p = -math.expm1(-w)   # ~0.022
    script = [rnd(p - 1e-9), expo(3.0)] if refills else [rnd(p + 1e-9)]
    eng = restored("rms_jsq", queues, running=[("r", 0, FIVE)], script=script)
    assert math.isclose(eng.weight(0, FIVE), w) and math.isclose(eng.weight(1, FIVE),
                                                                  math.log(2))
    assert eng.weight(2, FIVE) == 0.0   # idle server: f(0) = 0, never refills
    out = eng.depart("r", 0.1)
    assert out["started"] == [] and out["server_id"] == "s-0"
    if refills:
        [(s, j, departs)] = eng.dummies.values()
        assert (s, j) == (0, FIVE) and departs == pytest.approx(3.1)
    else:
        assert eng.dummies == {} and eng.used[0] == [0.0]
    assert eng.job_view("d")["status"] == "queued"
    done(eng)


def test_dummy_departure_follows_the_same_rule():
    queues = {(1, FIVE): ["a", "b", "c"]}
    eng = restored("rms_jsq", queues, dummies=[(1, FIVE, 0.3)], script=[rnd(0.5)])
    assert eng.next_event_time() == 0.3
    started = eng.step()
    assert ids(started) == [("a", "s-1")] and started[0]["at"] == 0.3 and eng.now == 0.3
    assert eng.dummies == {}
    done(eng)


# ---- views, describe ----------------------------------------------------------------------

def test_describe_has_per_type_totals_and_bounded_local_detail():
    model = ClusterModel(("units",), (ServerPool("s", 30, (10.0,)),), LINE.job_types)
    eng = engine("rms_jsq", model)
    for i in range(95):
        eng.arrive(f"j{i}", ("two", "five")[i % 2], 0.0)
    d = eng.describe()
    json.dumps(d)
    assert d["queues"] == {"two": 48, "five": 47} and d["running"] == {"two": 0, "five": 0}
    assert d["local_queues_nonempty"] == 60 and len(d["local_queues"]) == DESCRIBE_QUEUES
    lengths = [q["length"] for q in d["local_queues"]]
    assert lengths == sorted(lengths, reverse=True) and lengths[0] == 2
    assert d["weights"]["two"] == pytest.approx(math.log(3))
    assert d["variant"] == {"routing": "jsq", "replace_dummies": False}
    assert d["clock_rates"] == {"two": 30.0, "five": 30.0}
    assert d["server_clock_rates"] == {"two": 1.0, "five": 1.0}


# ---- determinism --------------------------------------------------------------------------

def _script_calls(eng, n=60, seed=5, prefix="j"):
    """A fixed, varied sequence of calls (driven by its own generator); their answers."""
    r = np.random.default_rng(seed)
    outs, running, t = [], [], eng.now
    for i in range(n):
        t += float(r.exponential(0.3))
        if running and r.random() < 0.4:
            jid = running.pop(int(r.integers(len(running))))
            out = eng.depart(jid, t)
        else:
            out = eng.arrive(f"{prefix}{i}", ("small", "big", "wide")[int(r.integers(3))], t)
            if out["decision"] == "started":
                running.append(out["job_id"])
        running += [x["job_id"] for x in out["started"]]
        outs.append(out)
    return outs


@pytest.mark.parametrize("name", POLICIES)
def test_same_seed_same_calls_same_decisions(name):
    a, b = engine(name, MODEL, 11), engine(name, MODEL, 11)
    assert _script_calls(a) == _script_calls(b)
    assert a.to_state() == b.to_state()
    other = engine(name, MODEL, 12)
    assert _script_calls(other) != _script_calls(engine(name, MODEL, 11))


@pytest.mark.parametrize("name", POLICIES)
def test_split_advance_and_stepping_equal_one_advance(name):
    a, b, c = (engine(name, MODEL, 3) for _ in range(3))
    for e in (a, b, c):
        for i in range(40):  # more than the cluster holds at once
            e.arrive(f"j{i}", ("small", "big", "wide")[i % 3], 0.01 * i)
    sa = a.advance(20.0)
    sb = []
    for t in np.linspace(0.5, 20.0, 17):
        sb += b.advance(float(t))
    sc = []
    while c.next_event_time() < 20.0:
        sc += c.step()
    sc += c.advance(20.0)
    assert sa == sb == sc and sa
    assert a.to_state() == b.to_state() == c.to_state()


@pytest.mark.parametrize("name", POLICIES)
def test_state_round_trip_mid_run_makes_the_same_decisions(name):
    eng = engine(name, MODEL, 21)
    _script_calls(eng, 40)
    state = json.loads(json.dumps(eng.to_state()))
    twin = type(eng).from_state(MODEL, eng.params, state)
    twin.kind = eng.kind
    assert twin.to_state() == eng.to_state() and twin.describe() == eng.describe()
    queued = next(iter(eng.queued), None)
    if queued is not None:
        assert twin.job_view(queued) == eng.job_view(queued)
    assert _script_calls(twin, 40, 9, "k") == _script_calls(eng, 40, 9, "k")
    assert twin.advance(eng.now + 30) == eng.advance(eng.now + 30)
    assert twin.to_state() == eng.to_state()


# ---- hypothesis state machine -------------------------------------------------------------

def check_invariants(e) -> None:
    L, D = MODEL.num_servers, len(MODEL.dimensions)
    # capacity: recompute from running jobs and dummies
    used = [[0.0] * D for _ in range(L)]
    for s, j in [(s, j) for s, j, _, _ in e.running.values()] + \
                [(s, j) for s, j, _ in e.dummies.values()]:
        used[s] = [u + d for u, d in zip(used[s], MODEL.job_types[j].demand)]
    for s in range(L):
        for d in range(D):
            assert used[s][d] <= MODEL.capacity(s)[d] + FIT_TOLERANCE
            assert math.isclose(used[s][d], e.used[s][d], abs_tol=1e-7)
    # every queued job is in exactly one local queue, the one its server says
    seen = {}
    for s, row in enumerate(e.local):
        for j, q in enumerate(row):
            for pos, jid in enumerate(q):
                assert jid not in seen, f"{jid} queued twice"
                seen[jid] = (s, j)
                assert e.queued[jid][0] == j and e.queued_server[jid] == s
                assert s in e.hosts[j]   # never stranded where it cannot fit
                view = e.job_view(jid)
                assert view["server_id"] == MODEL.server_ids[s] and view["position"] == pos
    assert set(seen) == set(e.queued) == set(e.queued_server)
    assert not set(e.queued) & set(e.running)
    assert not set(e.finished) & (set(e.queued) | set(e.running))
    assert not set(e.withdrawn) & (set(e.queued) | set(e.running) | set(e.finished))
    assert len(e.queued) + len(e.running) + e.finished_total + e.withdrawn_total == e.arrived
    assert sum(e.queue_lengths()) == len(e.queued)
    # the per-(server, type) dummy index agrees with the dummies
    assert sorted(d for row in e.dummies_at for ds in row for d in ds) == sorted(e.dummies)
    for did, (s, j, _) in e.dummies.items():
        assert did in e.dummies_at[s][j]
        if e.params["replace_dummies"]:
            assert not e.local[s][j], "a dummy holds a slot while its type waits there"
    d = e.describe()
    assert len(d["local_queues"]) <= DESCRIBE_QUEUES
    assert sum(d["queues"].values()) == len(e.queued)
    assert sum(d["running"].values()) == len(e.running)


class DistributedMachine(QueueMachine):
    """Random arrivals, departures, advances, steps and state round-trips against one engine,
    checked after every step; a twin restored from JSON must decide exactly the same."""

    @initialize(name=st.sampled_from(POLICIES), seed=st.integers(0, 2**16),
                rate=st.sampled_from([None, 0.5, 20.0]))
    def init(self, name, seed, rate):
        self.eng = engine(name, MODEL, seed, finished_history=5,
                          **({} if rate is None else {"clock_rate": rate}))

    @precondition(lambda self: self.eng is not None)
    @rule()
    def step(self):
        t = self.eng.next_event_time()
        self._absorb(self.eng.step())
        if math.isfinite(t):
            assert self.eng.now == t

    @precondition(lambda self: self.eng is not None)
    @rule(horizon=st.floats(0.5, 10), cut=st.floats(0, 1),
          jt=st.sampled_from(JOB_TYPES))
    def roundtrip_and_split_are_deterministic(self, horizon, cut, jt):
        state = json.loads(json.dumps(self.eng.to_state()))
        twin = type(self.eng).from_state(MODEL, self.eng.params, state)
        twin.kind = self.eng.kind
        assert twin.to_state() == self.eng.to_state()
        self._arrive([self.eng, twin], jt)
        # the original advances in one call, the twin in two: same starts, same state
        t0 = self.eng.now
        one = self.eng.advance(t0 + horizon)
        two = twin.advance(t0 + cut * horizon)
        two += twin.advance(t0 + horizon)
        assert one == two
        self._absorb(one)
        assert twin.to_state() == self.eng.to_state()

    @invariant()
    def invariants(self):
        if self.eng is not None:
            check_invariants(self.eng)
            assert set(self.eng.running) == self.running
            assert set(self.eng.queued) == self.queued


DistributedMachine.TestCase.settings = settings(
    max_examples=60, stateful_step_count=30, deadline=None,
    suppress_health_check=[HealthCheck.too_slow])
TestDistributedMachine = DistributedMachine.TestCase


# ---- simulation: §III example -------------------------------------------------------------

def test_distributed_rms_queue_stays_bounded_on_the_bf_instability_system():
    """The §III / Fig. 1b system (10 servers of capacity 10, sizes 2 and 5, mu = 1, r_j = 20 as
    the bf-instability preset, i.e. r_j^l = 2), with lambda = 0.9 x (20.8, 10.4).

    Why 0.9x and not the preset's full lambda: per-server weights use the local queue
    Q_j^l ~ Q_j / L, so Algorithm 2 needs about L = 10 times Algorithm 1's total queue before
    its servers favour the efficient configurations (a fixed-weight estimate from (14):
    ~2,400 vs ~240 at full lambda, ~90 vs ~9 at 0.9x). At full lambda it is still climbing
    at T = 4000 (docs/reproduction/rms.md, Fig. 1b's Algorithm 2 rows) and, measured at seed
    1, at T = 40,000 (jsq 4,274 waiting, po2 23,910), beyond a unit test; at 0.9x it levels
    off within a few hundred time units.

    Check, seed 1, T = 3000, warm-up 500, queue sampled every 10: with m1, m2 the mean total
    queue over the two halves after the warm-up, m2 <= 1.5 m1 + 25 (no growth) and
    m2 <= 400 (bounded; ~4x the jsq level). Measured at seeds 1-6: jsq m2 104-151,
    po2 142-237, all passing; the same check fails at full lambda (seed 1: jsq 840 -> 1284,
    po2 1238 -> 2286) and when every arrival goes to one server (m2 ~ 60,000).
    Runtime ~7 s."""
    from app.sim.rms.simulator import bf_instability_model, simulate

    model, lam, mu = bf_instability_model()
    T, warm = 3000.0, 500.0
    for name in ("rms_jsq", "rms_po2"):
        r = simulate(model, name, [0.9 * x for x in lam], mu, T, 1, {"clock_rate": 20.0},
                     sample_step=10.0)
        assert r.arrived == r.started + r.final_queue
        after = [(t, q) for t, q in zip(r.times, r.queue) if t >= warm]
        mid = (warm + T) / 2
        first = [q for t, q in after if t < mid]
        second = [q for t, q in after if t >= mid]
        m1, m2 = sum(first) / len(first), sum(second) / len(second)
        assert m2 <= 1.5 * m1 + 25 and m2 <= 400, f"{name}: halves {m1:.1f} -> {m2:.1f}"
