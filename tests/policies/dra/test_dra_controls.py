"""DRA's operator controls, case by case: mode names, §8's draining mode, preemption that
admits, the migration budget and GPA refresh."""

from __future__ import annotations

import json

import pytest

from app.policies.dra import DRAEngine
from app.policies.model import ClusterModel, JobType, ServerPool
from tests.policies.dra.test_dra_engine import ex1_model, figure1_engine


def test_old_boolean_spellings_map_to_the_honest_names():
    assert figure1_engine(migrations=False).opts.migrations == "off_no_drain"
    assert figure1_engine(migrations=True).opts.migrations == "on"
    e = figure1_engine(preemption=True)
    assert e.opts.preemption == "rebuild"
    d = e.describe()
    assert (d["migrations"], d["preemption"]) == ("on", "rebuild")


@pytest.mark.parametrize("params, match", [
    ({"migrations": "drain"}, "must be one of"),
    ({"preemption": "always"}, "must be one of"),
    ({"gpa_refresh": {"band": 1.0}}, "< 1"),
    ({"gpa_refresh": {"every_events": 0}}, ">= 1"),
    ({"migration_budget": {"rate": 0}}, "rate > 0"),
    ({"migration_budget": {"rate": 1, "burst": 0.5}}, "burst"),
])
def test_bad_control_params_are_refused(params, match):
    with pytest.raises(ValueError, match=match):
        DRAEngine(ex1_model(3), params)


def test_b_zero_still_loads_in_the_engine():
    # The API refuses b = 0 at declaration; clusters stored before that rule must load.
    assert DRAEngine(ex1_model(50), {"reservation": {"b": 0}}).opts.g == pytest.approx(
        __import__("math").log(50))


def three_in_one_one(mode: str, servers: int = 5) -> DRAEngine:
    """s-0..s-2 each hold one b job in (1,1), a configuration GPA never picks (rank J+1);
    the other servers are empty."""
    placements = [("b0", "s-0", "b"), ("b1", "s-1", "b"), ("b2", "s-2", "b")]
    configs = {f"s-{i}": {"a": 1, "b": 1} for i in range(3)}
    return DRAEngine.from_placements(ex1_model(servers), {"reservation": {"slots": 1},
                                                    "migrations": mode}, placements, configs)


def test_off_drain_puts_every_rank_j1_server_in_the_reject_group():
    keep, drain = three_in_one_one("off_no_drain"), three_in_one_one("off_drain")
    groups = lambda e: [e.server_view(f"s-{i}")["group"] for i in range(3)]  # noqa: E731
    assert groups(keep).count("reject") == 1  # DRA's Reject Group: the index-1 server only
    assert groups(drain) == ["reject"] * 3
    # An a arrival goes to a (1,1) server's free a slot without draining; with it, never.
    for n in range(6):
        p = drain.arrive(f"a{n}", "a")
        assert p.server_id not in {"s-0", "s-1", "s-2"}
    assert any(keep.arrive(f"a{n}", "a").server_id in {"s-0", "s-1", "s-2"} for n in range(6))


def test_off_drain_reassigns_a_drained_server_once_it_empties():
    e = three_in_one_one("off_drain", servers=3)  # no empty server: GPA's deficit waits
    assert e.server_view("s-1")["group"] == "reject"
    r = e.depart("b1")
    assert r.migration is None
    assert e.server_view("s-1")["configuration"] != {"a": 1, "b": 1}  # reassigned by CRA
    assert e.server_view("s-1")["group"] == "accept"


def priority_model(servers: int = 2) -> ClusterModel:
    return ClusterModel(("cpu",), (ServerPool("s", servers, (4.0,)),),
                        (JobType("low", (1.0,), 2.0, 0), JobType("mid", (2.0,), 3.0, 1),
                         JobType("high", (2.0,), 9.0, 2)))


def fill_with_low(mode: str) -> tuple[DRAEngine, int]:
    e = DRAEngine(priority_model(), {"reservation": {"slots": 1}, "preemption": mode})
    return e, sum(e.arrive(f"l{x}", "low").decision == "placed" for x in range(8))


def test_admit_preempts_lower_priority_jobs_and_places_the_arrival():
    e, lows = fill_with_low("admit")
    assert lows >= 2
    for n in range(6):
        dry = e.decide_arrival("high")
        p = e.arrive(f"h{n}", "high")
        assert p.to_dict() == {**dry.to_dict(), "reconfigured": p.to_dict()["reconfigured"]}
        assert p.decision == "placed"  # a high job always finds low jobs to preempt
        if p.reason == "placed_after_preemption":
            break
    else:
        pytest.fail("no high arrival needed a preemption")
    assert p.preempted and all(q.job_type == "low" for q in p.preempted)
    assert {q.server_id for q in p.preempted} == {p.server_id}
    assert all(q.job_id not in e.jobs for q in p.preempted)
    assert e.jobs[f"h{n}"] == (e.model.server_numbers[p.server_id], 2)
    assert all(u <= 4.0 for used in e.used for u in used)
    assert e.describe()["preemptions"] == len(p.preempted)
    assert p.details["preempted_reward"] == 2.0 * len(p.preempted)


def test_rebuild_preemption_never_admits_the_arriving_job():
    e, _ = fill_with_low("rebuild")
    decisions = [e.arrive(f"h{n}", "high") for n in range(6)]
    assert all(p.reason != "placed_after_preemption" for p in decisions)
    assert any(p.decision == "rejected" and p.preempted for p in decisions)


def test_admit_never_preempts_equal_or_higher_priority():
    e = DRAEngine(priority_model(), {"reservation": {"slots": 1}, "preemption": "admit"})
    highs = [e.arrive(f"h{n}", "high") for n in range(6)]
    assert highs[-1].decision == "rejected" and not highs[-1].preempted
    p = e.arrive("m", "mid")
    assert p.decision == "rejected" and not p.preempted


def test_migration_budget_skips_migrations_without_a_token_and_refills_with_time():
    budget = {"rate": 1.0, "per": "cluster", "burst": 1, "clock": "client"}
    e = figure1_engine(migration_budget=budget)
    assert e.tokens == 1.0
    first = e.depart("b2")  # AG departure of a b job: RG_b (s-0 or s-4) gives one
    assert first.migration is not None and e.tokens == 0.0
    assert first.details["migrations"] == 1 and first.details["migrations_per_departure"] == 1
    second = e.depart("b3")
    assert second.migration is None and second.details["migration_skipped"] == "migration_budget"
    assert second.details["migrations_per_departure"] == 0.5
    e.observe_time(0.5)
    assert e.tokens == 0.5
    e.observe_time(3.0)
    assert e.tokens == 1.0  # capped at the burst
    restored = DRAEngine.from_state(e.model, e.params, json.loads(json.dumps(e.to_state())))
    assert (restored.tokens, restored.now, restored.migration_count) == (1.0, 3.0, 1)


def test_periodic_refresh_holds_gpa_input_between_refreshes():
    e = DRAEngine(ex1_model(20), {"reservation": {"slots": 1},
                                  "gpa_refresh": {"every_events": 4}})
    held = list(e._y_used)
    assert held == [1.0, 1.0]  # Y = 0 plus g: one (2,1) server, two a slots
    decisions = []
    for n in range(3):
        decisions.append(e.arrive(f"a{n}", "a").decision)
        assert e._y_used == held
    assert decisions == ["placed", "placed", "rejected"]  # the targets did not follow
    e.arrive("a3", "a")  # the 4th event (a rejection counts) refreshes Ŷ = Y + g
    assert e._y_used == [2 + 1.0, 1.0]
    assert e.arrive("a4", "a").decision == "placed"
    assert e.describe()["gpa_refresh"]["events_since_refresh"] == 1
