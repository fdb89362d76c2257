"""What a moment cluster shows of itself (/state, a deployment's view): its safety by the
rule, its controllers, how far its learnt prior lies from what its threshold was calibrated
for. A mixin of MomentEngine; nothing here changes the engine."""

from __future__ import annotations

from typing import Any

import numpy as np

from app.policies.moments import errors, policies
from app.policies.moments.deployment import Deployment
from app.policies.moments.formulas import Grid, horizon_label
from app.policies.moments.kernel import MomentKernel
from app.policies.moments.learning import PopulationLearner
from app.policies.moments.priors import gamma_mean_var
from app.policies.moments.sla import GrowthLadder, SlaLoop


def _mean(gamma: tuple[float, float]) -> float:
    return gamma[0] / gamma[1]


class EngineViews:
    """MomentEngine's describe() and deployment_view(), and the figures they show."""

    capacity: int
    policy: str
    threshold: float
    marginal: bool
    arrival_size_evidence: bool
    grid: Grid
    kernel: MomentKernel
    loop: SlaLoop | None
    ladder: GrowthLadder | None
    learner: PopulationLearner | None
    deployments: dict[str, Deployment]
    active: int
    admitted: int
    rejected: int
    requests: int
    denied: int
    _tot_e: np.ndarray
    _tot_v: np.ndarray

    def safety(self) -> dict[str, Any]:
        """Is the cluster safe now (§2.2: the rule holds without any arrival), and the aggregate
        overflow bound per horizon (Markov for the first moment, Cantelli for the second)."""
        out: dict[str, Any] = {"utilization_now": self.active / self.capacity}
        if self.policy == "threshold":
            v = policies.threshold(self.active, self.threshold, self.capacity)
            return {**out, "safe": v.admitted, "overflow_bound_per_horizon": None}
        zero = np.zeros_like(self._tot_e)
        if self.policy == "first_moment":
            v = policies.first_moment(self._tot_e, zero, self.threshold, self.capacity, False)
            rows = self._tot_e / self.capacity
        else:
            v = policies.second_moment(self._tot_e, self._tot_v, zero, self.threshold,
                                       self.capacity, False)
            slack = self.capacity - self._tot_e
            with np.errstate(divide="ignore", invalid="ignore"):
                rows = np.nan_to_num(np.where(slack > 0, self._tot_v / (self._tot_v + slack**2),
                                              1.0), nan=0.0)
        return {**out, "safe": v.admitted, "overflow_bound_per_horizon": {
            horizon_label(h): float(rows[r].max()) for r, h in enumerate(self.grid.horizons)}}

    def learnt_lambda_factor(self) -> float:
        """λ's mean in the prior in use ÷ the declared one: 1 without a learner, before any
        adoption, and while a cautious start's λ is assumed rather than learnt."""
        learner = self.learner
        if learner is None or learner.learnt is None or learner.assumed:
            return 1.0
        return _mean(learner.learnt.lam) / _mean(learner.declared.lam)

    def learnt_mu_factor(self) -> float:
        """μ's mean in the prior in use ÷ the declared one (1 without a learner or before any
        adoption); a cautious start holds λ only, so μ's is what was learnt."""
        learner = self.learner
        if learner is None or learner.learnt is None:
            return 1.0
        return _mean(learner.learnt.mu) / _mean(learner.declared.mu)

    def growth_calibration(self) -> dict[str, Any] | None:
        """Whether the threshold in use was calibrated for the demand this cluster's
        deployments showed (None: the cluster does not learn, so nothing is known). Its
        calibration assumed the declared prior, or a growth-ladder step's multiple of its λ;
        `ratio` is how far the learnt prior lies past that: the learnt λ factor over the
        largest calibrated one, or the learnt cores' lifetime over the declared one (the
        learner moves μ only towards longer lives, for which nothing was calibrated), whichever
        is larger. Past the ladder's hysteresis the SLA's stated confidence no longer covers
        this workload; the closed loop may still hold τ, but nothing calibrated backs it (the
        first moment did not keep τ under λ × 2 at 500-5,000 cores in simulation,
        docs/moments.md)."""
        learner = self.learner
        if learner is None:
            return None
        # A ladder's factors rise (GrowthLadder), so its last is the largest.
        factors = [1.0] if self.ladder is None else [k for k, _ in self.ladder.steps]
        lam, mu = self.learnt_lambda_factor(), self.learnt_mu_factor()
        ratio = max(lam / factors[-1], 1.0 / mu)
        return {"learnt_lambda_factor": lam, "learnt_mu_factor": mu,
                "calibrated_lambda_factors": factors, "ratio": ratio,
                "beyond_calibration": ratio > GrowthLadder.HYSTERESIS}

    def describe(self) -> dict[str, Any]:
        live = sum(1 for d in self.deployments.values() if d.alive)
        peak = {}
        for r, h in enumerate(self.grid.horizons):
            peak[horizon_label(h)] = float(self._tot_e[r].max()) if self.policy != "threshold" else None
        return {
            **self.safety(),
            "policy": self.policy,
            # While a gate refuses everything the threshold is a placeholder: none is shown.
            "threshold": None if self.gate else self.threshold,
            "gate": self.gate,
            "marginal": self.marginal,
            "arrival_size_evidence": self.arrival_size_evidence,
            "closed_loop": None if self.loop is None else self.loop.describe(),
            "population_prior": None if self.learner is None else self.learner.describe(),
            "growth_ladder": None if self.ladder is None else self.ladder.to_dict(),
            "growth_calibration": self.growth_calibration(),
            "outgrowing": self.outgrowing(),
            "capacity": self.capacity,
            "now": self.now,
            "active_cores": self.active,
            "deployments": live,
            "admitted": self.admitted,
            "rejected": self.rejected,
            "scaleout_requests": self.requests,
            "scaleouts_denied": self.denied,
            "sla_failure_rate": self.sla_failure_rate,
            "peak_expected_cores": peak,
            "grid": {"horizons_hours": list(self.grid.horizons), "steps": self.grid.steps},
        }

    def deployment_view(self, deployment_id: str) -> dict[str, Any]:
        d = self.deployments.get(deployment_id)
        if d is None:
            raise errors.UnknownDeployment("deployment_id", f"unknown deployment {deployment_id!r}")
        b = self.belief(d)
        view: dict[str, Any] = {
            "id": d.id,
            "alive": d.alive,
            "cores": d.cores,
            "category": d.category,
            "born": d.born,
            "posterior": {
                name: {"shape": p[0], "rate": p[1], "mean": gamma_mean_var(p)[0], "var": gamma_mean_var(p)[1]}
                for name, p in (("lambda", b.lam), ("mu", b.mu), ("sigma", b.sig))
            },
            "statistics": d.stats.to_dict(),
            # What its next scale-out will be answered (from the moments the decisions use,
            # as of the last admission; the curves below are computed now).
            "migrate": self._migrate(d) if d.alive else None,
        }
        if d.alive and self.policy != "threshold":
            e, v = self.kernel.moments(d.cores, b, self.grid, True)
            view["expected_cores"] = {horizon_label(h): float(e[r, -1]) for r, h in enumerate(self.grid.horizons)}
            view["variance"] = {horizon_label(h): float(v[r, -1]) for r, h in enumerate(self.grid.horizons)}
        return view
