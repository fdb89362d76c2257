"""Stateful property tests shared by every placement baseline.

A hypothesis state machine drives an engine through random arrivals, departures and refused
requests on random small clusters, and after every step checks the bookkeeping against a
recomputation from ``engine.jobs``, capacity, snapshot round-trips and the dry run. Each
arrival is also checked against a brute-force version of the engine's own rule (``CHECKS``),
which proves the incremental indexes right. To cover another engine class, add one line to
``ENGINES`` (and, if it has a rule worth brute-forcing, one to ``CHECKS``).
"""

from __future__ import annotations

import json
from typing import Any, Callable

import numpy as np
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from app.api.schemas.state import ServerView
from app.policies.base import DuplicateJob, Placement, PlacementEngine, UnknownJob, UnknownJobType
from app.policies.best_fit import BestFit
from app.policies.first_fit import FirstFit
from app.policies.model import FIT_TOLERANCE, ClusterModel, JobType, ServerPool
from app.policies.placement import PlacementAdapter
from app.policies.power_of_d import PowerOfD
from tests.helpers import check_state_view

# (engine class, strategy for its params)
ENGINES: list[tuple[type[PlacementEngine], st.SearchStrategy[dict[str, Any]]]] = [
    (FirstFit, st.just({})),
    (BestFit, st.just({})),
    (PowerOfD, st.fixed_dictionaries({"d": st.integers(1, 10), "only_feasible": st.booleans()})),
]

# Capacities and demands on a coarse grid, with zeros (a pool without some resource, a type
# that needs none of it) and a demand of 20 that fits no server.
CAPACITIES = st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0, 4.0, 8.0])
DEMANDS = st.sampled_from([0.0, 0.1, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 20.0])


@st.composite
def clusters(draw) -> ClusterModel:
    dims = draw(st.integers(1, 3))
    vector = lambda values: st.tuples(*[values] * dims)  # noqa: E731
    pools = draw(st.lists(st.tuples(st.integers(1, 3), vector(CAPACITIES)), min_size=1,
                          max_size=3))
    demands = draw(st.lists(vector(DEMANDS).filter(any), min_size=1, max_size=4))
    return ClusterModel(
        dimensions=tuple(f"r{d}" for d in range(dims)),
        pools=tuple(ServerPool(f"p{i}", n, cap) for i, (n, cap) in enumerate(pools)),
        job_types=tuple(JobType(f"t{j}", dem, float(j + 1)) for j, dem in enumerate(demands)),
    )


# ---- independent recomputation --------------------------------------------------------------

def recomputed_used(engine: PlacementEngine) -> list[list[float]]:
    m = engine.model
    used = [[0.0] * len(m.dimensions) for _ in range(m.num_servers)]
    for s, j in engine.jobs.values():
        for d, x in enumerate(m.job_types[j].demand):
            used[s][d] += x
    return used


def fractions(engine: PlacementEngine, s: int, vec) -> list[float]:
    return [x / c if c > 0 else 0.0 for x, c in zip(vec, engine.model.capacity(s))]


def feasible(engine: PlacementEngine, j: int) -> list[int]:
    demand = engine.model.job_types[j].demand
    return [s for s, u in enumerate(recomputed_used(engine))
            if engine.model.fits(u, demand, engine.model.capacity(s))]


# ---- brute-force checks of each rule, given the engine *before* the arrival ------------------

def check_first_fit(engine: FirstFit, j: int, p: Placement) -> None:
    ok = feasible(engine, j)
    assert p.server_id == (engine.model.server_ids[min(ok)] if ok else None)


def check_best_fit(engine: BestFit, j: int, p: Placement) -> None:
    ok = feasible(engine, j)
    if not ok:
        assert p.decision == "rejected"
        return
    # The index agrees with a scan over the engine's own key ...
    best = min(ok, key=lambda s: (engine._key(s, j), s))
    assert p.server_id == engine.model.server_ids[best]
    # ... and the key is the normalised inner product of the docstring.
    used = recomputed_used(engine)
    demand = engine.model.job_types[j].demand

    def score(s: int) -> float:
        occupied = fractions(engine, s, used[s])
        return sum(a * b for a, b in zip(fractions(engine, s, demand), occupied))

    assert score(best) >= max(map(score, ok)) - 1e-9
    assert p.details["score"] == engine.score(best, j)


def check_power_of_d(engine: PowerOfD, j: int, p: Placement) -> None:
    m = engine.model
    sampled = [m.server_numbers[x["server_id"]] for x in p.details["sampled"]]
    assert len(set(sampled)) == len(sampled) == min(engine.params["d"], m.num_servers)
    used = recomputed_used(engine)
    load = {s: max(fractions(engine, s, used[s])) for s in sampled}
    for x, s in zip(p.details["sampled"], sampled):
        assert abs(x["load"] - load[s]) < 1e-9
    ok = set(feasible(engine, j))
    pool = [s for s in sampled if s in ok] if engine.params["only_feasible"] else sampled
    if not pool:
        assert p.decision == "rejected"
        return
    chosen = min(pool, key=lambda s: (engine.load(s), s))
    assert load[chosen] <= min(load[s] for s in pool) + 1e-9
    if p.decision == "placed":
        assert p.server_id == m.server_ids[chosen]
    else:
        assert p.details["least_loaded"] == m.server_ids[chosen] and chosen not in ok


CHECKS: dict[type, Callable[[Any, int, Placement], None]] = {
    FirstFit: check_first_fit,
    BestFit: check_best_fit,
    PowerOfD: check_power_of_d,
}


# ---- the state machine ----------------------------------------------------------------------

class PlacementMachine(RuleBasedStateMachine):
    engine_cls: type[PlacementEngine]
    params_strategy: st.SearchStrategy[dict[str, Any]]

    @initialize(model=clusters(), seed=st.integers(0, 2**32 - 1), data=st.data())
    def setup(self, model: ClusterModel, seed: int, data: st.DataObject) -> None:
        self.params = data.draw(self.params_strategy)
        self.engine = self.engine_cls(model, self.params, np.random.default_rng(seed))
        self.running: dict[str, int] = {}  # job id -> type index, as the test saw it
        self.departed: list[str] = []
        self.next_id = 0

    @property
    def model(self) -> ClusterModel:
        return self.engine.model

    def refused(self, error: type[Exception], call: Callable[[], Any]) -> None:
        before = self.engine.to_state()
        try:
            call()
        except error:
            pass
        else:
            raise AssertionError(f"expected {error.__name__}")
        assert self.engine.to_state() == before

    # -- events

    @rule(t=st.integers(0, 3))
    def arrive(self, t: int) -> None:
        j = t % self.model.num_types
        name = self.model.job_types[j].name
        before = self.engine.to_state()
        dry = self.engine.decide_arrival(name)
        assert self.engine.to_state() == before
        CHECKS.get(self.engine_cls, lambda *a: None)(self.engine, j, dry)
        job_id = f"job{self.next_id}"
        self.next_id += 1
        p = self.engine.arrive(job_id, name)
        assert p == dry
        for gone in p.preempted:  # none of the baselines preempts; DRA+Preemption may
            del self.running[gone.job_id]
        if p.decision == "placed":
            self.running[job_id] = j
            assert self.engine.jobs[job_id] == (self.model.server_numbers[p.server_id], j)
        else:
            assert p.server_id is None and job_id not in self.engine.jobs
            if not p.preempted:
                assert self.engine.to_state()["jobs"] == before["jobs"]

    @precondition(lambda self: self.running)
    @rule(k=st.integers(0, 10**6))
    def depart(self, k: int) -> None:
        job_id = sorted(self.running)[k % len(self.running)]
        s, _ = self.engine.jobs[job_id]
        release = self.engine.depart(job_id)
        assert release.server_id == self.model.server_ids[s]
        del self.running[job_id]
        self.departed.append(job_id)

    # -- refused requests leave everything as it was

    @precondition(lambda self: self.running)
    @rule(k=st.integers(0, 10**6))
    def arrive_duplicate(self, k: int) -> None:
        job_id = sorted(self.running)[k % len(self.running)]
        self.refused(DuplicateJob, lambda: self.engine.arrive(job_id, self.model.job_types[0].name))

    @rule(k=st.integers(0, 10**6))
    def depart_unknown(self, k: int) -> None:
        ghosts = self.departed + ["never-seen"]
        job_id = ghosts[k % len(ghosts)]
        self.refused(UnknownJob, lambda: self.engine.depart(job_id))

    @rule()
    def arrive_unknown_type(self) -> None:
        self.refused(UnknownJobType, lambda: self.engine.arrive("new", "no-such-type"))
        self.refused(UnknownJobType, lambda: self.engine.decide_arrival("no-such-type"))

    # -- invariants

    @invariant()
    def within_capacity(self) -> None:
        for s, used in enumerate(recomputed_used(self.engine)):
            for u, c in zip(used, self.model.capacity(s)):
                assert u <= c + FIT_TOLERANCE

    @invariant()
    def bookkeeping_agrees_with_jobs(self) -> None:
        e, m = self.engine, self.model
        assert {jid: j for jid, (_, j) in e.jobs.items()} == self.running
        per_type = [0] * m.num_types
        for j in self.running.values():
            per_type[j] += 1
        assert e.jobs_per_type == per_type
        for s, used in enumerate(recomputed_used(e)):
            here = {jid for jid, (srv, _) in e.jobs.items() if srv == s}
            assert e.on_server[s] == here  # together: each job on exactly one server
            assert e.counts[s] == [sum(1 for jid in here if e.jobs[jid][1] == j)
                                   for j in range(m.num_types)]
            assert all(abs(a - b) < 1e-9 for a, b in zip(e.used[s], used))

    @invariant()
    def held_jobs_are_the_running_ones(self) -> None:
        m = self.model
        family = PlacementAdapter(self.engine)
        held, total = family.held_jobs(None, len(self.running) + 1)
        assert [h["job_id"] for h in held] == sorted(self.running) and total == len(self.running)
        # Two at a time after each id in turn: the same order, cut where asked.
        for k, h in enumerate(held):
            after = family.held_jobs(h["job_id"], 2)[0]
            assert after == held[k + 1:k + 3]
        for h in held:
            s, j = self.engine.jobs[h["job_id"]]
            assert h == {"job_id": h["job_id"], "job_type": m.job_types[j].name,
                         "status": "running", "server_id": m.server_ids[s]}

    @invariant()
    def snapshot_round_trips(self) -> None:
        state = json.loads(json.dumps(self.engine.to_state()))
        twin = self.engine_cls.from_state(self.model, self.params, state)
        assert twin.describe() == self.engine.describe()
        check_state_view(self.engine.describe())
        for sid in self.model.server_ids:
            ServerView.model_validate(self.engine.server_view(sid))
        assert twin.to_state() == state
        for t in self.model.job_types:
            assert twin.decide_arrival(t.name) == self.engine.decide_arrival(t.name)


def _test_case(cls: type[PlacementEngine], params: st.SearchStrategy[dict[str, Any]]) -> type:
    machine = type(f"{cls.__name__}Machine", (PlacementMachine,),
                   {"engine_cls": cls, "params_strategy": params})
    case = machine.TestCase
    case.settings = settings(max_examples=100, stateful_step_count=40, deadline=None)
    return case


# One TestCase per engine class (built in a function: pytest collects every TestCase it finds
# in the module namespace, so no stray loop variable may hold one).
globals().update({f"Test{cls.__name__}Invariants": _test_case(cls, params)
                  for cls, params in ENGINES})
