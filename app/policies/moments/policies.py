"""Admission rules over summed moments (§4.1-4.3) with the marginal heuristic (§6.1).

Each rule gets the cluster totals E = Σ E[L_n], V = Σ Var[L_n] *after* admitting the arrival,
and the arrival's own E[L_n^x], all of grid shape (horizons, steps). A step passes if the rule
holds there, or (with the marginal heuristic) if E[L_n^x] < 1e-5. The deployment is admitted
only if every step of every horizon passes (§5.2). An unsafe state (§2.2: the rule fails even
without the arrival) needs no special case: adding a deployment only raises E and Var, so in
an unsafe state only steps where the arrival is marginal can pass.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from app.policies.moments.formulas import Grid, horizon_label
from app.policies.moments.kernel import compiled

MARGINAL = 1e-5
DBL_MAX = float(np.finfo(float).max)
POLICIES = ("threshold", "first_moment", "second_moment")


@dataclass(frozen=True)
class Verdict:
    admitted: bool
    reason: str
    worst: tuple[int, int] | None  # (horizon row, step) where the rule is tightest
    expected: float
    bound: float
    marginal: bool


def first_moment(total_e: np.ndarray, own_e: np.ndarray, t: float, capacity: float, marginal: bool) -> Verdict:
    """Eq. (12): Σ E[L_n] ≤ t at every step; the reported bound is Markov's E/c (eq. 11)."""
    return _verdict(total_e, total_e, own_e, False, t, capacity, marginal, "expected_cores_over_threshold")


def second_moment(
    total_e: np.ndarray, total_v: np.ndarray, own_e: np.ndarray, rho: float, capacity: float, marginal: bool
) -> Verdict:
    """Eqs. (19)-(20): Σ E ≤ c and the Cantelli bound ΣVar / (ΣVar + (c − ΣE)²) ≤ ρ."""
    return _verdict(total_e, total_v, own_e, True, rho, capacity, marginal, "overflow_bound_exceeded")


def _verdict(total_e: np.ndarray, total_v: np.ndarray, own_e: np.ndarray, cantelli: bool, limit: float,
             capacity: float, marginal: bool, why: str) -> Verdict:
    capacity = float(capacity)
    admitted, rescued, i, bound = _scan(total_e.ravel(), total_v.ravel(), own_e.ravel(), cantelli, float(limit),
                                        capacity, marginal)
    r, s = divmod(int(i), total_e.shape[-1])
    reason = ("admitted_marginal" if rescued else "within_bound") if admitted else why
    return Verdict(bool(admitted), reason, (r, s), float(total_e[r, s]), float(bound), bool(rescued))


@compiled
def _bound(e: float, v: float, cantelli: bool, capacity: float) -> float:
    """A step's overflow bound: Cantelli's V / (V + (c − E)²), 1 where nothing is free (NaN
    as 0 and infinities as the largest doubles, as numpy.nan_to_num has them); Markov's E / c
    for the first moment."""
    if not cantelli:
        return e / capacity
    slack = capacity - e
    b = v / (v + slack * slack) if slack > 0 else 1.0
    if math.isnan(b):
        return 0.0
    return min(max(b, -DBL_MAX), DBL_MAX)


@compiled
def _scan(e: np.ndarray, v: np.ndarray, own: np.ndarray, cantelli: bool, limit: float, capacity: float,
          marginal: bool) -> tuple[bool, bool, int, float]:
    """One pass over the grid (each rule was a dozen numpy calls, ~5% of a simulated life):
    whether every step passes; whether one passed only as marginal (E[L_n^x] < 1e-5 where
    the rule fails); and the worst step, with its bound: the failing step with the largest
    bound, else the largest bound overall (the first such step, as numpy.argmax picks)."""
    every = True
    rescued = False
    worst_all, worst_failing = 0, -1
    top_all, top_failing = -np.inf, -np.inf
    for i in range(e.size):
        b = _bound(e[i], v[i], cantelli, capacity)
        ok = (capacity - e[i] >= 0 and b <= limit) if cantelli else e[i] <= limit
        passes = ok or (marginal and own[i] < MARGINAL)
        rescued |= passes and not ok
        if i == 0 or b > top_all:
            worst_all, top_all = i, b
        if not passes:
            every = False
            if worst_failing < 0 or b > top_failing:
                worst_failing, top_failing = i, b
    if every:
        return every, rescued, worst_all, top_all
    return every, rescued, worst_failing, top_failing


def threshold(active_after: int, t: float, capacity: float) -> Verdict:
    """Def. 1: admit if fewer than t cores would be active after admission."""
    ok = active_after < t
    return Verdict(ok, "below_threshold" if ok else "active_cores_over_threshold", None, float(active_after), active_after / capacity, False)


def decision_dict(v: Verdict, grid: Grid, threshold: float | None) -> dict[str, Any]:
    worst = None
    if v.worst is not None:
        r, s = v.worst
        worst = {"horizon": horizon_label(grid.horizons[r]), "at_hours": float((s + 1) * grid.step_sizes[r])}
    return {
        "decision": "admitted" if v.admitted else "rejected",
        "reason": v.reason,
        "details": {
            "worst_horizon": worst,
            "expected_cores": v.expected,
            "overflow_bound": v.bound,
            "threshold": threshold,
            "marginal": v.marginal,
        },
    }
