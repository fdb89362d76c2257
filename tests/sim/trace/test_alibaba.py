"""The Alibaba 2018 batch sample as shipped by spar: columns, DAG start times, bucketing."""

from __future__ import annotations

import pytest

from app.sim.trace import alibaba
from app.sim.trace.alibaba import JobType, bucket, load


def test_the_shipped_csvs_have_the_columns_the_loader_reads():
    tasks = alibaba._tasks()
    assert len(tasks) == 67_634  # one row per (job, task)
    cpus = {cpu for _, cpu, _ in tasks.values()}
    assert {0.5, 1.0} <= cpus and max(cpus) == 7.0  # planned CPU in cores (100 = one core)
    assert max(m for _, _, m in tasks.values()) < 6.0  # memory in % of a machine
    jobs, _, durations = alibaba._instances()
    assert len(jobs) == 3_056_536 and (durations >= 0).all()


def test_a_task_starts_when_its_parents_have_finished():
    tasks = {"M1": (10.0, 1, 1), "M2": (30.0, 1, 1), "R3_1_2": (5.0, 1, 1),
             "J4_3": (1.0, 1, 1), "task_Nzg3": (7.0, 1, 1), "M5_9": (1.0, 1, 1)}
    ready = alibaba._ready_times(100.0, tasks)
    assert ready == {"M1": 100.0, "M2": 100.0, "R3_1_2": 130.0, "J4_3": 135.0,
                     "task_Nzg3": 100.0, "M5_9": 100.0}  # unknown parent 9: no wait


def test_a_cycle_in_task_names_does_not_hang():
    ready = alibaba._ready_times(0.0, {"M1_2": (5.0, 1, 1), "M2_1": (5.0, 1, 1)})
    assert set(ready) == {"M1_2", "M2_1"}


def test_bucketing_picks_the_smallest_covering_type_and_never_shrinks_a_job():
    types = (JobType("a", 0.5, 0.6), JobType("b", 1.0, 0.6), JobType("c", 1.0, 2.0))
    assert bucket(0.3, 0.2, types) == 0
    assert bucket(0.5, 0.61, types) == 2  # memory alone decides
    assert bucket(1.0, 0.6, types) == 1
    assert bucket(2.0, 0.1, types) == -1  # nothing covers it


def test_load_is_a_function_of_fraction_and_seed_and_costs_what_it_says():
    a = load(0.002, seed=3, until=600)
    b = load(0.002, seed=3, until=600)
    c = load(0.002, seed=4, until=600)
    assert a.times == b.times and a.types == b.types and a.times != c.times
    assert list(a.times) == sorted(a.times) and max(a.times) < 600
    for k, cpu, mem in zip(a.types, a.cpu, a.memory):
        t = a.job_types[k]
        assert t.cpu >= cpu and t.memory >= mem
    cost = a.bucketing_cost()
    assert cost["bucketed_core_s"] >= cost["requested_core_s"] > 0
    assert cost["bucketed_memory_s"] >= cost["requested_memory_s"] > 0


def test_fraction_out_of_range_is_refused():
    with pytest.raises(ValueError, match="fraction"):
        load(0.0)


def test_ledger_follows_migrations_whatever_order_concurrent_answers_come_in():
    """Live DRA replay with 8 clients ended with 2 ghost jobs: a departure answer carrying a
    migration of job X was recorded after X's own departure and brought X back."""
    from app.sim.trace.runner import Event, Ledger

    trace = load(0.002, seed=0, until=600).head(3)
    ledger = Ledger(trace, 2, "t-")
    for i in (0, 1):
        ledger.record(Event("arrival", 0.0, i), {"decision": "placed", "server_id": "m-0"})
    ledger.record(Event("departure", 1.0, 1), {"decision": "released", "server_id": "m-0"})
    ledger.record(Event("departure", 1.0, 0), {"decision": "released", "server_id": "m-0",
                  "migration": {"job_id": "t-j1", "to_server_id": "m-1"}})
    assert ledger.running == {}
    # The other way round: the move is recorded before the moved job's arrival answer.
    ledger.record(Event("departure", 2.0, 0), {"decision": "released", "server_id": "m-1",
                  "migration": {"job_id": "t-j2", "to_server_id": "m-1"}})
    ledger.record(Event("arrival", 0.5, 2), {"decision": "placed", "server_id": "m-0"})
    assert ledger.running == {"t-j2": "m-1"}


def test_replay_retries_transport_errors_and_503_with_the_same_event_id():
    import threading

    import httpx

    from app.sim.trace.replay import _post

    seen: list[tuple[str, str]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append((request.url.path, request.read().decode()))
        if len(seen) == 1:
            raise httpx.ConnectError("refused")
        if len(seen) == 2:
            return httpx.Response(503, json={"code": "unavailable"})
        return httpx.Response(200, json={"decision": "placed", "server_id": "m-0"})

    stats = {"lock": threading.Lock(), "retries": 0}
    with httpx.Client(transport=httpx.MockTransport(handler), base_url="http://x") as c:
        status, answer, _ = _post(c, "/a", {"event_id": "e1", "job_id": "j1"}, stats)
    assert status == 200 and answer["decision"] == "placed" and stats["retries"] == 2
    assert len({body for _, body in seen}) == 1 and len(seen) == 3
