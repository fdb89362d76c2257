"""LP (3.2) of the DRA paper, the per-server optimum U*[ρ], solved with HiGHS.

    max  Σ_j u_j y_j   s.t.  y_j <= ρ_j,  Σ_k k_j x_k >= y_j,  Σ_k x_k = 1,  x >= 0.

Two ways to get the columns k: every feasible configuration (``enumerate_configurations``),
or column generation, which starts from a few configurations and prices new ones with an
unbounded multi-dimensional knapsack (``solve_colgen``).

Every value returned is recomputed from a clipped, renormalised x as
Σ_j u_j min(ρ_j, (Kᵀx)_j): an assignment that really is feasible, not HiGHS's objective,
which may carry the solver's feasibility tolerance.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, linprog, milp
from scipy.sparse import csr_matrix, hstack, identity

from app.policies.model import FIT_TOLERANCE

# Tighter than HiGHS's 1e-7 defaults: "greedy equals optimal" is judged at 1e-9.
_LP_OPTIONS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}
MAX_COLGEN_ROUNDS = 1000


@dataclass(frozen=True)
class LPSolution:
    value: float           # U*[ρ], per server
    columns: np.ndarray    # (C, J) configurations the LP was given
    x: np.ndarray          # (C,) fraction of servers per column, sums to 1
    duals: np.ndarray      # (J,) μ_j, value of one more slot of type j
    method: str            # "enumerate" or "colgen"


def max_counts(demands: np.ndarray, capacity: np.ndarray) -> np.ndarray:
    """Most jobs of each type alone in one server (0 if it does not fit)."""
    cap = capacity + FIT_TOLERANCE
    with np.errstate(divide="ignore"):
        per_dim = np.where(demands > 0, np.floor(cap / np.where(demands > 0, demands, 1.0)),
                           np.inf)
    return per_dim.min(axis=1).astype(np.int64)


def enumerate_configurations(demands: np.ndarray, capacity: np.ndarray,
                             limit: int | None = None) -> np.ndarray | None:
    """All feasible configurations as a (C, J) int array, or None if there are more than
    ``limit``.

    Built type by type: each partial configuration expands into every count the remaining
    capacity allows. A partial row never expands into zero rows, so once a stage exceeds
    ``limit`` the final set does too, and we stop without building it.
    """
    J, _ = demands.shape
    rows = np.zeros((1, J), dtype=np.int64)
    rem = (capacity + FIT_TOLERANCE)[None, :].astype(float)
    for j in range(J):
        d = demands[j]
        pos = d > 0
        m = np.floor(rem[:, pos] / d[pos]).min(axis=1).astype(np.int64)
        m = np.maximum(m, 0)
        reps = m + 1
        total = int(reps.sum())
        if limit is not None and total > limit:
            return None
        counts = np.arange(total) - np.repeat(np.cumsum(reps) - reps, reps)
        rows = np.repeat(rows, reps, axis=0)
        rows[:, j] = counts
        rem = np.repeat(rem, reps, axis=0) - counts[:, None] * d[None, :]
    return rows


def served_value(columns: np.ndarray, x: np.ndarray, rho: np.ndarray,
                 rewards: np.ndarray) -> tuple[np.ndarray, float]:
    """Clip and renormalise x, then the reward it earns: Σ_j u_j min(ρ_j, slots_j)."""
    x = np.clip(x, 0.0, None)
    x = x / x.sum()
    slots = columns.T.astype(float) @ x
    return x, math.fsum(float(u) * min(float(r), float(s))
                        for u, r, s in zip(rewards, rho, slots))


def solve_master(columns: np.ndarray, rho: np.ndarray, rewards: np.ndarray
                 ) -> tuple[np.ndarray, float, np.ndarray]:
    """LP (3.2) over the given columns: (x, value, μ)."""
    C, J = columns.shape
    cost = np.concatenate([np.zeros(C), -rewards])
    # y_j - Σ_k k_j x_k <= 0  (3.2c)
    a_ub = hstack([csr_matrix(-columns.T.astype(float)), identity(J, format="csr")],
                  format="csr")
    a_eq = np.concatenate([np.ones(C), np.zeros(J)])[None, :]  # (3.2d)
    bounds = np.column_stack([np.zeros(C + J),
                              np.concatenate([np.full(C, np.inf), rho])])  # (3.2b, e)
    res = linprog(cost, A_ub=a_ub, b_ub=np.zeros(J), A_eq=a_eq, b_eq=[1.0], bounds=bounds,
                  method="highs-ds", options=_LP_OPTIONS)
    if res.status != 0:
        raise RuntimeError(f"HiGHS could not solve LP (3.2): {res.message}")
    x, value = served_value(columns, res.x[:C], rho, rewards)
    # HiGHS reports d(objective)/d(rhs) of the minimisation; μ_j >= 0 is the max's price.
    duals = np.clip(-np.asarray(res.ineqlin.marginals, dtype=float), 0.0, None)
    return x, value, duals


def solve_enumerated(columns: np.ndarray, rho: np.ndarray, rewards: np.ndarray) -> LPSolution:
    x, value, duals = solve_master(columns, rho, rewards)
    return LPSolution(value, columns, x, duals, "enumerate")


def price(duals: np.ndarray, demands: np.ndarray, capacity: np.ndarray,
          counts: np.ndarray) -> np.ndarray:
    """The configuration maximising Σ_j μ_j k_j: unbounded knapsack in every dimension,
    solved to optimality (zero gap) by HiGHS's MIP solver."""
    J = len(duals)
    cons = LinearConstraint(demands.T, -np.inf, capacity + FIT_TOLERANCE)
    res = milp(-duals, integrality=np.ones(J), bounds=Bounds(np.zeros(J), counts),
               constraints=[cons], options={"mip_rel_gap": 0.0})
    if res.status != 0:
        raise RuntimeError(f"HiGHS could not solve the pricing knapsack: {res.message}")
    k = np.rint(res.x).astype(np.int64)
    if np.any(k @ demands > capacity + FIT_TOLERANCE):
        # Rounding an almost-integer point over capacity (non-integer demands): round down.
        k = np.floor(res.x + 1e-9).astype(np.int64)
    return k


def solve_colgen(initial: Sequence[Sequence[int]], demands: np.ndarray, capacity: np.ndarray,
                 rho: np.ndarray, rewards: np.ndarray, tol: float = 1e-9) -> LPSolution:
    """Column generation from ``initial`` columns (must include the empty configuration).

    At an optimum of the restricted master, every column has Σ_j μ_j k_j <= λ, with equality
    on the columns in use, so λ = max over current columns. A priced configuration beating λ
    by more than ``tol`` (relative) enters; otherwise no column can improve the LP and the
    restricted optimum is U*[ρ]: the Lagrangian bound Σ_j ρ_j (u_j − μ_j)⁺ + max_k μ·k then
    equals it up to the tolerance.
    """
    columns = np.unique(np.asarray(initial, dtype=np.int64), axis=0)
    counts = max_counts(demands, capacity)
    seen = {tuple(c) for c in columns}
    for _ in range(MAX_COLGEN_ROUNDS):
        x, value, duals = solve_master(columns, rho, rewards)
        lam = float((columns @ duals).max())
        k = price(duals, demands, capacity, counts)
        gain = float(k @ duals) - lam
        if gain <= tol * max(1.0, abs(lam)) or tuple(k) in seen:
            return LPSolution(value, columns, x, duals, "colgen")
        seen.add(tuple(k))
        columns = np.vstack([columns, k[None, :]])
    raise RuntimeError(f"column generation did not converge in {MAX_COLGEN_ROUNDS} rounds")
