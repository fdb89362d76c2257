"""DRA under random arrivals and departures, checked step by step against a literal CRA.

After every event the engine's configurations, server order (indexes), ranks, I*, Reject
Group, placement choice and migration must equal what ``dra_reference`` computes from the
state before the event, and the bookkeeping invariants must hold (capacity, slots, Remark 2,
job counts, index structures). Round trips through ``to_state``/``from_state`` must not
change any later decision.
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from app.policies.dra import DRAEngine
from app.policies.model import FIT_TOLERANCE, ClusterModel, JobType, ServerPool
from tests.policies.dra.dra_reference import reference_cra, reference_rg_j


@st.composite
def dra_models(draw):
    dims = draw(st.integers(1, 3))
    cap = tuple(float(draw(st.integers(2, 6))) for _ in range(dims))
    types = []
    for j in range(draw(st.integers(1, 4))):
        demand = [float(draw(st.integers(0, int(c)))) for c in cap]
        if not any(demand):
            demand[0] = 1.0
        if draw(st.booleans()):
            demand = [d / 2 for d in demand]
        types.append(JobType(f"t{j}", tuple(demand), float(draw(st.sampled_from([1, 2, 3, 5]))),
                             draw(st.integers(0, 2))))
    pools = (ServerPool("p", draw(st.integers(1, 7)), cap),)
    if draw(st.booleans()):  # two pools of identical servers are one DRA system
        pools = (ServerPool("a", draw(st.integers(1, 3)), cap), ServerPool("b", 2, cap))
    return ClusterModel(tuple(f"d{i}" for i in range(dims)), pools, tuple(types))


PARAMS = st.fixed_dictionaries({
    "reservation": st.sampled_from([{"b": 0.5}, {"slots": 1}, {"slots": 2}, {"slots": 0.5}, 3]),
    "migrations": st.booleans(),
    "preemption": st.booleans(),
})


def reference_state(engine: DRAEngine):
    cra = engine.cra
    L = engine.model.num_servers
    orders = {k: v for k, v in cra.orders().items()}
    rank = {s: cra.rank(s) for s in range(L)}
    return orders, rank, cra.istar, set(cra.rg_servers())


class DRAMachine(RuleBasedStateMachine):
    @initialize(model=dra_models(), params=PARAMS, data=st.data())
    def setup(self, model, params, data):
        self.model, self.params = model, params
        self.next_id = 0
        L = model.num_servers
        placements = []
        if data.draw(st.booleans(), label="start from placements"):
            # §4 initialization: random feasible placements become configurations
            for s in range(L):
                used = [0.0] * len(model.dimensions)
                for j in data.draw(st.lists(st.integers(0, model.num_types - 1), max_size=4)):
                    if model.fits(used, model.job_types[j].demand, model.capacity(s)):
                        used = [u + d for u, d in zip(used, model.job_types[j].demand)]
                        placements.append((f"init-{len(placements)}", model.server_ids[s],
                                           model.job_types[j].name))
        self.engine = DRAEngine.from_placements(model, params, placements)
        self.expected_jobs = len(placements)
        orders = {}
        for s in range(L - 1, -1, -1):  # index 1 = smallest server number
            orders.setdefault(tuple(self.engine.counts[s]), []).append(s)
        self.check_against_reference(orders, self.empty_servers())

    # ---- reference comparison -----------------------------------------------------------

    def check_against_reference(self, orders_before, empty_after):
        e = self.engine
        y_hat = [y + e.opts.g for y in e.jobs_per_type]
        orders, rank, istar, rg = reference_cra(e.space, e.model.num_servers, orders_before,
                                                empty_after, y_hat)
        got_orders, got_rank, got_istar, got_rg = reference_state(e)
        assert got_orders == orders
        assert got_rank == rank
        assert got_istar == istar
        assert got_rg == rg
        if istar < e.space.J:
            event("deficit left (I* < J)")
        if any(v[-1] in rg for k, v in orders.items() if any(k)):
            event("non-empty configuration in Reject Group")

    def empty_servers(self):
        return {s for s in range(self.model.num_servers) if not self.engine.on_server[s]}

    # ---- rules --------------------------------------------------------------------------

    @rule(data=st.data())
    def arrive(self, data):
        self.checked_arrival(data.draw(st.integers(0, self.model.num_types - 1)))

    @rule(data=st.data())
    def burst(self, data):
        """Several arrivals, to push the small clusters into overload (deficits, RG, ...)."""
        for j in data.draw(st.lists(st.integers(0, self.model.num_types - 1), max_size=12)):
            self.checked_arrival(j)

    def checked_arrival(self, j):
        e = self.engine
        orders, rank, istar, rg = reference_state(e)
        cfg = {s: k for k, servers in orders.items() for s in servers}
        free_ag = [s for s in range(self.model.num_servers)
                   if s not in rg and cfg[s][j] > e.counts[s][j]]
        dry = e.decide_arrival(self.model.job_types[j].name)
        jid = f"job-{self.next_id}"
        self.next_id += 1
        p = e.arrive(jid, self.model.job_types[j].name)
        assert p.to_dict() == {**dry.to_dict(), "reconfigured": p.to_dict()["reconfigured"]}
        if free_ag:
            assert p.decision == "placed"
            assert p.server_id == self.model.server_ids[min(free_ag)]
            assert not p.preempted
            self.expected_jobs += 1
        else:
            assert p.decision == "rejected"
            self.check_preemptions(j, p, rg, rank)
            self.expected_jobs -= len(p.preempted)
            if not p.preempted:
                assert reference_state(e) == (orders, rank, istar, rg)  # nothing ran
        event(f"arrival {p.decision}" + (" with preemption" if p.preempted else ""))
        if p.reconfigured:
            event("reconfiguration on arrival")
        for r in p.reconfigured:
            assert not e.on_server[self.model.server_numbers[r.server_id]] or \
                self.model.server_numbers[r.server_id] == p.server_id
        self.check_against_reference(orders, self.empty_servers())

    def check_preemptions(self, j, p, rg, rank):
        e, types = self.engine, self.model.job_types
        if not (e.opts.preemption == "rebuild" and types[j].priority >= 1):
            assert not p.preempted
            return
        candidates = sorted((e.size[t], -rank[s], s, jid)
                            for s in rg for jid in _jobs_on(e, s, before=p)
                            for t in [_type_of(e, jid, p)] if types[t].priority == 0)
        goal, total, want = e.opts.g * e.size[j], 0.0, []
        for size, _, s, jid in candidates:
            if total >= goal:
                break
            want.append(jid)
            total += size
        assert [x.job_id for x in p.preempted] == want
        for x in p.preempted:
            assert x.job_id not in e.jobs

    @precondition(lambda self: self.engine.jobs)
    @rule(data=st.data())
    def depart(self, data):
        e = self.engine
        jid = data.draw(st.sampled_from(sorted(e.jobs)))
        s, j = e.jobs[jid]
        orders, rank, istar, rg = reference_state(e)
        want_from = None
        if e.opts.migrations == "on" and s not in rg:
            want_from = reference_rg_j(rg, rank, e.counts, j)
        want_job = None if want_from is None else min(
            x for x in e.on_server[want_from] if e.jobs[x][1] == j)
        release = e.depart(jid)
        self.expected_jobs -= 1
        event("migration" if release.migration else "departure without migration")
        if release.reconfigured:
            event("reconfiguration on departure")
        if want_from is None:
            assert release.migration is None
        else:
            m = release.migration
            assert (m.job_id, m.from_server_id, m.to_server_id) == (
                want_job, self.model.server_ids[want_from], self.model.server_ids[s])
            assert e.jobs[want_job] == (s, j)  # same type, into the freed AG slot
        self.check_against_reference(orders, self.empty_servers())

    @rule()
    def round_trip(self):
        state = json.loads(json.dumps(self.engine.to_state()))
        restored = DRAEngine.from_state(self.model, self.params, state)
        assert reference_state(restored) == reference_state(self.engine)
        assert restored.to_state() == self.engine.to_state()
        self.engine = restored

    # ---- invariants ---------------------------------------------------------------------

    @invariant()
    def bookkeeping(self):
        e = self.engine
        if not hasattr(self, "engine"):
            return
        m, cra = self.model, e.cra
        assert len(e.jobs) == self.expected_jobs == sum(e.jobs_per_type)
        rg_per_config = {}
        for s in range(m.num_servers):
            cap = m.capacity(s)
            for d, used in enumerate(e.used[s]):
                assert used <= cap[d] + 1e-6 + FIT_TOLERANCE
            k = cra.cfgs[cra.cfg_of[s]]
            assert all(n <= kj for n, kj in zip(e.counts[s], k))
            if cra.in_rg(s):
                rg_per_config[cra.cfg_of[s]] = rg_per_config.get(cra.cfg_of[s], 0) + 1
        assert all(n == 1 for n in rg_per_config.values())  # Remark 2
        for j in range(m.num_types):
            free = {s for s in range(m.num_servers) if not cra.in_rg(s)
                    and cra.cfgs[cra.cfg_of[s]][j] > e.counts[s][j]}
            assert set(e._free[j]._key) == free
            assert e._free_total[j] == sum(cra.cfgs[cra.cfg_of[s]][j] - e.counts[s][j]
                                           for s in range(m.num_servers))
            assert e._rg_by_type[j] == {s for s in cra.rg_servers() if e.counts[s][j]}
        for c, heap in enumerate(cra.empties):
            assert set(heap._key) == {s for s in cra.members[c].oldest_first()
                                      if not e.on_server[s]}


def _jobs_on(engine, s, before):
    """Jobs on server s before the arrival ``before`` (its preempted jobs included)."""
    gone = {x.job_id for x in before.preempted if x.server_id == engine.model.server_ids[s]}
    return sorted(engine.on_server[s] | gone)


def _type_of(engine, jid, placement):
    if jid in engine.jobs:
        return engine.jobs[jid][1]
    return next(engine.model.type_index(x.job_type) for x in placement.preempted
                if x.job_id == jid)


DRAMachine.TestCase.settings = settings(max_examples=300, stateful_step_count=60, deadline=None,
                                        suppress_health_check=[HealthCheck.too_slow])
TestDRAMachine = DRAMachine.TestCase


@settings(max_examples=60, deadline=None)
@given(model=dra_models(), params=PARAMS, data=st.data())
def test_snapshot_midway_makes_identical_decisions(model, params, data):
    events = data.draw(st.lists(st.tuples(st.booleans(), st.integers(0, 10**6)),
                                min_size=2, max_size=60))
    cut = data.draw(st.integers(0, len(events)))
    a = DRAEngine(model, params)
    b = None
    seq = 0
    for n, (is_arrival, pick) in enumerate(events):
        if n == cut:
            b = DRAEngine.from_state(model, params, json.loads(json.dumps(a.to_state())))
        engines = [a] if b is None else [a, b]
        if is_arrival or not a.jobs:
            name = model.job_types[pick % model.num_types].name
            out = [x.arrive(f"j{seq}", name).to_dict() for x in engines]
            seq += 1
        else:
            jid = sorted(a.jobs)[pick % len(a.jobs)]
            out = [x.depart(jid).to_dict() for x in engines]
        assert all(o == out[0] for o in out)
    if b is not None:
        assert a.to_state() == b.to_state()
        assert a.describe() == b.describe()
