"""Reference rewards per server for a DRA instance: the global greedy U^(g)[ρ] and the
optimum U*[ρ] of LP (3.2) (DRA paper §3).

``global_greedy`` follows Proposition 1 and Definition 5 in exact rational arithmetic: it is
GPA's fluid limit (Proposition 2) with one unit of servers. ``optimal`` solves LP (3.2) with
HiGHS over every feasible configuration, or by column generation when there are too many to
enumerate (see ``bounds_lp``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

from app.policies.dra.configurations import Config, ConfigurationSpace
from app.sim.dra import bounds_lp
from app.sim.dra.presets import Instance

METHODS = ("auto", "enumerate", "colgen")
# "auto" enumerates up to this many configurations (HiGHS solves that LP in about a second)
# and switches to column generation beyond.
ENUMERATION_LIMIT = 200_000


@lru_cache(maxsize=64)
def _space(demands, capacity, rewards) -> ConfigurationSpace:
    return ConfigurationSpace(demands, capacity, rewards)


def space_for(instance: Instance) -> ConfigurationSpace:
    """One cached space per (demands, capacity, rewards): MaxReward is independent of ρ, so
    an α sweep solves each knapsack once."""
    return _space(instance.demands, instance.capacity, instance.rewards)


@lru_cache(maxsize=64)
def _enumerated(demands, capacity, limit) -> np.ndarray | None:
    cols = bounds_lp.enumerate_configurations(np.asarray(demands, dtype=float),
                                              np.asarray(capacity, dtype=float), limit)
    if cols is not None:
        cols.setflags(write=False)
    return cols


# ---- global greedy (Proposition 1, Definition 5) ----------------------------------------

@dataclass(frozen=True)
class GreedyAssignment:
    order: tuple[int, ...]            # σ: the type each step exhausts
    configs: tuple[Config, ...]       # k^(1), k^(2), ...
    z: tuple[Fraction, ...]           # z^(i)[ρ] of (3.3)
    x: dict[Config, Fraction]         # x^(g)[ρ] of (3.5), on the configurations it uses
    reward: Fraction                  # U^(g)[ρ] of (3.7)


def global_greedy_assignment(instance: Instance) -> GreedyAssignment:
    """Proposition 1's ordering and Definition 5's assignment, exactly.

    Step i takes k^(i) = MaxReward over the types left and gives it z^(i) servers (per unit
    of servers): just enough to exhaust the first of its types, r_j / k_j minimal, ties to
    the smallest index as Proposition 1 (item 2) orders them. That type leaves. The servers
    then go to k^(1), k^(2), ... in order until one unit is used (3.5); leftovers stay empty.
    ρ and u are floats, read exactly as rationals, so ties are real ties.
    """
    space = space_for(instance)
    r = [Fraction(p) for p in instance.rho]
    u = [Fraction(v) for v in instance.rewards]
    mask = space.full_mask
    order: list[int] = []
    configs: list[Config] = []
    zs: list[Fraction] = []
    while mask:
        k, support = space.max_reward_entry(mask)
        if not support:  # nothing left fits a server: the remaining types get no slots
            break
        j_star, kj = min(support, key=lambda e: (r[e[0]] / e[1], e[0]))
        z = r[j_star] / kj
        for j, n in support:
            r[j] -= z * n
        mask &= ~(1 << j_star)
        order.append(j_star)
        configs.append(k)
        zs.append(z)
    x: dict[Config, Fraction] = {}
    left = Fraction(1)
    for k, z in zip(configs, zs):
        if left <= 0:
            break
        x[k] = min(z, left)
        left -= x[k]
    if left > 0:  # I_ρ = J + 1: the rest of the servers hold the empty configuration
        x[space.zero] = x.get(space.zero, Fraction(0)) + left
    reward = sum((share * sum((uj * n for uj, n in zip(u, k)), Fraction(0))
                  for k, share in x.items()), Fraction(0))
    return GreedyAssignment(tuple(order), tuple(configs), tuple(zs), x, reward)


def global_greedy(instance: Instance) -> float:
    """U^(g)[ρ] per server (3.7)."""
    return float(global_greedy_assignment(instance).reward)


# ---- LP (3.2) ----------------------------------------------------------------------------

def solve(instance: Instance, method: str = "auto",
          limit: int = ENUMERATION_LIMIT) -> bounds_lp.LPSolution:
    """LP (3.2) for ``instance``; ``auto`` enumerates when there are at most ``limit``
    configurations and generates columns otherwise."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, not {method!r}")
    rho = np.asarray(instance.rho, dtype=float)
    rewards = np.asarray(instance.rewards, dtype=float)
    space = space_for(instance)  # validates the instance (every type demands something)
    if method != "colgen":
        cols = _enumerated(instance.demands, instance.capacity,
                           None if method == "enumerate" else limit)
        if cols is not None:
            return bounds_lp.solve_enumerated(cols, rho, rewards)
    # Start from the configurations the greedy uses and each type alone at its most:
    # the master is then at least as good as the greedy from the first round.
    greedy = global_greedy_assignment(instance)
    initial = [space.zero, *greedy.configs,
               *(space.max_reward(1 << j) for j in range(space.J))]
    return bounds_lp.solve_colgen(initial, np.asarray(instance.demands, dtype=float),
                                  np.asarray(instance.capacity, dtype=float), rho, rewards)


def optimal(instance: Instance, method: str = "auto") -> float:
    """U*[ρ] per server: the optimum of LP (3.2)."""
    return solve(instance, method).value


# ---- both together -----------------------------------------------------------------------

@dataclass(frozen=True)
class Bound:
    instance: str
    method: str                        # "enumerate" or "colgen"
    configurations: int                # feasible configurations, or columns generated
    greedy_reward_per_server: float    # U^(g)[ρ]
    optimal_reward_per_server: float   # U*[ρ]
    # U^(g) / U*, 1 when both are 0. The greedy is exact and U* carries float rounding, so
    # an optimal greedy can read 1 + 1e-14.
    ratio: float

    def to_dict(self) -> dict:
        return asdict(self)


def bound(instance: Instance, method: str = "auto") -> Bound:
    lp = solve(instance, method)
    greedy = global_greedy(instance)
    ratio = greedy / lp.value if lp.value > 0 else 1.0
    return Bound(instance.name, lp.method, int(lp.columns.shape[0]), greedy, lp.value, ratio)


def critical_alphas(instance: Instance, hi: float = 10.0, grid: int = 100,
                    rel_tol: float = 1e-9, xtol: float = 1e-9
                    ) -> tuple[float | None, float | None]:
    """§7.1's two critical points of α ↦ (U^(g)[αρ], U*[αρ]) on (0, hi]: the first α where
    the greedy falls below the optimum, and the last α where they still differ (None when
    they never differ, or, for the second, when they still differ at ``hi``).

    A grid locates the changes and bisection refines them to ``xtol``; gaps narrower than
    the grid step between the two points go unseen.
    """
    def differs(a: float) -> bool:
        b = bound(instance.scaled(a))
        gap = b.optimal_reward_per_server - b.greedy_reward_per_server
        return gap > rel_tol * max(1.0, b.optimal_reward_per_server)

    def refine(ok: float, bad: float) -> float:
        while abs(bad - ok) > xtol:
            mid = (ok + bad) / 2
            ok, bad = (ok, mid) if differs(mid) else (mid, bad)
        return (ok + bad) / 2

    alphas = [hi * (i + 1) / grid for i in range(grid)]
    flags = [differs(a) for a in alphas]
    if not any(flags):
        return None, None
    i = flags.index(True)
    first = refine(alphas[i - 1] if i else 0.0, alphas[i])
    i = len(flags) - 1 - flags[::-1].index(True)
    last = None if i == grid - 1 else refine(alphas[i + 1], alphas[i])
    return first, last
