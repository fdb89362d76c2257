"""DRA's operator controls under random event streams (hypothesis).

Modes: GPA refresh (every event / every n / band), the migration budget on event times,
§8's draining no-migration mode, and preemption that admits. After every event: no server
exceeds its capacity or its configuration's slots, the free-slot index holds exactly the
servers that accept jobs, a draining server never receives a job, the budget was never
overspent, preempted jobs are gone and of lower priority. A copy restored from
``to_state`` at a random point makes the same decisions from there on.
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from app.api.schemas.state import ServerView
from app.policies.dra import DRAEngine
from app.policies.model import FIT_TOLERANCE
from tests.policies.dra.test_dra_properties import dra_models

from tests.helpers import check_state_view

CONTROLS = st.fixed_dictionaries({
    "reservation": st.sampled_from([{"b": 0.5}, {"slots": 1}, {"slots": 2}]),
    "migrations": st.sampled_from(["on", "off_no_drain", "off_drain", True, False]),
    "preemption": st.sampled_from(["off", "rebuild", "admit"]),
    "gpa_refresh": st.sampled_from(["every_event", {"every_events": 3}, {"band": 0.5},
                                    {"band": 0.0}]),
})
BUDGETS = st.one_of(st.none(), st.fixed_dictionaries({
    "rate": st.sampled_from([0.1, 0.5, 2.0]), "per": st.sampled_from(["server", "cluster"]),
    "burst": st.sampled_from([1, 2, 5]), "clock": st.just("client")}))


def accepting(e: DRAEngine, s: int) -> bool:
    return not (e.cra.in_rg(s) or e._drained[s])


def check_invariants(e: DRAEngine) -> None:
    m, cra = e.model, e.cra
    for s in range(m.num_servers):
        cap = m.capacity(s)
        assert all(u <= c + 1e-6 + FIT_TOLERANCE for u, c in zip(e.used[s], cap))
        k = cra.cfgs[cra.cfg_of[s]]
        assert all(n <= kj for n, kj in zip(e.counts[s], k))
    for j in range(m.num_types):
        free = {s for s in range(m.num_servers) if accepting(e, s)
                and cra.cfgs[cra.cfg_of[s]][j] > e.counts[s][j]}
        assert set(e._free[j]._key) == free
        assert e._free_total[j] == sum(cra.cfgs[cra.cfg_of[s]][j] - e.counts[s][j]
                                       for s in range(m.num_servers))
    if e.opts.migrations == "off_drain":  # exactly the rank-(J+1) servers drain
        want = {s for s in range(m.num_servers) if cra.rank(s) == m.num_types + 1}
        assert {s for s in range(m.num_servers) if e._drained[s]} == want
    else:
        assert not any(e._drained)
    b = e.opts.budget
    if b is not None:  # never more than the burst plus what the rate refilled
        assert e.tokens >= 0
        assert e.migration_count <= b.burst + b.rate * e.now + 1e-9


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow], phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(model=dra_models(), params=CONTROLS, budget=BUDGETS, data=st.data())
def test_controls_keep_invariants_and_survive_a_round_trip(model, params, budget, data):
    if budget is not None:
        params = {**params, "migrations": "on", "migration_budget": budget}
    events = data.draw(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 10**6),
                                          st.sampled_from([0.0, 0.1, 0.5, 2.0])),
                                min_size=2, max_size=80))
    cut = data.draw(st.integers(0, len(events)))
    a = DRAEngine(model, params)
    b = None
    t, seq = 0.0, 0
    for n, (kind, pick, dt) in enumerate(events):
        if n == cut:
            b = DRAEngine.from_state(model, params, json.loads(json.dumps(a.to_state())))
        engines = [a] if b is None else [a, b]
        t += dt
        for x in engines:
            x.observe_time(t)
        if kind or not a.jobs:  # arrivals three times as often as departures
            j = pick % model.num_types
            before = {s for s in range(model.num_servers) if accepting(a, s)}
            prio = {jid: model.job_types[a.jobs[jid][1]].priority for jid in a.jobs}
            out = [x.arrive(f"j{seq}", model.job_types[j].name).to_dict() for x in engines]
            seq += 1
            p = out[0]
            if p["decision"] == "placed" and p["reason"] == "placed_in_reserved_slot":
                assert model.server_numbers[p["server_id"]] in before
            if p["preempted"] and p["decision"] == "placed":
                assert params["preemption"] == "admit"
                assert all(prio[q["job_id"]] < model.job_types[j].priority
                           for q in p["preempted"])
                assert {q["server_id"] for q in p["preempted"]} == {p["server_id"]}
            assert all(q["job_id"] not in a.jobs for q in p["preempted"])
        else:
            jid = sorted(a.jobs)[pick % len(a.jobs)]
            out = [x.depart(jid).to_dict() for x in engines]
            if out[0]["migration"] is not None:
                assert a.opts.migrations == "on"
        assert all(o == out[0] for o in out)
        check_invariants(a)
    if b is not None:
        assert a.to_state() == b.to_state()
        assert a.describe() == b.describe()
    check_state_view(a.describe())
    for sid in model.server_ids:
        ServerView.model_validate(a.server_view(sid))
