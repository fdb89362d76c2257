"""Views and JSON persistence of a MomentEngine (kept apart so engine.py stays about decisions)."""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Any

import numpy as np

from app.policies.moments import errors, policies
from app.policies.moments.deployment import Deployment
from app.policies.moments.formulas import Grid, horizon_label, moments
from app.policies.moments.priors import Prior, Stats, gamma_mean_var, posterior

if TYPE_CHECKING:
    from app.policies.moments.engine import MomentEngine


def _safety(self: "MomentEngine") -> dict[str, Any]:
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


def describe(self: "MomentEngine") -> dict[str, Any]:
    live = sum(1 for d in self.deployments.values() if d.alive)
    peak = {}
    for r, h in enumerate(self.grid.horizons):
        peak[horizon_label(h)] = float(self._tot_e[r].max()) if self.policy != "threshold" else None
    return {
        **_safety(self),
        "policy": self.policy,
        "threshold": self.threshold,
        "marginal": self.marginal,
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

def deployment_view(self: "MomentEngine", deployment_id: str) -> dict[str, Any]:
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
    }
    if d.alive and self.policy != "threshold":
        e, v = moments(d.cores, b, self.grid)
        view["expected_cores"] = {horizon_label(h): float(e[r, -1]) for r, h in enumerate(self.grid.horizons)}
        view["variance"] = {horizon_label(h): float(v[r, -1]) for r, h in enumerate(self.grid.horizons)}
    return view

def to_state(self: "MomentEngine") -> dict[str, Any]:
    return {
        "version": 1,
        "config": {
            "capacity": self.capacity,
            "policy": self.policy,
            "threshold": self.threshold,
            "marginal": self.marginal,
            "horizons": list(self.grid.horizons),
            "steps": self.grid.steps,
            "population": self.population.to_dict(),
            "delta": self.delta,
            "nu": self.nu,
            "refresh_per_admit": self.refresh_per_admit,
        },
        "now": self.now,
        "active": self.active,
        "counters": [self.requests, self.denied, self.admitted, self.rejected, self._updates],
        "deployments": [
            {
                "id": d.id, "cores": d.cores, "born": d.born, "last": d.last, "prior": d.prior.to_dict(),
                "stats": d.stats.to_dict(), "category": d.category, "alive": d.alive, "dirty": d.dirty,
                "cached": None if d.cached_inputs is None else [d.cached_inputs[0], d.cached_inputs[1].to_dict()],
            }
            for d in self.deployments.values()
        ],
        "categories": {k: list(v) for k, v in self.categories.items()},
        "dirty": list(self._dirty),
        "rotation": list(self._rotation),
        "totals": [self._tot_e.tolist(), self._tot_v.tolist()],
    }

def from_state(cls: type["MomentEngine"], state: dict[str, Any]) -> "MomentEngine":
    c = state["config"]
    eng = cls(
        c["capacity"], c["policy"], c["threshold"], c["marginal"], Grid(tuple(c["horizons"]), c["steps"]),
        Prior.from_dict(c["population"]), c["delta"], c["nu"], c["refresh_per_admit"],
    )
    eng.now = state["now"]
    eng.active = state["active"]
    eng.requests, eng.denied, eng.admitted, eng.rejected, eng._updates = state["counters"]
    for row in state["deployments"]:
        d = Deployment(
            row["id"], row["cores"], row["born"], row["last"], Prior.from_dict(row["prior"]),
            Stats.from_dict(row["stats"]), row["category"], row["alive"], row["dirty"],
        )
        eng.deployments[d.id] = d
        if row["cached"] is not None:
            # Moments are a pure function of (cores, prior, stats): rebuild the cache from
            # the inputs it was computed from, bit for bit, without touching the totals.
            cores, stats = row["cached"][0], Stats.from_dict(row["cached"][1])
            d.cached_inputs = (cores, stats)
            eng._cache[d.id] = moments(cores, posterior(d.prior, stats, eng.delta, eng.nu), eng.grid)
    eng.categories = {k: deque(v) for k, v in state["categories"].items()}
    eng._dirty = dict.fromkeys(state["dirty"])
    eng._rotation = deque(state["rotation"])
    eng._tot_e = np.array(state["totals"][0], dtype=float).reshape(eng.grid.shape)
    eng._tot_v = np.array(state["totals"][1], dtype=float).reshape(eng.grid.shape)
    return eng
