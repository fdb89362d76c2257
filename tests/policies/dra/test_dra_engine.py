"""DRA engine pins: CRA indexing per Figure 1's description, Example 2, options, reports."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.policies.dra import DRAEngine
from app.policies.model import ClusterModel, JobType, ServerPool


def ex1_model(servers: int, priorities=(0, 0)) -> ClusterModel:
    """Example 1's server (5, 4) with types a = (2, 1), u = 10 and b = (1, 2), u = 1."""
    return ClusterModel(("r1", "r2"), (ServerPool("s", servers, (5.0, 4.0)),),
                        (JobType("a", (2.0, 1.0), 10.0, priorities[0]),
                         JobType("b", (1.0, 2.0), 1.0, priorities[1])))


def figure1_engine(extra_empty: int = 0, **params) -> DRAEngine:
    """Y = (3, 5), g = 1 slot, so Ŷ = (4, 6) and GPA = [((2,1), 2), ((0,2), 2)].

    Servers s-0..s-2 are in (2,1): one server more than X̂ = 2. s-3 is the only (0,2) server,
    one short of X̂ = 2. s-4 holds one b job in the non-greedy configuration (1,1).
    Indexes follow initialization: index 1 is the smallest server number (s-0 in (2,1)).
    """
    placements = [("a0", "s-0", "a"), ("b0", "s-0", "b"), ("a1", "s-1", "a"),
                  ("a2", "s-2", "a"), ("b1", "s-2", "b"), ("b2", "s-3", "b"),
                  ("b3", "s-3", "b"), ("b4", "s-4", "b")]
    configs = {"s-0": {"a": 2, "b": 1}, "s-1": {"a": 2, "b": 1}, "s-2": {"a": 2, "b": 1},
               "s-3": {"b": 2}, "s-4": {"a": 1, "b": 1}}
    return DRAEngine.from_placements(ex1_model(5 + extra_empty),
                                     {"reservation": {"slots": 1}, **params},
                                     placements, configs)


def view(e: DRAEngine, s: int) -> tuple:
    v = e.server_view(f"s-{s}")
    return v["configuration"], v["index"], v["rank"], v["group"]


def test_figure1_ranks_follow_the_text_not_the_pseudocode():
    e = figure1_engine()
    assert e.cra.istar == 2  # (0,2) cannot get its second server: I* = 2
    # (2,1): X = 3 > X̂ = 2, so rank 1 goes to indexes > X − X̂ = 1, the two oldest servers.
    # The pseudo-code's loop would rank indexes 2 and 1 instead and leave index 3 out.
    assert view(e, 1) == ({"a": 2, "b": 1}, 2, 1, "accept")
    assert view(e, 2) == ({"a": 2, "b": 1}, 3, 1, "accept")
    # index 1 has rank J + 1 = 3 > I*: the configuration's Reject-Group server
    assert view(e, 0) == ({"a": 2, "b": 1}, 1, 3, "reject")
    # (0,2) has a deficit: all its servers get rank 2 <= I*, so it has no RG server
    assert view(e, 3) == ({"b": 2}, 1, 2, "accept")
    # Example 2: a non-greedy configuration never gets a rank below J + 1
    assert view(e, 4) == ({"a": 1, "b": 1}, 1, 3, "reject")


def test_figure1_arrival_skips_the_reject_group():
    e = figure1_engine()
    p = e.arrive("a3", "a")  # s-0 (RG) has a free a slot, s-1 is the first AG one
    assert (p.decision, p.server_id, p.reason) == ("placed", "s-1", "placed_in_reserved_slot")
    assert p.details["rank"] == 1 and p.details["gpa_target_servers"] == 2
    # then Ŷ_a = 5 asks for 3 servers of (2,1): all of them are rank 1, s-0 joins the AG
    assert view(e, 0) == ({"a": 2, "b": 1}, 1, 1, "accept")


def test_figure1_departure_migrates_from_the_highest_rank_rg_server():
    e = figure1_engine()
    # b leaves s-2 (AG): RG_b is the highest-rank RG server with a b job; s-0 and s-4 both
    # have rank 3, the smaller server number wins, and its b job fills the freed slot.
    r = e.depart("b1")
    assert r.migration is not None
    assert (r.migration.job_id, r.migration.from_server_id, r.migration.to_server_id) == (
        "b0", "s-0", "s-2")


def test_figure1_an_empty_server_is_reassigned_and_becomes_index_1():
    e = figure1_engine(extra_empty=1)  # s-5 starts empty in the empty configuration
    assert view(e, 5) == ({"b": 2}, 1, 2, "accept")
    assert view(e, 3) == ({"b": 2}, 2, 2, "accept")
    assert e.cra.istar == 2  # = J: every deficit matched
    assert view(e, 0)[3] == "reject"  # (2,1)'s excess index 1 is still rank 3 > I*


def test_exact_target_ranks_every_server_and_reassigns_nothing():
    # X = X̂: the pseudo-code would reach c = 0 and try to reassign a server; the text ranks all.
    placements = [("a0", "s-0", "a"), ("a1", "s-1", "a")]
    configs = {"s-0": {"a": 2, "b": 1}, "s-1": {"a": 2, "b": 1}}
    # Ŷ = (2 + 1.5, 0 + 1.5): ceil(3.5/2) = 2 = ceil(1.5/1): tie -> type a, X̂ = 2 = X
    e = DRAEngine.from_placements(ex1_model(2), {"reservation": {"slots": 1.5}},
                                  placements, configs)
    assert [view(e, s)[2] for s in (0, 1)] == [1, 1]
    assert e.describe()["configurations"][0]["gpa_target_servers"] == 2


def test_example2_initialization_takes_the_placement_as_configuration():
    e = DRAEngine.from_placements(ex1_model(3), None, [("x", "s-0", "a"), ("y", "s-0", "b")])
    assert view(e, 0) == ({"a": 1, "b": 1}, 1, 3, "reject")
    # it keeps rank J + 1 while it has jobs, whatever else happens
    for n in range(6):
        e.arrive(f"n{n}", "ab"[n % 2])
        assert view(e, 0)[:3] == ({"a": 1, "b": 1}, 1, 3)
    e.depart("x")
    assert view(e, 0)[:3] == ({"a": 1, "b": 1}, 1, 3)
    # once empty it is an empty rank-(J+1) server, and GPA wants a third (2,1) server
    r = e.depart("y")
    assert [(x.server_id, x.configuration) for x in r.reconfigured] == [
        ("s-0", {"a": 2, "b": 1})]
    assert view(e, 0) == ({"a": 2, "b": 1}, 1, 1, "accept")


def test_initialization_rejects_infeasible_input():
    with pytest.raises(ValueError, match="does not fit"):
        DRAEngine.from_placements(ex1_model(1), None, [(f"a{i}", "s-0", "a") for i in range(3)])
    with pytest.raises(ValueError, match="more a jobs than its configuration"):
        DRAEngine.from_placements(ex1_model(1), None, [("a0", "s-0", "a")], {"s-0": {"b": 1}})


def test_pools_of_equal_servers_are_one_system_and_different_ones_are_refused():
    types = (JobType("a", (1.0,), 1.0),)
    same = ClusterModel(("cpu",), (ServerPool("x", 2, (4.0,)), ServerPool("y", 3, (4.0,))), types)
    assert DRAEngine(same).describe()["servers"] == 5
    mixed = ClusterModel(("cpu",), (ServerPool("x", 2, (4.0,)), ServerPool("y", 3, (8.0,))),
                         types)
    with pytest.raises(ValueError, match="dra needs one server pool"):
        DRAEngine(mixed)


@pytest.mark.parametrize("params, match", [
    ({"reservation": {"b": -1}}, "reservation.b"),
    ({"reservation": {"slots": 0}}, "slots must be > 0"),
    ({"reservation": {"c": 1}}, "reservation must be"),
    ({"reservation": "many"}, "finite number"),
    ({"migrations": "yes"}, "must be one of"),
    ({"colour": "red"}, "unknown dra parameters"),
])
def test_bad_params_are_refused(params, match):
    with pytest.raises(ValueError, match=match):
        DRAEngine(ex1_model(2), params)


def test_reservation_factor():
    assert DRAEngine(ex1_model(1000)).opts.g == pytest.approx(6.907755 ** 1.5, rel=1e-6)
    assert DRAEngine(ex1_model(1000), {"reservation": {"b": 1}}).opts.g == pytest.approx(
        6.907755 ** 2, rel=1e-6)
    assert DRAEngine(ex1_model(1)).opts.g == 1.0  # floored: ln(1) = 0 would reserve nothing
    assert DRAEngine(ex1_model(5), {"reservation": 4}).opts.g == 4.0


def test_without_migrations_nothing_moves():
    e = figure1_engine(migrations=False)
    r = e.depart("b1")
    assert r.migration is None
    assert e.jobs["b0"][0] == 0  # still on its Reject-Group server


def test_preemption_takes_priority0_jobs_from_the_reject_group_and_still_rejects():
    # a has priority 1, b priority 0. s-0 holds a b job in the non-greedy (1,1): it is its
    # configuration's index 1 at rank J + 1, so Reject Group. s-1 and s-2 are full (2,1).
    placements = [("b0", "s-0", "b"), ("a1", "s-1", "a"), ("a2", "s-1", "a"),
                  ("b1", "s-1", "b"), ("a3", "s-2", "a"), ("a4", "s-2", "a"), ("b2", "s-2", "b")]
    model = ex1_model(3, priorities=(1, 0))
    e = DRAEngine.from_placements(model, {"reservation": {"slots": 1}, "preemption": True},
                                  placements, {"s-0": {"a": 1, "b": 1}})
    assert {s for s in range(3) if view(e, s)[3] == "reject"} == {0}
    dry = e.decide_arrival("a")
    assert [x.job_id for x in dry.preempted] == ["b0"] and "b0" in e.jobs  # dry run
    p = e.arrive("a9", "a")
    assert (p.decision, p.reason) == ("rejected", "no_free_slot_in_accept_group")
    # goal g * s_a = 1 * 2/5; b0's size max(1/5, 2/4) = 0.5 reaches it
    assert [(x.job_id, x.job_type, x.server_id) for x in p.preempted] == [("b0", "b", "s-0")]
    assert p.details["preempted_size"] == 0.5 and p.details["preemption_target_size"] == 0.4
    assert "b0" not in e.jobs and "a9" not in e.jobs
    # the emptied server is reassigned to the configuration GPA wants, ready for a
    assert [(r.server_id, r.configuration) for r in p.reconfigured] == [
        ("s-0", {"a": 2, "b": 1})]
    assert e.arrive("a10", "a").server_id == "s-0"


def test_priority0_rejections_never_preempt():
    placements = [("b0", "s-0", "b"), ("a1", "s-1", "a"), ("a2", "s-1", "a"), ("b1", "s-1", "b")]
    model = ex1_model(2, priorities=(0, 0))
    e = DRAEngine.from_placements(model, {"reservation": {"slots": 1}, "preemption": True},
                                  placements, {"s-0": {"a": 1, "b": 1}})
    p = e.arrive("a9", "a")
    assert p.decision == "rejected" and not p.preempted


def test_rejection_details_explain_the_decision():
    e = figure1_engine()
    n = 0
    while (p := e.arrive(f"x{n}", "a")).decision == "placed":
        n += 1
    d = p.details
    assert p.reason == "no_free_slot_in_accept_group"
    assert d["free_slots_in_accept_group"] == 0
    assert d["free_slots_in_reject_group"] == sum(
        e.cra.cfgs[e.cra.cfg_of[s]][0] - e.counts[s][0] for s in e.cra.rg_servers())
    assert d["jobs_of_type"] == e.jobs_per_type[0] and d["g"] == 1.0
    assert d["istar"] == e.cra.istar
    assert d["gpa_configurations_with_type"][0]["configuration"] == {"a": 2, "b": 1}


def test_a_type_that_fits_no_server_says_so():
    model = ClusterModel(("cpu",), (ServerPool("s", 2, (4.0,)),),
                         (JobType("small", (1.0,), 1.0), JobType("huge", (5.0,), 9.0)))
    p = DRAEngine(model).arrive("h", "huge")
    assert (p.decision, p.reason) == ("rejected", "type_fits_no_server")


def test_describe_lists_configurations_in_definition2_order():
    e = figure1_engine()
    d = e.describe()
    assert [c["configuration"] for c in d["configurations"]] == [
        {"a": 2, "b": 1}, {"a": 1, "b": 1}, {"b": 2}]
    first = d["configurations"][0]
    assert (first["gpa_target_servers"], first["servers"], first["rank"],
            first["accept_group"], first["reject_group"]) == (2, 3, 1, 2, 1)
    assert d["istar"] == 2 and d["g"] == 1.0
    assert d["free_slots_in_accept_group"] == {"a": 2, "b": 1}  # s-1 has both
    assert d["reward_rate"] == 3 * 10 + 5 * 1


def test_reconfigurations_are_reported_on_arrivals():
    e = DRAEngine(ex1_model(10))
    p = e.arrive("j0", "a")
    assert [(r.server_id, r.configuration) for r in p.reconfigured] == [("s-3", {"a": 2, "b": 1})]
    assert p.to_dict()["reconfigured"] == [{"server_id": "s-3",
                                            "configuration": {"a": 2, "b": 1}}]


# A workload whose mix shifts, with migrations, preemptions and reconfigurations.
SCRIPT = """
import json
from app.policies.dra import DRAEngine
from app.policies.model import ClusterModel, JobType, ServerPool
m = ClusterModel(("c", "m"), (ServerPool("p", 12, (8.0, 8.0)),),
                 (JobType("x", (2.0, 1.0), 3.0, 0), JobType("y", (1.0, 3.0), 2.0, 1),
                  JobType("z", (4.0, 4.0), 9.0, 2)))
e = DRAEngine(m, {"preemption": True, "reservation": {"slots": 2}})
out, alive, n = [], [], 0
for step in range(900):
    phase = (step // 150) % 3          # the mix changes every 150 steps
    if step % 3 == 2 and alive:
        out.append(e.depart(alive.pop((step * 7) % len(alive))).to_dict())
    else:
        p = e.arrive(f"job{n}", "xyz"[(phase + step % 2) % 3]); n += 1
        out.append(p.to_dict())
        if p.decision == "placed":
            alive.append(f"job{n - 1}")
        alive = [a for a in alive if a in e.jobs]
print(json.dumps(out))
"""


def test_decisions_do_not_depend_on_the_hash_seed():
    runs = []
    for seed in ("1", "2"):
        root = str(Path(__file__).resolve().parents[2])
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": root}
        res = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                             text=True, check=True, cwd=root)
        runs.append(json.loads(res.stdout))
    assert runs[0] == runs[1]
    assert any(r.get("migration") for r in runs[0])
    assert any(r.get("preempted") for r in runs[0])
