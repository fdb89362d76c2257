"""Server configurations for DRA (paper §2.2–2.4, Definitions 1–3 and 6).

A configuration k is a vector of slots per job type that fits one server: with additive
demands, sum_j k_j R_j <= capacity in every dimension (up to ``model.FIT_TOLERANCE``).

Rewards are compared *exactly*: each reward is read as the decimal it prints as
(``Fraction(repr(u))``) and all of them are scaled to integers, so that Definition 2's
"equal reward" is a real equality (0.1 + 0.2 ties with 0.3, as a user who typed those numbers
expects) and the ordering is a strict total order.

MaxReward (Definition 3) is an unbounded multi-dimensional knapsack, NP-hard in general: a
plain branch and bound took over 90 s for 64 job types of 1-7 cores on 64-core servers, in the
request thread. Each search here is bounded: an exact dynamic programme over the capacity grid
when demands are multiples of a coarse enough step (the usual case: whole cores, GiB), else a
branch and bound with LP-duality bounds stopped after a fixed number of nodes, which then keeps
the best configuration it found (deterministic, so every process and replay agrees).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Iterable, Sequence

import numpy as np
from scipy.optimize import linprog

from app.policies.model import FIT_TOLERANCE

Config = tuple[int, ...]


# Largest exact reward weight; float(MAX_WEIGHT * 1e12) stays far below float's 1.8e308.
MAX_WEIGHT = 10**280

# Branch-and-bound nodes one GPA run may spend on MaxReward searches it has not cached: each
# search of a J-type space stops after NODES_PER_GPA // J nodes, and GPA asks for at most J
# subsets, so no event (and no declaration) spends more than this many nodes however the
# declaration is shaped: about 3 s of one core at the ~10 µs per node measured on a loaded
# 2-core machine.
NODES_PER_GPA = 300_000


# Array cells one GPA run may update in MaxReward's dynamic programme (below): each search
# of a J-type space may update GRID_CELLS_PER_GPA // J cells (numpy: about 1-3 ns a cell).
GRID_CELLS_PER_GPA = 200_000_000
# Cells of the programme's tables kept for one search (8 bytes each: 32 MiB).
GRID_TABLE_CELLS = 4_000_000


class _SearchCut(Exception):
    """A MaxReward search reached its node limit."""


class ConfigurationSpace:
    """Feasible configurations of one server type for J job types, and MaxReward over subsets.

    ``max_reward`` is cached per subset of types (a bit mask): it does not depend on the
    workload, so GPA's J look-ups per call are dictionary hits after warm-up (Remark 1).
    Each search is bounded (``node_limit``); one cut short keeps the best configuration it
    found, the same in every process and replay, and ``proved`` tells which.
    """

    def __init__(self, demands: Sequence[Sequence[float]], capacity: Sequence[float],
                 rewards: Sequence[float]):
        self.J = len(demands)
        self.demands = [tuple(float(x) for x in d) for d in demands]
        self.capacity = tuple(float(c) for c in capacity)
        self.rewards = [float(u) for u in rewards]
        for j, d in enumerate(self.demands):
            if not any(x > 0 for x in d):
                raise ValueError(f"job type #{j} demands no resource; DRA needs every job type "
                                 "to use some capacity so that a server holds finitely many jobs")
        fr = [Fraction(repr(u)) for u in self.rewards]
        scale = math.lcm(*(f.denominator for f in fr)) if fr else 1
        # Exact integer rewards, used only for comparisons (Definition 2).
        self.weights = [int(f * scale) for f in fr]
        # The branch and bound divides these integers by demands in floating point. Rewards
        # whose decimal forms need a common denominator beyond ~1e290 (a reward of 5e-324 next
        # to one of 48) would overflow there; no real reward needs that precision, so refuse.
        if max(self.weights, default=0) > MAX_WEIGHT:
            raise ValueError("job type rewards span too many decimal places for an exact "
                             "comparison: give rewards of 0 or at least 1e-9 with at most "
                             "17 significant digits")
        self.zero: Config = (0,) * self.J
        self.full_mask = (1 << self.J) - 1
        # mask -> (configuration, ((j, k_j) for k_j > 0))
        self._max_reward: dict[int, tuple[Config, tuple[tuple[int, int], ...]]] = {}
        self._unproved: set[int] = set()  # masks whose search reached node_limit
        self.node_limit = NODES_PER_GPA // max(self.J, 1)
        self._dominated_by = self._dominators()
        self._grid = self._capacity_grid()
        # Work done by the searches so far (what the limits above bound).
        self.search_nodes = 0
        self.grid_cells = 0

    # ---- Definitions 1 and 2 ------------------------------------------------------------

    def reward(self, k: Sequence[int]) -> float:
        """U(k) = sum_j u_j k_j (Definition 1)."""
        return math.fsum(u * n for u, n in zip(self.rewards, k))

    def order_key(self, k: Sequence[int]) -> tuple[int, ...]:
        """Sort key for Definition 2: a larger key is a "larger" configuration."""
        return (sum(w * n for w, n in zip(self.weights, k)), *k)

    def fits(self, k: Sequence[int]) -> bool:
        if any(n < 0 for n in k):
            return False
        for d, cap in enumerate(self.capacity):
            if sum(n * dem[d] for n, dem in zip(k, self.demands)) > cap + FIT_TOLERANCE:
                return False
        return True

    def _max_count(self, j: int, rem: Sequence[float]) -> int:
        m = None
        for x, r in zip(self.demands[j], rem):
            if x > 0:
                c = math.floor(r / x) if r > 0 else 0
                m = c if m is None or c < m else m
        return max(m or 0, 0)

    # ---- Definition 3: MaxReward(K^{J'}) ------------------------------------------------

    def max_reward(self, types: Iterable[int] | int) -> Config:
        """The Definition-2-largest feasible configuration using only ``types`` (set or mask)."""
        return self.max_reward_entry(types if isinstance(types, int) else self.mask(types))[0]

    def mask(self, types: Iterable[int]) -> int:
        m = 0
        for j in types:
            m |= 1 << j
        return m

    def max_reward_entry(self, mask: int) -> tuple[Config, tuple[tuple[int, int], ...]]:
        entry = self._max_reward.get(mask)
        if entry is None:
            k, proved = self._solve(mask)
            entry = (k, tuple((j, n) for j, n in enumerate(k) if n > 0))
            self._max_reward[mask] = entry
            if not proved:
                self._unproved.add(mask)
        return entry

    def proved(self, mask: int) -> bool:
        """Whether MaxReward(mask) is the exact Definition 3 configuration (its search ended
        within ``node_limit``) rather than the best one found in that many nodes."""
        self.max_reward_entry(mask)
        return mask not in self._unproved

    def _dominators(self) -> list[int]:
        """Per type j, the mask of types i that make j useless in MaxReward of any subset
        holding i: R_i <= R_j in every dimension and u_i > u_j, or u_i == u_j and i < j.
        Swapping a type-j slot for a type-i slot keeps the configuration feasible and makes
        it strictly larger by Definition 2, so no winner holds a dominated type."""
        out = []
        w, dem = self.weights, self.demands
        for j in range(self.J):
            m = 0
            for i in range(self.J):
                if i != j and all(a <= b for a, b in zip(dem[i], dem[j])) and (
                        w[i] > w[j] or (w[i] == w[j] and i < j)):
                    m |= 1 << i
            out.append(m)
        return out

    def _dual_prices(self, types: list[int]) -> list[float] | None:
        """Prices λ >= 0 per dimension with λ·R_j >= u_j for every type given: LP duality
        makes λ·(capacity left) an upper bound on what those types can still add. The LP
        optimum from HiGHS, scaled up where its tolerance left a constraint short, so that
        the bound stays valid in floating point."""
        if not types:
            return None
        a = -np.array([self.demands[j] for j in types], dtype=float)
        b = -np.array([float(self.weights[j]) for j in types])
        res = linprog(np.array(self.capacity), A_ub=a, b_ub=b,
                      bounds=[(0, None)] * len(self.capacity), method="highs")
        if res.status != 0:
            return None
        lam = [max(float(x), 0.0) for x in res.x]
        short = max(float(self.weights[j]) / max(math.fsum(l * x for l, x in
                                                           zip(lam, self.demands[j])), 1e-300)
                    for j in types)
        return [x * max(short, 1.0) * (1 + 1e-9) for x in lam]

    def _capacity_grid(self) -> tuple[list[int], list[tuple[int, ...]], list[int]] | None:
        """Demands and capacities as integer multiples of one step per dimension, for the
        dynamic programme: (dimensions used, demands in steps, capacity in steps), or None
        when the grid or the rewards are too large for it.

        The step is the greatest common divisor of the dimension's demands read as the
        decimals they print as; the capacity counts the steps that fit in capacity +
        FIT_TOLERANCE, so a configuration fits the grid exactly when it fits the server.
        """
        dims = [d for d in range(len(self.capacity)) if any(x[d] > 0 for x in self.demands)]
        steps_of: list[list[int]] = [[] for _ in self.demands]
        caps: list[int] = []
        cells = 1
        for d in dims:
            fr = [Fraction(repr(x[d])) for x in self.demands]
            den = math.lcm(*(f.denominator for f in fr))
            step = Fraction(math.gcd(*(int(f * den) for f in fr)), den)
            cap = math.floor((Fraction(repr(self.capacity[d])) + Fraction(repr(FIT_TOLERANCE)))
                             / step)
            cells *= cap + 1
            if cells > GRID_TABLE_CELLS:
                return None
            caps.append(cap)
            for j, f in enumerate(fr):
                steps_of[j].append(int(f / step))
        top = sum(w * self._max_count(j, [c + FIT_TOLERANCE for c in self.capacity])
                  for j, w in enumerate(self.weights))
        if top >= 2**62:  # the programme adds rewards in int64
            return None
        return dims, [tuple(x) for x in steps_of], caps

    def _solve_grid(self, order: list[int]) -> Config | None:
        """MaxReward by dynamic programming over the capacity grid, or None when that would
        update more than GRID_CELLS_PER_GPA // J cells or keep more than GRID_TABLE_CELLS.

        tables[i][c] is the largest reward types order[i:] earn in c steps of capacity; the
        configuration is read back type by type, each taking the most slots that still reach
        the best reward, which is Definition 2's lexicographic tie-break.
        """
        if self._grid is None:
            return None
        _, dem, caps = self._grid
        shape = tuple(c + 1 for c in caps)
        cells = math.prod(shape)

        def most(j: int, room: Sequence[int]) -> int:
            return min((r // x for x, r in zip(dem[j], room) if x > 0), default=0)

        counts = [most(j, caps) for j in order]
        if (cells * sum(counts) > GRID_CELLS_PER_GPA // max(self.J, 1)
                or cells * (len(order) + 1) > GRID_TABLE_CELLS):
            return None
        self.grid_cells += cells * sum(counts)
        tables = [np.zeros(shape, dtype=np.int64)]
        for j, top in zip(reversed(order), reversed(counts)):
            after = tables[-1]
            best = after.copy()
            for n in range(1, top + 1):
                dst = tuple(slice(n * x, None) for x in dem[j])
                src = tuple(slice(0, size - n * x) for size, x in zip(shape, dem[j]))
                np.maximum(best[dst], after[src] + n * self.weights[j], out=best[dst])
            tables.append(best)
        tables.reverse()
        k = list(self.zero)
        room = list(caps)
        for i, j in enumerate(order):
            goal = tables[i][tuple(room)]
            for n in range(most(j, room), -1, -1):
                left = [r - n * x for r, x in zip(room, dem[j])]
                if n * self.weights[j] + tables[i + 1][tuple(left)] == goal:
                    k[j] = n
                    room = left
                    break
        return tuple(k)

    def _solve(self, mask: int) -> tuple[Config, bool]:
        """MaxReward(mask) and whether it is exact. By the dynamic programme where the
        capacity grid is small enough, else by depth-first branch and bound stopped after
        ``node_limit`` nodes.

        Types are branched in index order, counts from high to low, so leaves come in
        lexicographically decreasing order: the first leaf reaching the best reward is the
        Definition-2 winner, and later leaves only replace it when strictly better. Rewards
        are integers (``weights``), so a subtree whose bound is below best + 1 is pruned.
        A greedy configuration of reward v0 seeds the search with "better than v0 - 1": the
        winner is still the first leaf reaching the best reward, and the greedy one is what
        a search cut short falls back to. Bounds at depth i, over the types still to branch:
        λ·(capacity left) for the LP's prices scaled to those types, and per dimension the
        capacity left times the best reward density. Dominated types are left out.
        """
        dom = self._dominated_by
        order = [j for j in range(self.J) if mask >> j & 1 and not mask & dom[j]]
        exact = self._solve_grid(order)
        if exact is not None:
            return exact, True
        w, dem = self.weights, self.demands
        n_types = len(order)
        positive = [j for j in order if w[j] > 0]
        lam = self._dual_prices(positive)
        # None: no bound known at that depth (nothing is pruned there).
        prices: list[list[tuple[float, ...]] | None] = []
        for idx in range(n_types + 1):
            rest = [j for j in order[idx:] if w[j] > 0]
            cands: list[tuple[float, ...]] = []
            if rest and lam is not None:
                s = max(w[j] / max(math.fsum(p * x for p, x in zip(lam, dem[j])), 1e-300)
                        for j in rest)
                cands.append(tuple(p * s * (1 + 1e-9) for p in lam))
            for d in range(len(self.capacity)):
                if rest and all(dem[j][d] > 0 for j in rest):
                    v = [0.0] * len(self.capacity)
                    v[d] = max(w[j] / dem[j][d] for j in rest)
                    cands.append(tuple(v))
            prices.append(cands if cands or not rest else None)

        rem = [c + FIT_TOLERANCE for c in self.capacity]
        seed = list(self.zero)
        if lam is not None:
            density = {j: w[j] / max(math.fsum(p * x for p, x in zip(lam, dem[j])), 1e-300)
                       for j in positive}
            for j in sorted(positive, key=lambda j: (-density[j], j)):
                n = self._max_count(j, rem)
                seed[j] = n
                for d, x in enumerate(dem[j]):
                    rem[d] -= n * x
            rem = [c + FIT_TOLERANCE for c in self.capacity]
        v0 = sum(wj * n for wj, n in zip(w, seed))
        best_val: int | None = v0 - 1 if positive else None
        best = seed
        k = list(self.zero)
        nodes = 0
        limit = self.node_limit

        def dfs(idx: int, val: int) -> None:
            nonlocal best_val, best, nodes
            nodes += 1
            if nodes > limit:
                raise _SearchCut
            if idx == n_types:
                if best_val is None or val > best_val:
                    best_val, best = val, list(k)
                return
            if best_val is not None and prices[idx] is not None:
                ub = 0.0
                for i, p in enumerate(prices[idx]):
                    b = 0.0
                    for x, r in zip(p, rem):
                        if r > 0:
                            b += x * r
                    if i == 0 or b < ub:
                        ub = b
                if val + ub + 1e-9 * (abs(val) + ub) + 1e-9 < best_val + 1:
                    return
            j = order[idx]
            dj = dem[j]
            for n in range(self._max_count(j, rem), -1, -1):
                for d, x in enumerate(dj):
                    rem[d] -= n * x
                k[j] = n
                dfs(idx + 1, val + n * w[j])
                for d, x in enumerate(dj):
                    rem[d] += n * x
            k[j] = 0

        try:
            dfs(0, 0)
        except _SearchCut:
            return tuple(best), False
        finally:
            self.search_nodes += min(nodes, limit)
        return tuple(best), True

    # ---- enumeration (small instances, tests, describe) ---------------------------------

    def feasible(self) -> list[Config]:
        """Every feasible configuration K, largest first by Definition 2. Exponential in J."""
        out: list[Config] = []
        k = [0] * self.J
        rem = [c + FIT_TOLERANCE for c in self.capacity]

        def walk(j: int) -> None:
            if j == self.J:
                out.append(tuple(k))
                return
            for n in range(self._max_count(j, rem) + 1):
                for d, x in enumerate(self.demands[j]):
                    rem[d] -= n * x
                k[j] = n
                walk(j + 1)
                for d, x in enumerate(self.demands[j]):
                    rem[d] += n * x
            k[j] = 0

        walk(0)
        return sorted(out, key=self.order_key, reverse=True)

    def greedy_set(self) -> list[Config]:
        """K^(g) (Definition 6): MaxReward over every subset of types, largest first."""
        found = {self.max_reward_entry(m)[0] for m in range(1 << self.J)}
        found.add(self.zero)
        return sorted(found, key=self.order_key, reverse=True)
