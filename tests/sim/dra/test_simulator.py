"""The event-driven simulator: queueing sanity, exact trace accounting, determinism,
preemption/migration bookkeeping, and that it drives the real engines."""

from __future__ import annotations

import math

import numpy as np
import pytest

from app.policies.dra.engine import DRAEngine
from app.policies.first_fit import FirstFit
from app.policies.model import ClusterModel, JobType, ServerPool
from app.policies.registry import PLACEMENT_ENGINES
from app.sim.dra.presets import paper_worst_case
from app.sim.dra.simulator import run_policy
from app.sim.dra.simulator import simulate
from app.sim.dra.workload import PoissonWorkload, TraceWorkload, poisson_for_instance


def one_dim(servers: int, capacity: float, *types: tuple[str, float, float, int]
            ) -> ClusterModel:
    return ClusterModel(("cpu",), (ServerPool("s", servers, (capacity,)),),
                        tuple(JobType(n, (d,), u, p) for n, d, u, p in types))


def test_uncongested_cluster_is_mm_infinity():
    """Huge servers reject nothing, so Y_j is M/M/∞: stationary mean λ_j·s_j. The time
    average over T of an M/M/∞ count with mean m and mean service s has variance
    ≈ 2·m·s/T (autocovariance m·e^{-t/s}); we allow 4 standard deviations."""
    model = one_dim(10, 1e9, ("a", 1.0, 1.0, 0), ("b", 2.0, 3.0, 0))
    rates, means = [300.0, 100.0], [1.0, 2.0]
    warmup, duration = 15.0, 115.0  # the empty start decays like e^{-t/2}: gone by 15
    engine = FirstFit(model, None, np.random.default_rng(0))
    res = simulate(engine, PoissonWorkload(rates, means, np.random.default_rng(42)), duration,
                   warmup=warmup)
    window = duration - warmup
    for name, lam, s in zip(("a", "b"), rates, means):
        m = lam * s
        sd = math.sqrt(2 * m * s / window)
        assert abs(res.mean_jobs[name] - m) < 4 * sd, (name, res.mean_jobs[name], m, sd)
        # Little's law L = λ·W with the observed admission rate (a Poisson count: the sd of
        # count/window·s is sqrt(m·s/window)).
        assert abs(res.accepted[name] / window * s - m) < 4 * math.sqrt(m * s / window)
    assert res.acceptance_rate == 1.0
    assert sum(res.rejected.values()) == 0 and res.migrations == 0
    expected_reward = (300 * 1.0 + 200 * 3.0) / 10
    assert res.reward_per_server == pytest.approx(expected_reward, rel=0.03)
    assert res.utilization["cpu"] == pytest.approx((300 + 200 * 2) / (10 * 1e9), rel=0.03)


def test_trace_replay_is_exact():
    """One server with room for one job: every figure can be worked out by hand.
    Job 0 runs [0, 5); job 1 (t=1) is rejected; job 2 arrives at t=5, the instant job 0
    departs, and gets the slot because departures go first: [5, 5.5); job 3 runs [6, 7);
    job 4 (also t=6) is rejected."""
    model = one_dim(1, 1.0, ("a", 1.0, 2.0, 0))
    trace = [(0, "a", 5), (1, "a", 1), (5, "a", 0.5), (6, "a", 1), (6, 0, 2)]
    engine = FirstFit(model)
    res = simulate(engine, TraceWorkload(trace, ["a"]), 10.0, sample_step=1.0)
    assert res.mean_jobs["a"] == pytest.approx(6.5 / 10)
    assert res.reward_per_server == pytest.approx(2.0 * 6.5 / 10)
    assert res.arrivals == {"a": 5} and res.accepted == {"a": 3}
    assert res.departures == 3 and res.events == 8 and res.jobs_at_end == 0
    assert res.series_t[:2] == [0.5, 1.5]
    assert res.series_reward[:7] == pytest.approx([2, 2, 2, 2, 2, 1, 2])
    assert len(res.series_reward) == 10

    # Warm-up at t=2: only [2, 10) counts, events before it still ran (job 0 is there).
    res = simulate(FirstFit(model), TraceWorkload(trace, ["a"]), 10.0, warmup=2.0)
    assert res.mean_jobs["a"] == pytest.approx((3 + 0.5 + 1) / 8)
    assert res.arrivals == {"a": 3} and res.accepted == {"a": 2}
    assert res.departures == 3 and res.events == 6 and res.events_total == 8
    assert res.series_t[0] < 2.0  # the time series covers the warm-up


def test_trace_must_not_go_back_in_time():
    model = one_dim(1, 1.0, ("a", 1.0, 1.0, 0))
    with pytest.raises(ValueError, match="back in time"):
        simulate(FirstFit(model), TraceWorkload([(1, "a", 1), (0, "a", 1)], ["a"]), 5.0)
    with pytest.raises(ValueError, match="unknown job type"):
        simulate(FirstFit(model), TraceWorkload([(0, "b", 1)], ["a"]), 5.0)
    with pytest.raises(ValueError, match="warmup"):
        simulate(FirstFit(model), TraceWorkload([], ["a"]), 5.0, warmup=5.0)


def _dra_run(seed: int, kind: str = "dra"):
    return run_policy(kind, {}, paper_worst_case(2.25), 20, seed, duration=8.0, warmup=2.0)


def test_same_seed_same_output_different_seed_different():
    a, b = _dra_run(7), _dra_run(7)
    assert a.to_dict(series=True) == b.to_dict(series=True)
    c = _dra_run(8)
    assert c.to_dict(series=True) != a.to_dict(series=True)
    assert c.arrivals != a.arrivals


def test_policies_share_the_arrival_stream():
    """Common random numbers: the same seed gives every policy the same arrivals."""
    runs = [_dra_run(3, kind) for kind in ("dra", "first_fit", "power_of_d")]
    assert runs[0].arrivals == runs[1].arrivals == runs[2].arrivals
    assert runs[0].accepted != runs[2].accepted  # ...and the decisions differ


class CountingDRA(DRAEngine):
    """DRA that counts, on its own side, what it tells the simulator."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.n_preempted = self.n_migrated = 0
        self.preempted_ids: set[str] = set()
        self.departed_ids: set[str] = set()

    def arrive(self, job_id, job_type):
        p = super().arrive(job_id, job_type)
        self.n_preempted += len(p.preempted)
        self.preempted_ids.update(q.job_id for q in p.preempted)
        return p

    def depart(self, job_id):
        r = super().depart(job_id)
        self.n_migrated += r.migration is not None
        self.departed_ids.add(job_id)
        return r


def test_preemption_and_migration_accounting():
    model = one_dim(8, 4.0, ("low", 1.0, 1.0, 0), ("high", 2.0, 10.0, 1))
    engine = CountingDRA(model, {"preemption": True, "reservation": {"slots": 1}},
                         np.random.default_rng(0))
    res = simulate(engine, PoissonWorkload([24.0, 8.0], 1.0, np.random.default_rng(3)), 30.0)
    preemptions = sum(res.preempted.values())
    assert preemptions > 0 and res.migrations > 0  # the instance exercises both
    assert preemptions == engine.n_preempted and res.preempted["high"] == 0
    assert res.migrations == engine.n_migrated
    # Preempted jobs left the system: their departure events were cancelled.
    assert not engine.preempted_ids & engine.departed_ids
    # Conservation: every admitted job departed, was preempted, or is still there.
    assert sum(res.accepted.values()) == res.departures + preemptions + res.jobs_at_end
    assert len(engine.jobs) == res.jobs_at_end
    assert res.events_total == sum(res.arrivals.values()) + res.departures


@pytest.mark.parametrize("kind", sorted(PLACEMENT_ENGINES))
def test_simulator_drives_the_real_engine(kind):
    instance = paper_worst_case(3.0)
    seeds = np.random.SeedSequence(5).spawn(2)
    engine = PLACEMENT_ENGINES[kind](instance.model(15), None, np.random.default_rng(seeds[1]))
    wl = poisson_for_instance(instance, 15, np.random.default_rng(seeds[0]))
    res = simulate(engine, wl, 6.0, warmup=1.0)
    assert len(engine.jobs) == res.jobs_at_end > 0
    assert sum(res.rejected.values()) > 0  # congested: the engine's decisions matter
    # The engine's own reward rate matches the simulator's count-based view at the end.
    per_type = dict.fromkeys(instance.type_names, 0)
    for _, j in engine.jobs.values():
        per_type[instance.type_names[j]] += 1
    assert engine.describe()["jobs_per_type"] == per_type


def test_event_budget_stops_early():
    res = run_policy("first_fit", {}, paper_worst_case(1.0), 10, 1, duration=1e9, warmup=0.0,
                     max_events=5000)
    assert res.events_total == 5000
    assert 0 < res.end < 1e9
    assert res.reward_per_server is not None
