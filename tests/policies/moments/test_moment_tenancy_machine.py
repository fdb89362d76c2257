"""Stateful property tests of tenants' quotas in cores on moment clusters.

A hypothesis state machine sends deployments, scale-outs, scale-ins, shutdowns and quota
changes of random tenants (one cohort, with and without limits) to a moment adapter, and
checks after every step:

- a tenant's usage is the cores of its live deployments, and every live deployment is held by
  exactly one tenant;
- an admission or a scale-out never takes its tenant past nominal + borrowing limit, nor its
  cohort past the pool its tenants lend;
- a refusal by quota leaves the engine untouched (its scale-out failure rate is the cluster's
  alone);
- a snapshot restores an adapter that describes itself the same.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from app.api.schemas.moments import MomentClusterCreate
from app.families.moments import declare
from app.policies.errors import PolicyError
from app.policies.moments.family import MomentAdapter
from tests.policies.tenancy_limits import assert_grown_within_limits

TENANTS = ["a", "b", "c"]


@st.composite
def tenants(draw) -> list[dict[str, Any]]:
    out = []
    for name in TENANTS[:draw(st.integers(2, 3))]:
        nominal = draw(st.integers(0, 40))
        t: dict[str, Any] = {"name": name, "nominal": {"cores": nominal},
                             "cohort": "all" if name != "c" or draw(st.booleans()) else None}
        if t["cohort"] and draw(st.booleans()):
            t["borrowing_limit"] = {"cores": draw(st.integers(0, 30))}
        if t["cohort"] and draw(st.booleans()):
            t["lending_limit"] = {"cores": draw(st.integers(0, nominal))}
        out.append(t)
    return out


class MomentTenancyMachine(RuleBasedStateMachine):
    @initialize(kind=st.sampled_from(["threshold", "first_moment", "second_moment"]),
                declared=tenants())
    def setup(self, kind: str, declared: list[dict[str, Any]]) -> None:
        self.spec = declare(MomentClusterCreate(name="m", capacity_cores=2000, sla=0.001,
                                                policy={"kind": kind}, tenants=declared))
        self.adapter = MomentAdapter.build(self.spec)
        self.tenants = {t["name"]: t for t in declared}
        self.now, self.n = 0.0, 0

    def _later(self, dt: float) -> float:
        self.now += dt
        return self.now

    def _usage(self) -> dict[str, float]:
        return {name: u[0] for name, u in self.adapter.quotas.usage.items()}

    def _live(self) -> list[str]:
        return sorted(d for d, x in self.adapter.engine.deployments.items() if x.alive)

    def _check(self, before: dict[str, float]) -> None:
        assert_grown_within_limits(self.tenants, self._usage(), before, "cores")

    def _engine(self) -> str:
        return json.dumps(self.adapter.engine.to_state(), sort_keys=True, default=str)

    @rule(tenant=st.sampled_from(TENANTS), cores=st.integers(1, 30), dt=st.floats(0, 5))
    def deploy(self, tenant: str, cores: int, dt: float) -> None:
        self.n += 1
        event = {"kind": "deployment", "deployment_id": f"d{self.n}", "cores": cores,
                 "at": self._later(dt), "tenant": tenant}
        before, engine = self._usage(), self._engine()
        try:
            answer = self.adapter.apply(event).to_dict()
        except PolicyError as exc:
            assert tenant not in self.tenants and exc.code == "unknown_tenant"
            return
        if answer["reason"] == "quota_exceeded":
            assert self._engine() == engine
        self._check(before)

    @precondition(lambda self: self._live())
    @rule(data=st.data(), cores=st.integers(1, 20), dt=st.floats(0, 5))
    def scale_out(self, data, cores: int, dt: float) -> None:
        dep = data.draw(st.sampled_from(self._live()))
        before, engine = self._usage(), self._engine()
        answer = self.adapter.apply({"kind": "scale_out", "deployment_id": dep,
                                     "cores": cores, "at": self._later(dt)}).to_dict()
        if answer.get("reason") == "quota_exceeded":
            assert answer["decision"] == "denied" and self._engine() == engine
        self._check(before)

    @precondition(lambda self: self._live())
    @rule(data=st.data(), dt=st.floats(0, 5))
    def scale_in(self, data, dt: float) -> None:
        dep = data.draw(st.sampled_from(self._live()))
        cores = data.draw(st.integers(1, self.adapter.engine.deployments[dep].cores))
        self.adapter.apply({"kind": "scale_in", "deployment_id": dep, "cores": cores,
                            "at": self._later(dt)})

    @precondition(lambda self: self._live())
    @rule(data=st.data(), dt=st.floats(0, 5))
    def shutdown(self, data, dt: float) -> None:
        dep = data.draw(st.sampled_from(self._live()))
        self.adapter.apply({"kind": "shutdown", "deployment_id": dep, "at": self._later(dt)})
        assert dep not in self.adapter.quotas.holders

    @rule(declared=tenants(), stale=st.booleans())
    def change_quotas(self, declared: list[dict[str, Any]], stale: bool) -> None:
        generation = self.adapter.quotas.generation - (1 if stale else 0)
        try:
            self.adapter.apply({"kind": "quotas", "tenants": declared,
                                "generation": generation})
        except PolicyError as exc:
            assert stale and exc.code == "precondition_failed"
            return
        self.tenants = {t["name"]: t for t in declared}

    @invariant()
    def usage_is_the_live_deployments_cores(self) -> None:
        engine, quotas = self.adapter.engine, self.adapter.quotas
        assert set(quotas.holders) == set(self._live())
        per: dict[str, float] = {}
        for dep, h in quotas.holders.items():
            assert h.demand == (float(engine.deployments[dep].cores),)
            per[h.tenant] = per.get(h.tenant, 0.0) + h.demand[0]
        for name, u in quotas.usage.items():
            assert abs(u[0] - per.get(name, 0.0)) < 1e-6

    @invariant()
    def a_snapshot_describes_the_same(self) -> None:
        twin = MomentAdapter.from_state(self.spec, json.loads(json.dumps(
            self.adapter.to_state())))
        assert twin.quotas.to_state() == self.adapter.quotas.to_state()
        assert twin.describe()["tenancy"] == self.adapter.describe()["tenancy"]


TestMomentTenancy = MomentTenancyMachine.TestCase
TestMomentTenancy.settings = settings(max_examples=60, stateful_step_count=20, deadline=None)
