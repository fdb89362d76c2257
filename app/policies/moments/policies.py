"""Admission rules over summed moments (§4.1-4.3) with the marginal heuristic (§6.1).

Each rule gets the cluster totals E = Σ E[L_n], V = Σ Var[L_n] *after* admitting the arrival,
and the arrival's own E[L_n^x], all of grid shape (horizons, steps). A step passes if the rule
holds there, or (with the marginal heuristic) if E[L_n^x] < 1e-5. The deployment is admitted
only if every step of every horizon passes (§5.2). An unsafe state (§2.2: the rule fails even
without the arrival) needs no special case: adding a deployment only raises E and Var, so in
an unsafe state only steps where the arrival is marginal can pass.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from app.policies.moments.formulas import Grid, horizon_label

MARGINAL = 1e-5
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
    ok = total_e <= t
    return _verdict(ok, total_e, total_e / capacity, own_e, marginal, "expected_cores_over_threshold")


def second_moment(
    total_e: np.ndarray, total_v: np.ndarray, own_e: np.ndarray, rho: float, capacity: float, marginal: bool
) -> Verdict:
    """Eqs. (19)-(20): Σ E ≤ c and the Cantelli bound ΣVar / (ΣVar + (c − ΣE)²) ≤ ρ."""
    slack = capacity - total_e
    with np.errstate(divide="ignore", invalid="ignore"):
        bound = np.where(slack > 0, total_v / (total_v + slack**2), 1.0)
    bound = np.nan_to_num(bound, nan=0.0)
    ok = (slack >= 0) & (bound <= rho)
    return _verdict(ok, total_e, bound, own_e, marginal, "overflow_bound_exceeded")


def _verdict(ok: np.ndarray, total_e: np.ndarray, bound: np.ndarray, own_e: np.ndarray, marginal: bool, why: str) -> Verdict:
    passes = ok | (own_e < MARGINAL) if marginal else ok
    rescued = bool(marginal and np.any(~ok & passes))
    # Worst step: the failing step with the largest bound, else the largest bound overall.
    score = bound if passes.all() else np.where(passes, -np.inf, bound)
    r, s = np.unravel_index(int(np.argmax(score)), score.shape)
    admitted = bool(passes.all())
    reason = ("admitted_marginal" if rescued else "within_bound") if admitted else why
    return Verdict(admitted, reason, (int(r), int(s)), float(total_e[r, s]), float(bound[r, s]), rescued)


def threshold(active_after: int, t: float, capacity: float) -> Verdict:
    """Def. 1: admit if fewer than t cores would be active after admission."""
    ok = active_after < t
    return Verdict(ok, "below_threshold" if ok else "active_cores_over_threshold", None, float(active_after), active_after / capacity, False)


def decision_dict(v: Verdict, grid: Grid, threshold: float) -> dict[str, Any]:
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
