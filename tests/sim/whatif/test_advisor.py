"""The policy advisor on logs made by the engines themselves: every candidate's figure is the
one a what-if of that candidate alone gives, the ranking follows the objective (and its
constraint), the policy that ran is the reference, and the sentence says what the table says."""

from __future__ import annotations

import math

import pytest

from app.policies import alternatives
from app.sim.whatif import advisor
from app.sim.whatif.jobs import MODELS
from app.sim.whatif.replay import what_if
from tests.helpers import cluster_spec
from tests.sim.whatif.test_replay import (
    adapter,
    placement_events,
    queue_log,
    queue_spec,
    record,
    stored,
    with_policy,
)


def options(spec, family):
    out = []
    for p in alternatives.candidates(family, spec["policy"]):
        declared = with_policy(spec, p)
        out.append(advisor.Candidate(p, declared))
    return out


def test_candidates_are_every_kind_once_and_never_the_policy_that_ran() -> None:
    spec = stored(cluster_spec(name="c", policy={"kind": "best_fit"}, servers=3))
    got = alternatives.candidates("placement", spec["policy"])
    assert {p["kind"] for p in got} == {"first_fit", "power_of_d", "dra"}
    assert len({advisor.label(p) for p in got}) == len(got) == 7
    queue = queue_spec("rms")
    for p in alternatives.candidates("queues", queue["policy"]):
        assert p["clock"] == "client"  # the cluster's clock is kept
        assert p != {"kind": "rms", "clock": "client"}  # the defaults are the policy that ran


@pytest.mark.parametrize("objective", ["reward_rate", "acceptance", "utilization"])
def test_each_candidate_scores_what_its_own_what_if_gives(objective: str) -> None:
    spec = stored(cluster_spec(name="c", policy={"kind": "first_fit"}, servers=3))
    rows = record(spec, placement_events(500, 7))
    opts = options(spec, "placement")
    out = advisor.advise(spec, opts, MODELS["placement"], rows, objective,
                         seeds=[0, 1, 2])
    ranking = out["ranking"]
    assert len(ranking) == len(opts) + 1 and [c["rank"] for c in ranking] == list(range(1, len(opts) + 2))
    current = next(c for c in ranking if c["is_current"])
    base = what_if(lambda: adapter(spec), lambda: adapter(spec), MODELS["placement"], spec, rows)
    assert current["score"] == advisor.score(objective, base["policy"]["summary"])
    for c in ranking:
        if c["is_current"]:
            continue
        o = next(o for o in opts if advisor.label(o.policy) == c["label"])
        alone = what_if(lambda: adapter(spec), lambda o=o: adapter(o.spec), MODELS["placement"], spec, rows,
                        seeds=[0, 1, 2])
        scores = [advisor.score(objective, alone["alternative"]["summary"])]
        if alone["random"]:
            assert c["interval"]["seeds"] == 3 and c["interval"]["min"] <= c["score"] <= c["interval"]["max"]
            assert c["assumptions"]["lifetime_drawn"] > 0
        else:
            assert c["interval"] is None and c["score"] == scores[0]
        assert math.isclose(c["change"], (c["score"] - current["score"]) / current["score"])
    scores = [c["score"] for c in ranking]
    assert scores == sorted(scores, reverse=True)  # higher is better for all three
    best = ranking[0]
    if best["is_current"]:
        assert "no candidate would have done better" in out["statement"]
    else:
        assert best["label"] in out["statement"] and f"{best['change']:+.1%}" in out["statement"]
        assert "first_fit, the policy that ran" in out["statement"]


def test_a_rejection_budget_ranks_those_that_keep_it_first() -> None:
    spec = stored(cluster_spec(name="c", policy={"kind": "dra"}, servers=3))
    rows = record(spec, placement_events(500, 8))
    opts = options(spec, "placement")
    free = advisor.advise(spec, opts, MODELS["placement"], rows, "reward_rate")
    rejection = sorted(1 - c["summary"]["acceptance"] for c in free["ranking"])
    budget = (rejection[1] + rejection[-2]) / 2  # some keep it, some do not
    out = advisor.advise(spec, opts, MODELS["placement"], rows,
                         "reward_rate", max_rejection=budget)
    assert out["constraint"] == {"max_rejection": budget}
    kept = [c["meets_constraint"] for c in out["ranking"]]
    assert any(kept) and not all(kept) and kept == sorted(kept, reverse=True)
    for c in out["ranking"]:
        assert c["meets_constraint"] == (1 - c["summary"]["acceptance"] <= budget)


def test_queue_waits_rank_lowest_first() -> None:
    spec = queue_spec("rms")
    rows = queue_log(spec, 150, 5)
    out = advisor.advise(spec, options(spec, "queues"), MODELS["queues"], rows, "queue_wait")
    assert out["better"] == "lower"
    waits = [c["score"] for c in out["ranking"] if c["score"] is not None]
    assert waits == sorted(waits) and len(waits) == len(out["ranking"])


def test_reservation_cost_only_among_policies_that_keep_epsilon() -> None:
    body = {"name": "r", "resources": [{"name": "cpu", "cost": 1, "epsilon": 0.1}],
            "policy": {"kind": "thor"}}
    spec = stored(body)
    rows = record(spec, [{"kind": "observation", "period": t,
                          "demand": {"cpu": 10 + 3 * math.sin(t) + (t % 5)}} for t in range(200)])
    opts = [advisor.Candidate(p, stored({**body, "policy": p}))
            for p in alternatives.candidates("reservations", spec["policy"])]
    out = advisor.advise(spec, opts, MODELS["reservations"], rows,
                         "cost_per_period")
    assert out["constraint"] == {"violation_rate_at_most_epsilon": True}
    for c in out["ranking"]:
        cpu = c["summary"]["reservations"]["cpu"]
        assert c["meets_constraint"] == (cpu["violation_rate"] <= 0.1)
        assert c["interval"] is None and c["assumptions"] == {}  # demand is exogenous
    kept = [c["score"] for c in out["ranking"] if c["meets_constraint"]]
    assert kept == sorted(kept)


def test_on_a_dask_cluster_the_advice_is_the_same() -> None:
    import distributed

    spec = stored(cluster_spec(name="c", policy={"kind": "first_fit"}, servers=3))
    rows = record(spec, placement_events(300, 9))
    opts = options(spec, "placement")
    here = advisor.advise(spec, opts, MODELS["placement"], rows, "reward_rate", seeds=[0, 1])
    ticks = []
    # Worker processes (not threads): each candidate is pickled to another interpreter.
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  scheduler_port=0, dashboard_address=None,
                                  death_timeout=120) as cluster:
        there = advisor.advise(spec, opts, MODELS["placement"], rows, "reward_rate",
                               seeds=[0, 1], scheduler=cluster.scheduler_address,
                               progress=lambda done, total: ticks.append((done, total)))
    assert there == here
    assert ticks[-1] == (len(rows) * (len(opts) + 1), len(rows) * (len(opts) + 1))
