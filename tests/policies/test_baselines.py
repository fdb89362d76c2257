"""Hand-worked examples for the placement baselines: first-fit, best-fit, power-of-d."""

from __future__ import annotations

import numpy as np
import pytest

from app.policies.best_fit import BestFit
from app.policies.first_fit import FirstFit
from app.policies.model import ClusterModel, JobType, ServerPool
from app.policies.power_of_d import PowerOfD


def one_dim(servers: int = 3, cap: float = 10.0, *demands: float) -> ClusterModel:
    return ClusterModel(
        dimensions=("cpu",),
        pools=(ServerPool("s", servers, (cap,)),),
        job_types=tuple(JobType(f"t{x:g}", (x,), 1.0) for x in demands or (2.0, 5.0)),
    )


def with_jobs(cls, model, placement: list[tuple[int, int]], params=None, seed=0):
    """An engine with job k of type j on server s for each (s, j), via the snapshot path."""
    state = {
        "jobs": [[f"pre{k}", s, j] for k, (s, j) in enumerate(placement)],
        "rng": np.random.default_rng(seed).bit_generator.state,
        "extra": None,
    }
    return cls.from_state(model, params, state)


def placed_on(engine, job_id: str, job_type: str) -> str | None:
    return engine.arrive(job_id, job_type).server_id


# ---- first-fit ------------------------------------------------------------------------------

def test_first_fit_takes_the_lowest_numbered_server_with_room():
    e = FirstFit(one_dim(3, 10.0, 2.0, 5.0))
    assert [placed_on(e, f"a{i}", "t5") for i in range(3)] == ["s-0", "s-0", "s-1"]
    assert placed_on(e, "b", "t2") == "s-1"  # s-0 is full (10/10)
    e.depart("a0")
    assert placed_on(e, "c", "t2") == "s-0"  # room again on s-0, which is first


def test_first_fit_rejects_when_no_server_fits():
    e = FirstFit(one_dim(1, 10.0, 5.0, 20.0))
    assert e.arrive("big", "t20").decision == "rejected"
    e.arrive("a", "t5")
    e.arrive("b", "t5")
    p = e.arrive("c", "t5")
    assert (p.decision, p.reason) == ("rejected", "no_server_fits")


# ---- best-fit -------------------------------------------------------------------------------

def test_best_fit_picks_the_tightest_server():
    e = BestFit(one_dim(3, 10.0, 2.0, 5.0))
    assert placed_on(e, "x1", "t2") == "s-0"  # all empty: tie, lowest number
    assert placed_on(e, "x2", "t5") == "s-0"  # score .5*.2 beats 0
    assert placed_on(e, "x3", "t5") == "s-1"  # s-0 (7/10) has no room for 5
    e.depart("x2")
    # s-0 holds 2/10, s-1 holds 5/10: scores .2*.2=.04 and .2*.5=.1; first-fit would take s-0.
    p = e.arrive("x4", "t2")
    assert (p.server_id, p.reason) == ("s-1", "tightest_server_that_fits")
    assert p.details["score"] == pytest.approx(0.1)


def test_best_fit_ties_go_to_the_lowest_number_despite_float_noise():
    # s-1 holds 3 x 0.1 (= 0.30000000000000004 in binary), s-0 holds one 0.3. Mathematically
    # they are equally full, so the tie goes to s-0 although s-1's raw score is larger.
    m = one_dim(2, 1.0, 0.1, 0.3)
    e = with_jobs(BestFit, m, [(1, 0), (1, 0), (1, 0), (0, 1)])
    assert 3 * 0.1 > 0.3
    assert placed_on(e, "x", "t0.1") == "s-0"


def test_best_fit_normalises_by_each_pools_capacity():
    # Both servers are half full in cpu and memory. The job is a quarter of the big server but
    # half of the small one, so the small server is the tighter fit (normalised score 0.5 vs
    # 0.125). Unnormalised, the big server would win (2*8 + 8*32 = 272 > 2*2 + 8*8 = 68).
    m = ClusterModel(
        dimensions=("cpu", "mem"),
        pools=(ServerPool("big", 1, (16.0, 64.0)), ServerPool("small", 1, (4.0, 16.0))),
        job_types=(JobType("j", (2.0, 8.0), 1.0),),
    )
    e = with_jobs(BestFit, m, [(0, 0)] * 4 + [(1, 0)])
    p = e.arrive("x", "j")
    assert p.server_id == "small-0"
    assert p.details["score"] == pytest.approx(0.5)
    assert e.score(0, 0) == pytest.approx(0.125)


def test_best_fit_skips_servers_without_room_and_rejects_when_none_has():
    m = ClusterModel(
        dimensions=("cpu", "mem"),
        pools=(ServerPool("a", 2, (4.0, 4.0)),),
        job_types=(JobType("cpu", (3.0, 1.0), 1.0), JobType("mem", (1.0, 3.0), 1.0)),
    )
    e = BestFit(m)
    assert placed_on(e, "c1", "cpu") == "a-0"
    assert placed_on(e, "m1", "mem") == "a-0"  # (3,1)+(1,3) = (4,4): exactly full
    assert placed_on(e, "c2", "cpu") == "a-1"
    p = e.arrive("c3", "cpu")
    assert (p.decision, p.reason) == ("rejected", "no_server_fits")


# ---- power-of-d -----------------------------------------------------------------------------

def ten_loaded_servers(params, seed):
    # Server s holds s+1 jobs of size 1 out of 10 (load (s+1)/10), except s-3 which is empty.
    m = one_dim(10, 10.0, 1.0, 4.0)
    return with_jobs(PowerOfD, m, [(s, 0) for s in range(10) if s != 3 for _ in range(s + 1)],
                     params, seed)


def load_of(s: int) -> float:
    return 0.0 if s == 3 else (s + 1) / 10


def test_power_of_d_places_on_the_least_loaded_sampled_server():
    e = ten_loaded_servers({"d": 3}, seed=7)
    sample = [int(s) for s in np.random.default_rng(7).choice(10, size=3, replace=False)]
    p = e.arrive("x", "t1")
    assert [x["server_id"] for x in p.details["sampled"]] == [f"s-{s}" for s in sample]
    assert [x["load"] for x in p.details["sampled"]] == [load_of(s) for s in sample]
    least = min(sample, key=lambda s: (load_of(s), s))
    assert (p.decision, p.server_id, p.reason) == ("placed", f"s-{least}",
                                                   "least_loaded_sampled_server")


def test_power_of_d_with_d_at_least_L_is_least_loaded_over_all():
    e = ten_loaded_servers({"d": 10}, seed=1)
    rng_before = e.rng.bit_generator.state
    assert placed_on(e, "x", "t1") == "s-3"  # the only empty server
    assert placed_on(e, "y", "t1") == "s-0"  # s-0 and s-3 both at 0.1: lowest number
    assert placed_on(e, "z", "t4") == "s-3"  # s-3 alone at 0.1 now
    e.depart("y")
    assert placed_on(e, "w", "t4") == "s-0"  # s-0 back to 0.1; s-3 is at 0.5
    assert e.rng.bit_generator.state == rng_before  # nothing was drawn


def test_power_of_d_rejects_when_the_least_loaded_sampled_server_is_full():
    # a-0 is at 60% cpu (load .6), a-1 at 70% memory (load .7). A cpu-heavy job fits a-1 only.
    m = ClusterModel(
        dimensions=("cpu", "mem"),
        pools=(ServerPool("a", 2, (10.0, 10.0)),),
        job_types=(JobType("cpu6", (6.0, 0.0), 1.0), JobType("mem7", (0.0, 7.0), 1.0),
                   JobType("job", (5.0, 1.0), 1.0)),
    )
    literal = with_jobs(PowerOfD, m, [(0, 0), (1, 1)], {"d": 2})
    p = literal.arrive("x", "job")
    assert (p.decision, p.reason) == ("rejected", "least_loaded_sampled_server_full")
    assert p.details["least_loaded"] == "a-0"
    alternative = with_jobs(PowerOfD, m, [(0, 0), (1, 1)], {"d": 2, "only_feasible": True})
    p = alternative.arrive("x", "job")
    assert (p.decision, p.server_id) == ("placed", "a-1")


def test_power_of_d_dry_run_changes_neither_state_nor_rng():
    e = ten_loaded_servers({"d": 3}, seed=11)
    before = e.to_state()
    first = e.decide_arrival("t4")
    assert e.decide_arrival("t4") == first
    assert e.to_state() == before
    assert e.arrive("x", "t4") == first
    assert e.rng.bit_generator.state != before["rng"]  # arrive did draw


def test_power_of_d_snapshot_makes_the_same_future_decisions():
    e = ten_loaded_servers({"d": 2}, seed=5)
    e.arrive("a", "t1")
    twin = PowerOfD.from_state(e.model, e.params, e.to_state())
    for k in range(20):
        t = "t4" if k % 3 else "t1"
        assert twin.arrive(f"j{k}", t) == e.arrive(f"j{k}", t)


@pytest.mark.parametrize("d", [0, -1, 2.5, True, "5"])
def test_power_of_d_refuses_a_bad_d(d):
    with pytest.raises(ValueError):
        PowerOfD(one_dim(), {"d": d})
