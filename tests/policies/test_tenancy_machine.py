"""Stateful property tests of tenants' quotas and gangs on every placement policy.

A hypothesis state machine sends arrivals, gangs, departures and quota changes of random
tenants (one cohort, with and without borrowing and lending limits) to a placement adapter,
and checks after every step, against recomputations from the engine's own jobs:

- what each tenant uses is what its running jobs demand, and every running job is held by
  exactly one tenant;
- an admission never takes its tenant past nominal + borrowing limit, nor its cohort past the
  pool its tenants lend;
- a gang is placed whole or not at all;
- a lender within nominal is never refused for quota while borrowers hold its lent share
  (first_fit and best_fit, unit jobs, a cluster that holds every nominal quota: nothing but
  the quota could refuse it);
- a snapshot restores an adapter that answers the next event the same, and a dry run changes
  nothing.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from app.policies.errors import PolicyError
from app.policies.placement import PlacementAdapter
from tests.policies.tenancy_limits import assert_grown_within_limits

KINDS = ["first_fit", "best_fit", "power_of_d", "dra"]
TENANTS = ["a", "b", "c"]


def tenants_strategy(capacity: int) -> st.SearchStrategy[list[dict[str, Any]]]:
    @st.composite
    def draw_tenants(draw) -> list[dict[str, Any]]:
        out = []
        for name in TENANTS[:draw(st.integers(2, 3))]:
            nominal = draw(st.integers(0, capacity // 2))
            t: dict[str, Any] = {"name": name, "nominal": {"cpu": nominal},
                                 "cohort": "all" if draw(st.booleans()) or name != "c" else None,
                                 "weight": 1.0,
                                 "preemption": {"reclaim": draw(st.booleans()),
                                                "within_tenant": draw(st.booleans())}}
            if t["cohort"] and draw(st.booleans()):
                t["borrowing_limit"] = {"cpu": draw(st.integers(0, capacity))}
            if t["cohort"] and draw(st.booleans()):
                t["lending_limit"] = {"cpu": draw(st.integers(0, nominal))}
            out.append(t)
        return out
    return draw_tenants()


class TenancyMachine(RuleBasedStateMachine):
    @initialize(kind=st.sampled_from(KINDS), servers=st.integers(1, 3),
                per_server=st.integers(2, 6), data=st.data())
    def setup(self, kind: str, servers: int, per_server: int, data) -> None:
        capacity = servers * per_server
        policy: dict[str, Any] = {"kind": kind}
        if kind == "power_of_d":
            policy["d"] = 2
        self.spec = {
            "dimensions": ["cpu"],
            "server_pools": [{"name": "p", "count": servers, "capacity": {"cpu": per_server}}],
            "job_types": [{"name": "one", "demand": {"cpu": 1}, "reward": 1},
                          {"name": "two", "demand": {"cpu": 2}, "reward": 3}],
            "policy": policy, "seed": 0,
            "tenants": data.draw(tenants_strategy(capacity)),
        }
        self.capacity = capacity
        self.adapter = PlacementAdapter.build(self.spec)
        self.tenants = {t["name"]: t for t in self.spec["tenants"]}
        self.n = 0

    # ---- helpers -------------------------------------------------------------------------

    def _demand(self, job_type: str) -> int:
        return 1 if job_type == "one" else 2

    def _usage(self) -> dict[str, float]:
        return {name: u[0] for name, u in self.adapter.quotas.usage.items()}

    def _check_admitted(self, before: dict[str, float]) -> None:
        """The tenants' usage after an admission stays within their limits."""
        assert_grown_within_limits(self.tenants, self._usage(), before, "cpu")

    def _lender_guarantee_applies(self, tenant: str, job_type: str) -> bool:
        t = self.tenants[tenant]
        q = self.adapter.quotas
        return (self.spec["policy"]["kind"] in ("first_fit", "best_fit") and job_type == "one"
                and t["cohort"] is not None and t["preemption"]["reclaim"]
                and q.usage[tenant][0] + 1 <= t["nominal"]["cpu"]
                and sum(x["nominal"]["cpu"] for x in self.tenants.values()) <= self.capacity
                and all(n in self.tenants for n in q.usage)
                # a tenant outside the cohort over its (changed) quota cannot be reclaimed
                and all(x["cohort"] == t["cohort"] or q.usage[n][0] <= x["nominal"]["cpu"]
                        for n, x in self.tenants.items()))

    # ---- rules ---------------------------------------------------------------------------

    @rule(tenant=st.sampled_from(TENANTS), job_type=st.sampled_from(["one", "two"]),
          priority=st.integers(0, 2), dry=st.booleans())
    def arrive(self, tenant: str, job_type: str, priority: int, dry: bool) -> None:
        self.n += 1
        event = {"kind": "arrival", "job_id": f"j{self.n}", "job_type": job_type,
                 "tenant": tenant, "priority": priority}
        if tenant not in self.tenants:
            try:
                self.adapter.apply(event)
            except PolicyError as exc:
                assert exc.code == "unknown_tenant"
                return
            raise AssertionError("an undeclared tenant's arrival was decided")
        before = self._usage()
        guaranteed = self._lender_guarantee_applies(tenant, job_type)
        if dry:
            state = json.dumps(self.adapter.to_state(), sort_keys=True)
            answer = self.adapter.dry_run(event).to_dict()
            assert json.dumps(self.adapter.to_state(), sort_keys=True) == state
            return
        answer = self.adapter.apply(event).to_dict()
        if answer["decision"] == "placed":
            self._check_admitted(before)
            for p in answer["preempted"]:
                assert p["job_id"] not in self.adapter.engine.jobs
        elif guaranteed:
            raise AssertionError(f"a lender within nominal was refused: {answer}")

    @rule(tenant=st.sampled_from(TENANTS), types=st.lists(st.sampled_from(["one", "two"]),
                                                          min_size=2, max_size=4),
          priority=st.integers(0, 2))
    def gang(self, tenant: str, types: list[str], priority: int) -> None:
        if tenant not in self.tenants:
            return
        self.n += 1
        members = [{"job_id": f"g{self.n}-{i}", "job_type": jt} for i, jt in enumerate(types)]
        before = self._usage()
        answer = self.adapter.apply({"kind": "gang", "gang_id": f"g{self.n}",
                                     "members": members, "tenant": tenant,
                                     "priority": priority}).to_dict()
        placed = [m["job_id"] in self.adapter.engine.jobs for m in members]
        if answer["decision"] == "placed":
            assert all(placed), answer
            assert [m["server_id"] for m in answer["members"]] == [
                self.adapter.server_of(m["job_id"]) for m in members]
            self._check_admitted(before)
        else:
            assert not any(placed), answer
            assert answer["members"] == [] and answer["preempted"] == []

    @precondition(lambda self: self.adapter.engine.jobs)
    @rule(data=st.data())
    def depart(self, data) -> None:
        job_id = data.draw(st.sampled_from(sorted(self.adapter.engine.jobs)))
        self.adapter.apply({"kind": "departure", "job_id": job_id})
        assert job_id not in self.adapter.quotas.holders

    @rule(data=st.data(), stale=st.booleans())
    def change_quotas(self, data, stale: bool) -> None:
        tenants = data.draw(tenants_strategy(self.capacity))
        generation = self.adapter.quotas.generation - (1 if stale else 0)
        try:
            self.adapter.apply({"kind": "quotas", "tenants": tenants, "generation": generation})
        except PolicyError as exc:
            assert stale and exc.code == "precondition_failed"
            return
        assert not stale
        self.tenants = {t["name"]: t for t in tenants}

    # ---- invariants ----------------------------------------------------------------------

    @invariant()
    def usage_is_what_running_jobs_demand(self) -> None:
        engine, quotas = self.adapter.engine, self.adapter.quotas
        assert set(engine.jobs) == set(quotas.holders)
        recomputed: dict[str, float] = {}
        for job_id, (_, j) in engine.jobs.items():
            h = quotas.holders[job_id]
            recomputed[h.tenant] = recomputed.get(h.tenant, 0.0) + engine.model.job_types[j].demand[0]
        for name, u in quotas.usage.items():
            assert abs(u[0] - recomputed.get(name, 0.0)) < 1e-6, (name, u, recomputed)

    @invariant()
    def a_snapshot_decides_the_same(self) -> None:
        state = self.adapter.to_state()
        twin = PlacementAdapter.from_state(self.spec, json.loads(json.dumps(state)))
        assert twin.describe() == self.adapter.describe()
        probe = {"kind": "arrival", "job_id": "probe", "job_type": "one",
                 "tenant": sorted(self.tenants)[0], "priority": 1}
        assert twin.dry_run(probe).to_dict() == self.adapter.dry_run(probe).to_dict()


TestTenancy = TenancyMachine.TestCase
TestTenancy.settings = settings(max_examples=150, stateful_step_count=30, deadline=None)


@settings(max_examples=200, deadline=None)
@given(kind=st.sampled_from(["first_fit", "best_fit"]), servers=st.integers(1, 3),
       per_server=st.integers(1, 6), data=st.data())
def test_a_lender_gets_its_nominal_quota_back_from_borrowers(kind, servers, per_server, data):
    """Borrowers fill the cluster with the lender's unused quota; the lender's arrivals, up
    to its nominal quota, are then all placed, each preempting borrowers' jobs only."""
    capacity = servers * per_server
    lender_nominal = data.draw(st.integers(1, capacity))
    lending = data.draw(st.none() | st.integers(0, lender_nominal))
    tenants = [{"name": "lender", "nominal": {"cpu": lender_nominal}, "cohort": "all",
                **({} if lending is None else {"lending_limit": {"cpu": lending}})},
               {"name": "borrower", "nominal": {"cpu": capacity - lender_nominal},
                "cohort": "all"}]
    adapter = PlacementAdapter.build({
        "dimensions": ["cpu"],
        "server_pools": [{"name": "p", "count": servers, "capacity": {"cpu": per_server}}],
        "job_types": [{"name": "one", "demand": {"cpu": 1}, "reward": 1}],
        "policy": {"kind": kind}, "seed": 0, "tenants": tenants})
    for i in range(capacity + 1):
        adapter.apply({"kind": "arrival", "job_id": f"b{i}", "job_type": "one",
                       "tenant": "borrower", "priority": data.draw(st.integers(0, 3))})
    borrowed = adapter.quotas.usage["borrower"][0] - (capacity - lender_nominal)
    assert borrowed == (lender_nominal if lending is None else lending)
    for i in range(lender_nominal):
        answer = adapter.apply({"kind": "arrival", "job_id": f"l{i}", "job_type": "one",
                                "tenant": "lender"}).to_dict()
        assert answer["decision"] == "placed", answer
        assert all(p["tenant"] == "borrower" and p["reason"] == "reclaim"
                   for p in answer["preempted"])
    assert adapter.quotas.usage["lender"][0] == lender_nominal
    assert adapter.quotas.usage["borrower"][0] == capacity - lender_nominal
