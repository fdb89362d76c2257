"""Server configurations for DRA (paper §2.2–2.4, Definitions 1–3 and 6).

A configuration k is a vector of slots per job type that fits one server: with additive
demands, sum_j k_j R_j <= capacity in every dimension (up to ``model.FIT_TOLERANCE``).

Rewards are compared *exactly*: each reward is read as the decimal it prints as
(``Fraction(repr(u))``) and all of them are scaled to integers, so that Definition 2's
"equal reward" is a real equality (0.1 + 0.2 ties with 0.3, as a user who typed those numbers
expects) and the ordering is a strict total order.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Iterable, Sequence

from app.policies.model import FIT_TOLERANCE

Config = tuple[int, ...]


# Largest exact reward weight; float(MAX_WEIGHT * 1e12) stays far below float's 1.8e308.
MAX_WEIGHT = 10**280


class ConfigurationSpace:
    """Feasible configurations of one server type for J job types, and MaxReward over subsets.

    ``max_reward`` is cached per subset of types (a bit mask): it does not depend on the
    workload, so GPA's J look-ups per call are dictionary hits after warm-up (Remark 1).
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
            k = self._solve(mask)
            entry = (k, tuple((j, n) for j, n in enumerate(k) if n > 0))
            self._max_reward[mask] = entry
        return entry

    def _solve(self, mask: int) -> Config:
        """Unbounded multi-dimensional knapsack by depth-first branch and bound.

        Types are branched in index order, counts from high to low, so leaves come in
        lexicographically decreasing order: the first leaf reaching the best reward is the
        Definition-2 winner, and later leaves only replace it when strictly better. Rewards
        are integers (``weights``), so a subtree whose bound is below best + 1 is pruned.
        """
        order = [j for j in range(self.J) if mask >> j & 1]
        w = self.weights
        best_val: int | None = None
        best: list[int] = list(self.zero)
        k = list(self.zero)
        rem = [c + FIT_TOLERANCE for c in self.capacity]
        n_types = len(order)

        def bound(idx: int) -> float:
            # LP bounds on what types order[idx:] can still add: per dimension, capacity left
            # times the best reward density; and the sum of each type alone.
            pos = [j for j in order[idx:] if w[j] > 0]
            if not pos:
                return 0.0
            ub = float(sum(w[j] * self._max_count(j, rem) for j in pos))
            for d, r in enumerate(rem):
                if all(self.demands[j][d] > 0 for j in pos):
                    ub = min(ub, max(r, 0.0) * max(w[j] / self.demands[j][d] for j in pos))
            return ub

        def dfs(idx: int, val: int) -> None:
            nonlocal best_val, best
            if idx == n_types:
                if best_val is None or val > best_val:
                    best_val, best = val, list(k)
                return
            if best_val is not None:
                ub = bound(idx)
                if val + ub + 1e-9 * (abs(val) + ub) + 1e-9 < best_val + 1:
                    return
            j = order[idx]
            dem = self.demands[j]
            for n in range(self._max_count(j, rem), -1, -1):
                for d, x in enumerate(dem):
                    rem[d] -= n * x
                k[j] = n
                dfs(idx + 1, val + n * w[j])
                for d, x in enumerate(dem):
                    rem[d] += n * x
            k[j] = 0

        dfs(0, 0)
        return tuple(best)

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
