"""THOR — Time Horizon Online Reservation (paper §III-D), one engine per reservation stream.

Per resource i, when the demand λ of a period is observed (paper's slot t−1 ending):
1. the cap estimator learns λ, giving F_{t−1} (envelope of N(μ, σ²), ``envelope.py``);
2. eq. (8):  x^t = [x^{t−1} − (V c_i + Q_i(t) F'_{t−1}(x^{t−1})) / (2α)]^+
3. eq. (3):  b_i(x^t) = F_{t−1}(x^{t−1}) + F'_{t−1}(x^{t−1}) (x^t − x^{t−1})
   eq. (9):  Q_i(t+1) = [Q_i(t) + b_i(x^t) − ε_i]^+
The resources never interact (Proposition 1: the bound (6) separates), so each has its own
(V, α) derived from its ε.

Units. With ``normalize`` (default) eq. (8) runs with V_t = V/σ_t and α_t = α/σ_t², i.e. the
step is x − σ_t (V c_i + Q_i dF_E/du)/(2α): V and α are then dimensionless and one default
works whether demand is a fraction, cores or bytes and however volatile it is. In the paper's
own setting (Λ stationary, σ constant) this is exactly eq. (8) with rescaled constants. With
``normalize=False`` eq. (8) runs verbatim and V, α must be given in demand units.

Defaults. Linearising the loop around its fixed point (F = ε, u = (x−μ)/σ = z_ε) gives, in
standard units, Δu ≈ −k u + (φ(z_ε)/2α) q with k = V c z_ε / (2α) and Δq = −φ(z_ε) u, and an
equilibrium queue Q* = V c / φ(z_ε). So instead of fixed V and α we fix
- ``queue_target`` Q* = 5: the queue's working level, several periods' worth of violation
  probability, so one bad period moves the reservation without flooding it;
- ``tracking_gain`` k = 0.5: half of a standardised deviation is corrected per period through
  the curvature of F (k < 2 is needed for stability; a smaller k keeps steps, and so the gap
  between the linear prediction (3) and F itself, small);
and derive V c_i = Q* φ(z_ε), α = V c_i max(z_ε, 0.5) / (2k) per resource (the 0.5 keeps
ε = 0.5 finite). Explicit ``V``/``alpha`` override them.

Start. The paper starts from Q(1) = 0 and any x^0. Here, unless ``initial_queue`` is given,
Q starts at the equilibrium Q* of the first cap, and without an initial reservation the first
step starts from the first cap's (1−ε) quantile: otherwise a queue at 0 first lets x sink
towards the mean and the early periods violate about half the time.

Cap. By default F_t is learnt from the demand itself (``estimator.py``). ``caps`` instead fixes
a known N(mean, sigma²) per resource — the paper's setting, where Theorem 1 applies. A learnt
cap can be steered by demand that reacts to the reservation (drop low whenever it cannot
exceed x, so the estimate shrinks): the queue then holds the *model's* violations at ε while
realised ones are higher. A fixed cap cannot be steered.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.policies.thor.envelope import (
    density_std, envelope_slope_std, envelope_std, upper_quantile)
from app.policies.thor.estimator import CapEstimator, CapParams
from app.policies.thor.stream import (
    ReservationError, ReservationStream, ResourceSpec, check_number)


@dataclass(frozen=True)
class ThorParams:
    V: float | None = None
    alpha: float | None = None
    queue_target: float = 5.0
    tracking_gain: float = 0.5
    normalize: bool = True
    initial_queue: float | None = None
    estimator: CapParams = field(default_factory=CapParams)
    # The paper's own setting: a known stationary cap N(mean, sigma²) per resource, not learnt.
    caps: Mapping[str, Mapping[str, float]] | None = None

    def __post_init__(self) -> None:
        if self.V is not None:
            check_number(self.V, "params.V", lo=0.0, hi=1e12)
        if self.alpha is not None:
            check_number(self.alpha, "params.alpha", lo=0.0, hi=1e12, lo_open=True)
        check_number(self.queue_target, "params.queue_target", lo=0.0, hi=1e6, lo_open=True)
        check_number(self.tracking_gain, "params.tracking_gain", lo=0.0, hi=2.0, lo_open=True)
        if not isinstance(self.normalize, bool):
            raise ReservationError("params.normalize", "must be a boolean")
        if self.initial_queue is not None:
            check_number(self.initial_queue, "params.initial_queue", hi=1e12)
        for name, cap in (self.caps or {}).items():
            if not isinstance(cap, Mapping) or set(cap) != {"mean", "sigma"}:
                raise ReservationError(f"params.caps.{name}", "needs exactly mean and sigma")
            check_number(cap["mean"], f"params.caps.{name}.mean")
            check_number(cap["sigma"], f"params.caps.{name}.sigma", lo=0.0, lo_open=True)
        if not self.normalize and (self.V is None or self.alpha is None):
            raise ReservationError("params.normalize",
                                   "normalize=false needs V and alpha in demand units")

    @classmethod
    def from_dict(cls, d: Mapping[str, Any] | None) -> ThorParams:
        d = dict(d or {})
        unknown = set(d) - set(cls.__dataclass_fields__)
        if unknown:
            raise ReservationError("params", f"unknown keys {sorted(unknown)}")
        est = d.pop("estimator", None)
        return cls(estimator=CapParams.from_dict(est), **d)

    def to_dict(self) -> dict[str, Any]:
        return {"V": self.V, "alpha": self.alpha, "queue_target": self.queue_target,
                "tracking_gain": self.tracking_gain, "normalize": self.normalize,
                "initial_queue": self.initial_queue, "estimator": self.estimator.to_dict(),
                "caps": None if self.caps is None else {
                    k: {"mean": float(c["mean"]), "sigma": float(c["sigma"])}
                    for k, c in self.caps.items()}}


class ThorStream(ReservationStream):
    kind = "thor"

    def __init__(self, resources: Sequence[ResourceSpec | Mapping[str, Any]],
                 params: ThorParams | Mapping[str, Any] | None = None):
        super().__init__(resources)
        self.params = params if isinstance(params, ThorParams) else ThorParams.from_dict(params)
        p = self.params
        for s in self.resources:
            if s.epsilon > 0.5:
                raise ReservationError(f"resources.{s.name}.epsilon",
                                       "THOR needs epsilon <= 0.5 (paper §III-D)")
        self._z = [upper_quantile(s.epsilon) for s in self.resources]
        self._eps = [s.epsilon for s in self.resources]
        phi = [density_std(max(z, 0.0)) for z in self._z]
        self._phi = phi
        self._vc = [p.V * s.cost if p.V is not None else p.queue_target * f
                    for s, f in zip(self.resources, phi)]
        self._alpha = [p.alpha if p.alpha is not None
                       else vc * max(z, 0.5) / (2.0 * p.tracking_gain)
                       for vc, z in zip(self._vc, self._z)]
        self._est = [CapEstimator(p.estimator) for _ in self.resources]
        caps = dict(p.caps or {})
        unknown = set(caps) - set(self.names)
        if unknown:
            raise ReservationError(f"params.caps.{sorted(unknown)[0]}", "not a resource")
        self._cap = [(float(caps[r]["mean"]), float(caps[r]["sigma"])) if r in caps else None
                     for r in self.names]
        self._q: list[float | None] = [None] * len(self.resources)

    def _advance(self, values: list[float]):
        normalize = self.params.normalize
        nxt, queue, details = [], [], []
        for i, lam in enumerate(values):
            cap = self._cap[i]
            mu, sig = self._est[i].update(lam) if cap is None else cap
            x = self._x[i]
            q = self._q[i]
            if q is None:  # first period: start the queue (and x, if none given) at rest
                q = self._start_queue(i, sig)
            if x is None:
                x = max(0.0, mu + self._z[i] * sig)
            vc, alpha = self._vc[i], self._alpha[i]
            u = (x - mu) / sig
            f = envelope_std(u)
            slope = envelope_slope_std(u) / sig          # F'_{t-1}(x^{t-1})
            if normalize:                                 # V_t = V/σ, α_t = α/σ²
                v_t, a_t = vc / sig, alpha / (sig * sig)
            else:
                v_t, a_t = vc, alpha
            x_new = x - (v_t + q * slope) / (2.0 * a_t)   # eq. (8)
            if x_new < 0.0:
                x_new = 0.0
            b = f + slope * (x_new - x)                   # eq. (3)
            q_new = q + b - self._eps[i]                  # eq. (9)
            if q_new < 0.0:
                q_new = 0.0
            self._q[i] = q_new
            nxt.append(x_new)
            queue.append(q_new)
            details.append({"cap_mean": mu, "cap_sigma": sig, "envelope": f, "slope": slope,
                            "predicted_violation": b, "queue_before": q,
                            "V": _per_cost(v_t, self.resources[i].cost), "alpha": a_t})
        return nxt, queue, details

    def _start_queue(self, i: int, sig: float) -> float:
        if self.params.initial_queue is not None:
            return self.params.initial_queue
        # Equilibrium of (8) at u = z_ε: Q |F'| = V c, |F'| = φ(z_ε) (per σ when raw).
        scale = 1.0 if self.params.normalize else sig
        return self._vc[i] * scale / self._phi[i]

    def derived(self) -> dict[str, dict[str, float]]:
        """The per-resource constants in use (V c_i, α, z_ε) — for docs and the API."""
        return {s.name: {"V": _per_cost(vc, s.cost), "alpha": a, "z": z}
                for s, vc, a, z in zip(self.resources, self._vc, self._alpha, self._z)}

    def params_dict(self) -> dict[str, Any]:
        return self.params.to_dict()

    def _policy_state(self) -> Any:
        return {"queue": list(self._q), "estimator": [e.to_state() for e in self._est]}

    def _load_policy_state(self, state: Any) -> None:
        self._q = [None if q is None else float(q) for q in state["queue"]]
        for est, s in zip(self._est, state["estimator"]):
            est.load(s)


def _per_cost(vc: float, cost: float) -> float | None:
    """V from V·c_i, for the answer. None when it is not a float: the API accepts costs down
    to 5e-324, and Infinity is no JSON number (Postgres' json refused it: a 500)."""
    v = vc / cost
    return v if math.isfinite(v) else None
