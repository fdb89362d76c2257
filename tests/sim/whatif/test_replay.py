"""The what-if replay on logs made by the engines themselves: the policy that ran reproduces
every answer; an alternative's counterfactual events are filled in as the replay says and
counted; its figures follow from what it decided."""

from __future__ import annotations

import random
from typing import Any

import pytest

from app.families.registry import REGISTRY
from app.policies.errors import PolicyError
from app.sim.whatif.jobs import MODELS, Logged, logged_lives
from app.sim.whatif.replay import what_if
from tests.helpers import cluster_spec


def stored(body: dict[str, Any]) -> dict[str, Any]:
    family = REGISTRY.family_for(body["policy"]["kind"])
    return family.declaration(family.create_model.model_validate(body), None)


def adapter(spec: dict[str, Any]):
    return REGISTRY.family_for(spec["policy"]["kind"]).adapter.build(spec)


def record(spec: dict[str, Any], events: list[dict[str, Any]]) -> list[Logged]:
    """The log a cluster of ``spec`` keeps for ``events``: refused events are not logged."""
    a, rows = adapter(spec), []
    for e in events:
        try:
            answer = a.apply(e).to_dict()
        except PolicyError:
            continue
        rows.append(Logged(len(rows) + 1, f"e{len(rows)}", e, answer))
    return rows


def placement_events(n: int, seed: int, types=("small", "large")) -> list[dict[str, Any]]:
    """Arrivals and departures of the jobs the client believes are running (it departs only
    jobs it sent, placed or not: a departure of a job never placed is refused, not logged)."""
    rng, out, live = random.Random(seed), [], []
    for i in range(n):
        if live and rng.random() < 0.45:
            out.append({"kind": "departure", "job_id": live.pop(rng.randrange(len(live)))})
        else:
            out.append({"kind": "arrival", "job_id": f"j{i}", "job_type": rng.choice(types)})
            live.append(f"j{i}")
    return out


def with_policy(spec: dict[str, Any], policy: dict[str, Any]) -> dict[str, Any]:
    return stored({**{k: v for k, v in spec.items()}, "policy": policy})


@pytest.mark.parametrize("kind", ["first_fit", "best_fit", "dra"])
def test_the_policy_that_ran_reproduces_every_logged_answer(kind: str) -> None:
    spec = stored(cluster_spec(name="c", policy={"kind": kind}, servers=3))
    rows = record(spec, placement_events(400, 1))
    out = what_if(lambda: adapter(spec), lambda: adapter(spec), MODELS["placement"], spec, rows)
    assert out["policy"]["reproduces_log"] and out["policy"]["assumptions"] == []
    assert out["differences"]["count"] == 0 and out["alternative"]["assumptions"] == []
    assert out["policy"]["summary"] == out["alternative"]["summary"]


def test_an_alternative_that_admits_more_draws_lifetimes_and_drops_nothing_it_holds() -> None:
    # Whatever dra rejects, accept-more best_fit may place: those jobs get drawn lifetimes.
    spec = stored(cluster_spec(name="c", policy={"kind": "dra"}, servers=3))
    alt = with_policy(spec, {"kind": "best_fit"})
    rows = record(spec, placement_events(600, 2))
    out = what_if(lambda: adapter(spec), lambda: adapter(alt), MODELS["placement"], spec, rows,
                  seeds=(0, 1, 2))
    a, p = out["alternative"], out["policy"]
    assert p["reproduces_log"]
    named = {x["assumption"]: x["events"] for x in a["assumptions"]}
    # Counted per job: the jobs placed here that the log rejected, each with a drawn lifetime.
    logged_rejected = {r.request["job_id"] for r in rows
                       if r.request["kind"] == "arrival" and r.response["decision"] != "placed"}
    alt_placed = {d["event"]["job_id"] for d in out["differences"]["first"]
                  if d["event"]["kind"] == "arrival" and d["alternative"]["decision"] == "placed"}
    assert named.get("lifetime_drawn", 0) >= len(alt_placed & logged_rejected) > 0
    assert out["random"] and out["alternative"]["over_seeds"]["acceptance"]["seeds"] == 3
    acc_p, acc_a = p["summary"]["acceptance"], a["summary"]["acceptance"]
    assert acc_a > acc_p  # best_fit places what dra keeps its reserved slots for
    assert acc_p == sum(r.response["decision"] == "placed" for r in rows
                        if r.request["kind"] == "arrival") / sum(
        r.request["kind"] == "arrival" for r in rows)
    diffs = out["differences"]
    assert diffs["count"] >= len(diffs["first"]) > 0
    assert all((d["policy"] or {}).get("decision") != (d["alternative"] or {}).get("decision")
               for d in diffs["first"])
    assert diffs["first"] == sorted(diffs["first"], key=lambda d: d["seq"])
    # The same seed gives the same what-if; another may not.
    again = what_if(lambda: adapter(spec), lambda: adapter(alt), MODELS["placement"], spec, rows,
                    seeds=(0, 1, 2))
    assert again == out


def test_logged_lives_measure_placement_in_log_positions() -> None:
    spec = stored(cluster_spec(name="c", policy={"kind": "first_fit"}, servers=1))
    rows = record(spec, [{"kind": "arrival", "job_id": "a", "job_type": "small"},
                         {"kind": "arrival", "job_id": "b", "job_type": "small"},
                         {"kind": "departure", "job_id": "a"}])
    lives = logged_lives(MODELS["placement"], rows)
    assert lives.jobs["a"].length == 2.0 and lives.jobs["b"].length is None
    assert lives.lengths("small") == [2.0]


QUEUE_TYPES = [{"name": "two", "demand": {"cpu": 2, "memory": 1}, "reward": 1},
               {"name": "five", "demand": {"cpu": 5, "memory": 1}, "reward": 3}]


def queue_spec(kind: str) -> dict[str, Any]:
    return stored(cluster_spec(name="q", policy={"kind": kind, "clock": "client"},
                               server_pools=[{"name": "s", "count": 2,
                                              "capacity": {"cpu": 10, "memory": 10}}],
                               job_types=QUEUE_TYPES, seed=11))


def queue_log(spec: dict[str, Any], n: int, seed: int) -> list[Logged]:
    """A client of a queued cluster: Poisson arrivals, and each job's departure sent when its
    own runtime after the start its answer reported has passed."""
    import heapq

    rng, a, rows = random.Random(seed), adapter(spec), []
    arrivals = []
    t = 0.0
    for i in range(n):
        t += rng.expovariate(1.5)
        arrivals.append((t, f"j{i}", rng.choice(["two", "five"]), rng.expovariate(0.3)))
    runtime = {j: rt for _, j, _, rt in arrivals}
    ends: list[tuple[float, str]] = []
    now, k = 0.0, 0
    while k < len(arrivals) or ends:
        if ends and (k == len(arrivals) or ends[0][0] <= arrivals[k][0]):
            at, job = heapq.heappop(ends)
            event = {"kind": "departure", "job_id": job, "at": max(at, now)}
        else:
            at, job, jt, _ = arrivals[k]
            k += 1
            event = {"kind": "arrival", "job_id": job, "job_type": jt, "at": at}
        now = event["at"]
        answer = a.apply(event).to_dict()
        rows.append(Logged(len(rows) + 1, f"e{len(rows)}", event, answer))
        started = [(s["job_id"], s["at"]) for s in answer.get("started") or ()]
        if answer["decision"] == "started":
            started.append((event["job_id"], event["at"]))
        for job, at in started:
            heapq.heappush(ends, (at + runtime[job], job))
    return rows


@pytest.mark.parametrize("kind", ["rms", "best_fit_queue"])
def test_a_queued_cluster_replays_its_log_exactly(kind: str) -> None:
    spec = queue_spec(kind)
    rows = queue_log(spec, 150, 3)
    out = what_if(lambda: adapter(spec), lambda: adapter(spec), MODELS["queues"], spec, rows)
    assert out["policy"]["reproduces_log"] and out["differences"]["count"] == 0
    assert out["alternative"]["assumptions"] == [] and out["lifetimes"]["clock"] == "at"
    assert out["policy"]["summary"]["queue_wait"]["started"] > 100


def test_another_queue_policy_keeps_each_jobs_runtime_from_its_own_start() -> None:
    spec, alt = queue_spec("rms"), queue_spec("first_fit_queue")
    rows = queue_log(spec, 150, 4)
    lives = logged_lives(MODELS["queues"], rows)
    out = what_if(lambda: adapter(spec), lambda: adapter(alt), MODELS["queues"], spec, rows)
    named = {x["assumption"]: x["events"] for x in out["alternative"]["assumptions"]}
    assert named.get("lifetime_moved", 0) > 0
    # Replay the alternative by hand: every job it started ends its logged runtime later.
    from app.sim.whatif.replay import Side
    import numpy as np

    side = Side(adapter(alt), MODELS["queues"], alt, lives, np.random.default_rng(0))
    ends: dict[str, float] = {}
    original_apply = side._apply

    def spy(event, now):  # type: ignore[no-untyped-def]
        answer = original_apply(event, now)
        if answer is not None and event["kind"] == "departure":
            ends[event["job_id"]] = event["at"]
        return answer
    side._apply = spy  # type: ignore[method-assign]
    for row in rows:
        side.feed(row)
    checked = 0
    for job, end in ends.items():
        life = lives.jobs[job]
        if life.length is not None and job in side.started and end > side.started[job] + 1e-9:
            assert end == pytest.approx(side.started[job] + life.length)
            checked += 1
    assert checked > 50


def test_a_moment_cluster_replays_and_an_alternative_holds_its_extra_deployments() -> None:
    from tests.policies.moments.golden.make import drive

    spec = stored({"name": "m", "capacity_cores": 2000, "policy": {"kind": "second_moment"}})
    events, answers = drive(adapter(spec), 5)
    rows = [Logged(i + 1, f"e{i}", e, a) for i, (e, a) in
            enumerate((e, a) for e, a in zip(events, answers) if "refused" not in a)]
    out = what_if(lambda: adapter(spec), lambda: adapter(spec), MODELS["moments"], spec, rows)
    assert out["policy"]["reproduces_log"] and out["differences"]["count"] == 0
    loose = stored({"name": "m", "capacity_cores": 2000,
                    "policy": {"kind": "threshold", "threshold": 1900.0}})
    alt = what_if(lambda: adapter(spec), lambda: adapter(loose), MODELS["moments"], spec, rows)
    named = {x["assumption"]: x["events"] for x in alt["alternative"]["assumptions"]}
    extra = sum(1 for d in alt["differences"]["first"]
                if d["event"]["kind"] == "deployment" and (d["alternative"] or {}).get("decision") == "admitted")
    assert named["held_at_arrival_size"] >= extra > 0
    assert alt["alternative"]["summary"]["scale_outs"]["sla"] == 1e-4


def test_a_reservation_stream_replays_exactly_under_another_policy() -> None:
    import math

    body = {"name": "r", "resources": [{"name": "cpu", "cost": 1, "epsilon": 0.1}],
            "policy": {"kind": "thor"}}
    spec, alt = stored(body), stored({**body, "policy": {"kind": "percentile"}})
    rows = record(spec, [{"kind": "observation", "period": t, "demand": {"cpu": 10 + 3 * math.sin(t)}}
                         for t in range(120)])
    out = what_if(lambda: adapter(spec), lambda: adapter(alt), MODELS["reservations"], spec, rows)
    assert out["policy"]["reproduces_log"] and out["alternative"]["assumptions"] == []
    res = out["alternative"]["summary"]["reservations"]["cpu"]
    assert res["epsilon"] == 0.1 and 0 <= res["violation_rate"] <= 1
    assert out["alternative"]["summary"]["cost_per_period"] != out["policy"]["summary"]["cost_per_period"]
