"""Moment-admission clusters as the service drives them (the moment paper): admit a
deployment now so that its and everyone's future scale-outs keep failing less than the SLA;
grant or deny each scale-out; release cores on scale-ins and shutdowns."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Literal, Self

from app.policies.capabilities import HasDeployments, ShowsAdmissible
from app.policies.errors import NoDryRun, PolicyError
from app.policies.moments.admissible import admissibility
from app.policies.moments.declare import declare
from app.policies.moments.engine import MomentEngine
from app.policies.moments.options import from_declaration
from app.policies.moments.policies import POLICIES
from app.policies.moments.recipe import Recipe
from app.policies.protocol import Answer, Event, Gauges, PolicyAdapter, Spec
from app.policies.tenancy import Quotas, TenantRefused

CORES = ("cores",)  # a moment cluster's tenants have quotas in cores


# The most cores a moment cluster holds, and so the most a deployment or one scale step counts.
MAX_CORES = 10_000_000


class MomentAdapter(PolicyAdapter[MomentEngine], HasDeployments, ShowsAdmissible):
    kinds = POLICIES
    # threshold_calibrated is the service's own (app/service/calibrator.py), never a client's.
    event_kinds = frozenset({"deployment", "scale_out", "scale_in", "shutdown",
                             "threshold_calibrated", "quotas"})

    def __init__(self, engine: MomentEngine, spec: Spec, quotas: Quotas | None = None):
        super().__init__(engine)
        # Tenants' quotas in cores, where the cluster declares tenants: a deployment and
        # each scale-out are charged to the deployment's tenant before the engine decides.
        self.quotas = quotas
        self.sla = spec.get("sla")  # the promise: the closed loop's target, and the view's
        self.derivation = spec["policy"].get("derivation")
        # Events applied to the engine (every change goes through apply), and admissible()
        # as of that count.
        self._applied = 0
        self._admissible: tuple[int, dict[str, Any]] | None = None

    @classmethod
    def declare(cls, capacity: int, sla: float, policy: Mapping[str, Any],
                recipe: Recipe = Recipe()) -> dict[str, Any]:
        """A new declaration's policy as it is stored, its defaults resolved (declare.py)."""
        return declare(capacity, sla, policy, recipe)

    @classmethod
    def build(cls, spec: Spec) -> Self:
        tenants = spec.get("tenants")
        return cls(MomentEngine(from_declaration(spec)), spec,
                   Quotas(CORES, tenants) if tenants else None)

    @classmethod
    def warm_up(cls) -> None:
        """Decide one deployment's life on each kind, so that the compiled kernel is built
        (or loaded from numba's cache) before the process reports ready, not in the first
        request: compiling takes seconds, over 30 s on a loaded 2-core machine."""
        for kind in cls.kinds:
            family = cls.build({"capacity_cores": 2000, "sla": 0.001, "policy": {"kind": kind}})
            for event in ({"kind": "deployment", "deployment_id": "warm", "cores": 4, "at": 0.0},
                          {"kind": "scale_out", "deployment_id": "warm", "cores": 2, "at": 1.0},
                          {"kind": "scale_in", "deployment_id": "warm", "cores": 1, "at": 2.0},
                          {"kind": "shutdown", "deployment_id": "warm", "at": 3.0}):
                try:
                    family.apply(event)
                except PolicyError:  # a refused step still ran the code it needed
                    pass

    @classmethod
    def from_state(cls, spec: Spec, state: Mapping[str, Any]) -> Self:
        state = dict(state)
        quotas = state.pop("quotas", None)
        return cls(MomentEngine.from_state(state), spec,
                   None if quotas is None else Quotas.from_state(CORES, quotas))

    def apply(self, event: Event, dry_run: bool = False) -> Answer:
        kind, engine = event["kind"], self.engine
        self._applied += not dry_run  # before the engine: a refusal counts too, harmlessly
        if kind == "quotas":
            return self._set_quotas(event)
        if self.quotas is None and event.get("tenant") is not None:
            raise TenantRefused("this cluster declares no tenants (docs/tenants.md)")
        if kind == "deployment":
            if self.quotas is not None:
                return self._admit_under_quota(event, dry_run)
            return Answer.of(engine.admit(event["deployment_id"], event["cores"], event["at"],
                                          event.get("category"), event.get("prior"), dry_run))
        if kind == "scale_out":
            if self.quotas is not None:
                return self._scale_out_under_quota(event)
            return Answer.of(engine.scale_out(event["deployment_id"], event["cores"],
                                              event["at"]))
        if kind == "threshold_calibrated":
            out = engine.calibrated(event["threshold"], event["derivation"])
            return Answer("calibrated", {**out, "derivation": event["derivation"]})
        if kind == "scale_in":
            out = engine.scale_in(event["deployment_id"], event["cores"], event["at"])
        else:
            out = engine.shutdown(event["deployment_id"], event["at"])
        if self.quotas is not None and event["deployment_id"] in self.quotas.holders:
            if out["alive"]:
                self.quotas.resize(event["deployment_id"],
                                   (float(engine.deployments[event["deployment_id"]].cores),))
            else:
                self.quotas.release(event["deployment_id"])
        return Answer("released", {"active_cores": out["active_cores"], "alive": out["alive"]})

    # ---- tenants (app/policies/tenancy.py) ----------------------------------------------

    def _admit_under_quota(self, event: Event, dry_run: bool) -> Answer:
        """A deployment its tenant's quota cannot take is rejected (quota_exceeded) before
        the engine sees it: the engine's books, which the SLA rests on, hold only what it
        decided. One the quota takes is the engine's to decide, and charged if admitted."""
        assert self.quotas is not None
        engine, name = self.engine, event.get("tenant")
        self.quotas.tenant(name)  # TenantRefused, UnknownTenant
        _, cores = engine.check_arrival(event["deployment_id"], event["cores"], event["at"])
        short = self.quotas.shortfall(name, (float(cores),))
        if short is not None:
            if not dry_run:
                self.quotas.refuse(name)
            return Answer("rejected", {"reason": "quota_exceeded", "details": {"quota": short}})
        out = engine.admit(event["deployment_id"], cores, event["at"], event.get("category"),
                           event.get("prior"), dry_run)
        if out["decision"] == "admitted" and not dry_run:
            self.quotas.hold(event["deployment_id"], name, 0, (float(cores),))
        return Answer.of(out)

    def _scale_out_under_quota(self, event: Event) -> Answer:
        """A scale-out its deployment's tenant's quota cannot take is denied (quota_exceeded)
        without the engine: it is the tenant's limit, not the cluster's scale-out failure,
        which the SLA counts."""
        assert self.quotas is not None
        engine, dep = self.engine, event["deployment_id"]
        _, cores, _ = engine.check_scale_out(dep, event["cores"], event["at"])
        h = self.quotas.holders[dep]
        short = self.quotas.shortfall(h.tenant, (float(cores),))
        if short is not None:
            self.quotas.refuse(h.tenant)
            return Answer("denied", {"reason": "quota_exceeded", "details": {"quota": short},
                                     "active_cores": engine.active,
                                     "sla_failure_rate": engine.sla_failure_rate,
                                     "migrate": None})
        out = engine.scale_out(dep, cores, event["at"])
        if out["decision"] == "granted":
            self.quotas.resize(dep, (h.demand[0] + cores,))
        return Answer.of(out)

    def _set_quotas(self, event: Event) -> Answer:
        if self.quotas is None:
            raise TenantRefused("this cluster declares no tenants (docs/tenants.md)")
        self.quotas.replace(event["tenants"], event["generation"])
        return Answer("quotas_set", {"generation": self.quotas.generation,
                                     "tenants": self.quotas.declared()})

    def dry_run(self, event: Event) -> Answer:
        if event["kind"] != "deployment":
            raise NoDryRun("only deployments can be dry-run")
        return self.apply(event, dry_run=True)

    def describe(self) -> dict[str, Any]:
        out = self.engine.describe()
        out["sla"] = self.sla
        # A calibration that landed replaces the declaration's derivation (its status
        # "calibrating" becomes the calibration's "calibrated").
        out["threshold_derivation"] = (self.derivation if self.engine.calibration is None
                                       else self.engine.calibration)
        out["meets_sla"] = None if self.sla is None else out["sla_failure_rate"] <= self.sla
        out["admissible"] = self.admissible()
        if self.quotas is not None:
            out["tenancy"] = self.quotas.describe()
        return out

    def admissible(self) -> dict[str, Any]:
        """admissibility() of the engine, once per event applied. Its dry runs first
        recompute the deployments changed since the last admission, as that admission will:
        at 20,000 cores with 500 deployments, 50 of them scaled out since, a /state read took
        15 ms with it and 4-6 ms without (12 ms of it admissibility, 7 ms the recompute), so a
        second read of the same version reuses it."""
        if self._admissible is None or self._admissible[0] != self._applied:
            self._admissible = (self._applied, admissibility(self.engine))
        return copy.deepcopy(self._admissible[1])

    def to_state(self) -> dict[str, Any]:
        state = self.engine.to_state()
        if self.quotas is not None:
            state["quotas"] = self.quotas.to_state()
        return state

    @property
    def now(self) -> float:
        return self.engine.now

    @property
    def clock(self) -> Literal["client"]:
        return "client"  # every event carries its own ``at``

    def deployment_view(self, deployment_id: str) -> dict[str, Any]:
        return self.engine.deployment_view(deployment_id)

    def deployment_cores(self, deployment_id: str) -> tuple[int, bool] | None:
        d = self.engine.deployments.get(deployment_id)
        return None if d is None else (d.cores, d.alive)

    def capacity_use(self) -> tuple[int, int]:
        return self.engine.active, self.engine.capacity

    def gauges(self, answer: Mapping[str, Any]) -> Gauges:
        out: dict[str, float] = {}
        if "sla_failure_rate" in answer:
            out["scale_out_failure"] = answer["sla_failure_rate"]
        if self.sla is not None:
            out["scale_out_sla"] = self.sla
        if (growth := self.engine.growth_calibration()) is not None:
            out["growth_calibration"] = growth["ratio"]
        if (outgrowing := self.engine.outgrowing()) is not None:
            out["largest_share"] = outgrowing["largest_expected_share"]
            out["cluster_share"] = outgrowing["expected_cluster_share"]
            out["overflow_line"] = outgrowing.get("overflow_line_share",
                                                  outgrowing["expected_cluster_share"])
        if self.quotas is not None:
            out.update(self.quotas.gauges())  # type: ignore[arg-type]
        return out
