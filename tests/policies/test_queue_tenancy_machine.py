"""Stateful property tests of tenants' quotas on every queued policy (RMS and the greedy
queues).

A hypothesis state machine sends arrivals, gangs, departures, ticks and quota changes of random
tenants (one cohort, with and without borrowing and lending limits) to a queue adapter on the
clients' clock, and checks after every step:

- a job holds quota exactly while the scheduler holds it (queued for a server, or running),
  and what each tenant uses is what those jobs demand;
- a job waiting for quota is in no scheduler queue, and no tenant's next waiting job fits its
  quota (quota that frees is used at once: nobody waits for what is free);
- an admission never takes its tenant past nominal + borrowing limit, nor its cohort past the
  pool its tenants lend;
- a gang starts whole, every member at the same moment, or waits with none of them started;
  a waiting gang is one whose quota or room for all members at once is short, and whose
  timeout has not passed;
- a snapshot restores an adapter that describes itself the same and answers the next
  arrival the same.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from app.policies.errors import PolicyError
from app.policies.rms.family import QueueAdapter
from app.policies.rms.gangs import room_for_all
from tests.policies.tenancy_limits import assert_grown_within_limits
from tests.policies.test_tenancy_machine import TENANTS, tenants_strategy

KINDS = ["first_fit_queue", "best_fit_queue", "random_fit_queue", "rms"]
DEMAND = {"one": 1, "two": 2}


class QueueTenancyMachine(RuleBasedStateMachine):
    @initialize(kind=st.sampled_from(KINDS), servers=st.integers(1, 3),
                per_server=st.integers(2, 6), data=st.data())
    def setup(self, kind: str, servers: int, per_server: int, data) -> None:
        self.capacity = servers * per_server
        self.spec = {
            "dimensions": ["cpu"],
            "server_pools": [{"name": "p", "count": servers, "capacity": {"cpu": per_server}}],
            "job_types": [{"name": "one", "demand": {"cpu": 1}, "reward": 1},
                          {"name": "two", "demand": {"cpu": 2}, "reward": 1}],
            "policy": {"kind": kind, "clock": "client"}, "seed": 0,
            "tenants": data.draw(tenants_strategy(self.capacity)),
        }
        self.adapter = QueueAdapter.build(self.spec)
        self.tenants = {t["name"]: t for t in self.spec["tenants"]}
        self.now = 0.0
        self.n = 0

    def _usage(self) -> dict[str, float]:
        return {name: u[0] for name, u in self.adapter.quotas.usage.items()}

    def _later(self, dt: float) -> float:
        self.now += dt
        return self.now

    def _check_admissions(self, before: dict[str, float]) -> None:
        """Every tenant whose usage grew in this step is within its limits."""
        assert_grown_within_limits(self.tenants, self._usage(), before, "cpu")

    # ---- rules ---------------------------------------------------------------------------

    @rule(tenant=st.sampled_from(TENANTS), job_type=st.sampled_from(["one", "two"]),
          priority=st.integers(0, 2), dt=st.floats(0, 2))
    def arrive(self, tenant: str, job_type: str, priority: int, dt: float) -> None:
        self.n += 1
        event = {"kind": "arrival", "job_id": f"j{self.n}", "job_type": job_type,
                 "tenant": tenant, "priority": priority, "at": self._later(dt)}
        before = self._usage()
        if tenant not in self.tenants:
            state = json.dumps(self.adapter.to_state(), sort_keys=True)
            try:
                self.adapter.apply(event)
            except PolicyError as exc:
                assert exc.code == "unknown_tenant"
                assert json.dumps(self.adapter.to_state(), sort_keys=True) == state
                return
            raise AssertionError("an undeclared tenant's arrival was decided")
        answer = self.adapter.apply(event).to_dict()
        waits = answer.get("reason") == "waiting_for_quota"
        assert waits == (f"j{self.n}" in self.adapter.held)
        if waits:
            assert answer["decision"] == "queued" and answer["details"]["quota"]["short"]
        self._check_admissions(before)

    @rule(tenant=st.sampled_from(TENANTS), types=st.lists(st.sampled_from(["one", "two"]),
                                                          min_size=1, max_size=4),
          timeout=st.none() | st.floats(0.5, 5), dt=st.floats(0, 2))
    def gang(self, tenant: str, types: list[str], timeout: float | None, dt: float) -> None:
        if tenant not in self.tenants:
            return
        self.n += 1
        members = [{"job_id": f"g{self.n}-{i}", "job_type": t} for i, t in enumerate(types)]
        event = {"kind": "gang", "gang_id": f"g{self.n}", "members": members,
                 "tenant": tenant, "at": self._later(dt)}
        if timeout is not None:
            event["timeout"] = timeout
        before = self._usage()
        answer = self.adapter.apply(event).to_dict()
        running = self.adapter.engine.running
        ids = [m["job_id"] for m in members]
        if answer["decision"] == "started":
            assert all(j in running for j in ids), answer
            assert {running[j][3] for j in ids} == {self.adapter.engine.now}
        else:
            assert not any(j in running or j in self.adapter.engine.queued for j in ids)
            assert f"g{self.n}" in self.adapter.gangs.gangs
        self._check_admissions(before)

    @precondition(lambda self: self.adapter.quotas.holders or self.adapter.held.jobs or
                  self.adapter.gangs.member_of)
    @rule(data=st.data(), dt=st.floats(0, 2))
    def depart(self, data, dt: float) -> None:
        jobs = sorted(set(self.adapter.quotas.holders) | set(self.adapter.held.jobs)
                      | set(self.adapter.gangs.member_of))
        job_id = data.draw(st.sampled_from(jobs))
        before = self._usage()
        answer = self.adapter.apply({"kind": "departure", "job_id": job_id,
                                     "at": self._later(dt)}).to_dict()
        assert answer["decision"] in ("released", "withdrawn")
        assert job_id not in self.adapter.quotas.holders and job_id not in self.adapter.held
        self._check_admissions(before)

    @rule(dt=st.floats(0, 3))
    def tick(self, dt: float) -> None:
        before, waiting = self._usage(), set(self.adapter.gangs.member_of)
        answer = self.adapter.apply({"kind": "tick", "until": self._later(dt)}).to_dict()
        # A clock starts jobs that already hold quota, or (room freed by RMS's dummies) a
        # waiting gang, which is charged as it starts.
        if not {s["job_id"] for s in answer["started"]} & waiting:
            assert self._usage() == before
        self._check_admissions(before)

    @rule(data=st.data(), stale=st.booleans())
    def change_quotas(self, data, stale: bool) -> None:
        tenants = data.draw(tenants_strategy(self.capacity))
        generation = self.adapter.quotas.generation - (1 if stale else 0)
        before = self._usage()
        try:
            self.adapter.apply({"kind": "quotas", "tenants": tenants, "generation": generation})
        except PolicyError as exc:
            assert stale and exc.code == "precondition_failed"
            return
        assert not stale
        self.tenants = {t["name"]: t for t in tenants}
        self._check_admissions(before)

    # ---- invariants ----------------------------------------------------------------------

    @invariant()
    def quota_is_held_while_the_scheduler_holds_the_job(self) -> None:
        engine, quotas, held = self.adapter.engine, self.adapter.quotas, self.adapter.held
        assert set(quotas.holders) == set(engine.queued) | set(engine.running)
        assert not set(held.jobs) & (set(engine.queued) | set(engine.running))
        recomputed: dict[str, float] = {}
        for job_id, h in quotas.holders.items():
            j = engine.queued[job_id][0] if job_id in engine.queued else engine.running[job_id][1]
            recomputed[h.tenant] = recomputed.get(h.tenant, 0.0) + DEMAND[
                engine.model.job_types[j].name]
        for name, u in quotas.usage.items():
            assert abs(u[0] - recomputed.get(name, 0.0)) < 1e-6, (name, u, recomputed)

    @invariant()
    def nobody_waits_for_free_quota(self) -> None:
        a = self.adapter
        assert a.held.next(a.quotas, a._demand) is None

    @invariant()
    def a_waiting_gang_cannot_start_whole_and_has_not_timed_out(self) -> None:
        a = self.adapter
        for gang in a.gangs.gangs.values():
            assert gang.deadline > a.engine.now
            assert not any(j in a.engine.running or j in a.engine.queued or
                           j in a.quotas.holders for j, _ in gang.members)
            fits_quota = gang.tenant in a.quotas.tenants and a.quotas.shortfall(
                gang.tenant, a._gang_demand(gang.members)) is None
            assert not fits_quota or room_for_all(a.engine.model, a.engine.used,
                                                  gang.members) is None, gang

    @invariant()
    def a_snapshot_decides_the_same(self) -> None:
        state = self.adapter.to_state()
        twin = QueueAdapter.from_state(self.spec, json.loads(json.dumps(state)))
        assert twin.describe() == self.adapter.describe()
        probe = {"kind": "arrival", "job_id": "probe", "job_type": "one",
                 "tenant": sorted(self.tenants)[0], "priority": 1, "at": self.now + 1}
        assert twin.apply(dict(probe)).to_dict() == \
            QueueAdapter.from_state(self.spec, json.loads(json.dumps(state))).apply(
                dict(probe)).to_dict()


TestQueueTenancy = QueueTenancyMachine.TestCase
TestQueueTenancy.settings = settings(max_examples=150, stateful_step_count=30, deadline=None)
