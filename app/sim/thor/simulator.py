"""Run reservation policies over a demand series and score them (THOR paper §V).

Every policy is the same stream object the service runs, fed one period at a time; the static
oracle is fitted on the whole series first. Period 0 is judged against "nothing reserved" for
the online policies (they have seen nothing yet), so each pays one forced violation.
"""

from __future__ import annotations

import csv
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from app.policies.thor import RESERVATION_POLICIES, ResourceSpec, StaticOracle, make_stream
from app.policies.thor.envelope import envelope

POLICIES = ("quantile_tracking", "thor", "ftl", "percentile", "static_oracle")


@dataclass
class PolicyRun:
    reservations: np.ndarray  # x^t judged against λ^t
    violated: np.ndarray
    predicted: np.ndarray | None  # THOR's b(x^t), eq. (3); None for the others
    model: np.ndarray | None = None  # THOR: F_{t-1}(x^t), the cap's probability of exceeding x^t
    final: dict[str, Any] | None = None  # the stream's describe() after the last period

    def summary(self, cost: float) -> dict[str, float]:
        out = {"violation_rate": float(self.violated.mean()),
               "mean_reservation": float(self.reservations.mean()),
               "cost": float(cost * self.reservations.sum())}
        if self.predicted is not None:
            # What the predictor queue controls (≈ ε on average) next to what happened.
            out["predicted_violation_rate"] = float(self.predicted.mean())
        if self.model is not None:
            # The gap to the line above is the linearisation error of (3) (F is convex).
            out["model_violation_rate"] = float(self.model.mean())
        guarantee = (self.final or {}).get("resources", [{}])[0].get("guarantee")
        if guarantee is not None:
            # The policy's own stated ceiling for this horizon (quantile tracking).
            out["violation_rate_bound"] = guarantee["violation_rate_at_most"]
        return out


def load_series(trace: str | None = None, resource: str | None = None,
                csv_path: str | Path | None = None, column: str | None = None) -> np.ndarray:
    """A demand series from the packaged traces or from one column of a CSV file."""
    if csv_path is not None:
        if not column:
            raise ValueError("--csv needs --column")
        with open(csv_path, newline="") as fh:
            reader = csv.DictReader(fh)
            if reader.fieldnames is None or column not in reader.fieldnames:
                raise ValueError(f"column {column!r} not in {csv_path}")
            values = []
            for line, row in enumerate(reader, start=2):
                try:
                    values.append(float(row[column]))
                except (TypeError, ValueError):
                    raise ValueError(f"{csv_path}:{line}: {column}={row[column]!r} is not a "
                                     "number") from None
        series = np.asarray(values, dtype=float)
    else:
        from app.sim.traces import utilization
        if trace is None or resource is None:
            raise ValueError("give --trace and --resource, or --csv and --column")
        series = np.asarray(utilization(trace, resource), dtype=float)
    if series.size == 0:
        raise ValueError("the series is empty")
    if not np.all(np.isfinite(series)) or np.any(series < 0):
        raise ValueError("demand must be finite and >= 0")
    return series


def run_policy(kind: str, series: Sequence[float], epsilon: float, *, cost: float = 1.0,
               params: Mapping[str, Any] | None = None, name: str = "demand") -> PolicyRun:
    spec = ResourceSpec(name, cost=cost, epsilon=epsilon)
    values = [float(v) for v in series]
    if kind == "static_oracle":
        stream = StaticOracle.fit([spec], {name: values})
    else:
        stream = make_stream(kind, [spec], params)
    n = len(values)
    reservations = np.empty(n)
    violated = np.empty(n, dtype=bool)
    predicted = np.empty(n) if kind == "thor" else None
    model = np.empty(n) if kind == "thor" else None
    for t, lam in enumerate(values):
        d = stream.observe(t, {name: lam})
        reservations[t] = d.reserved[name]
        violated[t] = d.violated[name]
        if predicted is not None:
            # b(x^{t+1}) predicts period t+1; shift so predicted[t] is about period t.
            if t + 1 < n:
                det = d.details[name]
                predicted[t + 1] = det["predicted_violation"]
                model[t + 1] = envelope(d.next_reservation[name], det["cap_mean"],
                                        det["cap_sigma"])
    if predicted is not None:
        predicted, model = predicted[1:], model[1:]
    return PolicyRun(reservations, violated, predicted, model, stream.describe())


def evaluate(series: Sequence[float], epsilon: float, *, cost: float = 1.0,
             policies: Sequence[str] = POLICIES,
             params: Mapping[str, Mapping[str, Any]] | None = None,
             keep_runs: bool = False) -> dict[str, Any]:
    """``{policies: {name: {violation_rate, mean_reservation, cost, ...}}}`` for one series;
    ``relative_cost`` is against the static oracle when it ran."""
    unknown = [p for p in policies if p not in (*RESERVATION_POLICIES, "static_oracle")]
    if unknown:
        raise ValueError(f"unknown policy {unknown[0]!r}; known: {', '.join(POLICIES)}")
    params = params or {}
    runs = {k: run_policy(k, series, epsilon, cost=cost, params=params.get(k))
            for k in policies}
    out: dict[str, Any] = {"epsilon": epsilon, "periods": len(series), "cost_per_unit": cost,
                           "policies": {k: r.summary(cost) for k, r in runs.items()}}
    if "static_oracle" in runs:
        base = out["policies"]["static_oracle"]["cost"]
        for k, s in out["policies"].items():
            s["relative_cost"] = s["cost"] / base if base > 0 else float("nan")
    if keep_runs:
        out["runs"] = runs
    return out
