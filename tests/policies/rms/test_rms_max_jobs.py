"""M of the RMS paper (§II): the most jobs of all types together that a server holds (#15)."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from app.policies.model import FIT_TOLERANCE, ClusterModel, JobType, ServerPool
from app.policies.rms import make_scheduler
from app.policies.rms.configurations import (
    alone,
    max_jobs_one_type,
    max_jobs_per_server,
    most_jobs,
    upper_bound,
)
from app.policies.rms.family import QueueAdapter

# Two types that each fill one dimension: either alone fits once, one of each fits together.
CROSS = ClusterModel(("cpu", "mem"), (ServerPool("s", 2, (1.0, 1.0)),),
                     (JobType("cpu_heavy", (0.6, 0.1), 1.0),
                      JobType("mem_heavy", (0.1, 0.6), 1.0)))


def test_the_two_dimensional_example_holds_two_jobs_not_one():
    assert max_jobs_one_type(CROSS) == 1  # the rule before #15
    assert max_jobs_per_server(CROSS) == 2
    assert make_scheduler("rms", CROSS).M == 2
    assert make_scheduler("rms", CROSS, {"max_jobs_rule": "one_type"}).M == 1


def test_fig1b_and_table_i_keep_their_m():
    # 1-D, sizes 2 and 5 in 10: five of size 2 is the most; EC2 Table I: 5 high-memory.
    assert most_jobs((10.0,), [(2.0,), (5.0,)]) == (5, True)
    ec2 = [(15.0, 8.0, 1690.0), (17.1, 6.5, 420.0), (7.0, 20.0, 1690.0)]
    assert most_jobs((90.0, 90.0, 5000.0), ec2) == (5, True)


def test_tenths_fit_ten_times_as_the_schedulers_count_them():
    assert most_jobs((1.0,), [(0.1,)]) == (10, True)
    # (1, 3) sits exactly on the mem boundary: 0.1 + 3 * 0.3 = 1.0 up to rounding.
    assert most_jobs((1.0, 1.0), [(0.1, 0.3), (0.3, 0.1)]) == (4, True)


def test_m_is_the_largest_over_pools():
    model = ClusterModel(("cpu", "mem"), (ServerPool("small", 1, (1.0, 1.0)),
                                          ServerPool("big", 1, (2.0, 2.0))), CROSS.job_types)
    # (3, 2) on the big pool: cpu 3 * 0.6 + 2 * 0.1 = 2.0, mem 0.3 + 1.2 = 1.5.
    assert max_jobs_per_server(model) == 5


def brute_force(capacity, demands) -> int:
    ranges = [range(alone(capacity, d) + 1) for d in demands]
    best = 0
    for k in itertools.product(*ranges):
        if all(sum(n * d[i] for n, d in zip(k, demands)) <= c + FIT_TOLERANCE
               for i, c in enumerate(capacity)):
            best = max(best, sum(k))
    return best


demand = st.integers(0, 12).map(lambda x: x / 4)  # quarter units: sums land on boundaries


@st.composite
def instances(draw):
    dims = draw(st.integers(1, 3))
    capacity = tuple(draw(st.lists(st.integers(1, 12), min_size=dims, max_size=dims)))
    types = draw(st.lists(st.lists(demand, min_size=dims, max_size=dims)
                          .filter(lambda d: any(x > 0 for x in d)), min_size=1, max_size=4))
    return tuple(float(c) for c in capacity), [tuple(t) for t in types]


@settings(max_examples=150, deadline=None)
@given(instances())
def test_enumeration_matches_brute_force(inst):
    capacity, demands = inst
    want = brute_force(capacity, demands)
    assert most_jobs(capacity, demands) == (want, True)
    # The fallback is an upper bound, and the search with no budget falls back to it.
    assert upper_bound(capacity, demands) >= want
    value, exact = most_jobs(capacity, demands, node_limit=1)
    assert value >= want and (exact or value == upper_bound(capacity, demands))


def test_a_large_enumeration_falls_back_to_the_bound():
    # Three types, each heavy in one dimension: 200 of each (600) fit, and about 334^2
    # configurations of the first two would have to be tried; the bound (3 x 333 alone)
    # prunes little. The search stops at its budget and answers the bound, >= the true 600.
    demands = [(3.0, 1.0, 1.0), (1.0, 3.0, 1.0), (1.0, 1.0, 3.0)]
    assert most_jobs((1000.0, 1000.0, 1000.0), demands) == (999, False)
    assert most_jobs((100.0, 100.0, 100.0), demands) == (60, True)  # small enough to search


def test_stored_clusters_without_the_rule_keep_the_old_m():
    spec = {"dimensions": ["cpu", "mem"], "seed": 3,
            "server_pools": [{"name": "s", "count": 2, "capacity": {"cpu": 1, "mem": 1}}],
            "job_types": [{"name": "cpu_heavy", "demand": {"cpu": 0.6, "mem": 0.1}, "reward": 1},
                          {"name": "mem_heavy", "demand": {"cpu": 0.1, "mem": 0.6}, "reward": 1}],
            "policy": {"kind": "rms", "clock": "client"}}
    assert QueueAdapter.build(spec).engine.M == 1  # predates the field: the rule it ran with
    new = {**spec, "policy": {**spec["policy"], "max_jobs_rule": "configurations"}}
    assert QueueAdapter.build(new).engine.M == 2
    state = QueueAdapter.build(spec).to_state()
    assert QueueAdapter.from_state(spec, state).engine.M == 1
    assert QueueAdapter.build(new).describe()["max_jobs_per_server"] == 2
    assert np.isclose(QueueAdapter.build(new).engine.floor_coeff, 0.5 / 16)
