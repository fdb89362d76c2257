"""Greedy Placement Algorithm (paper §3.1, Algorithm 1).

Reading notes:
- Line 7's ``argmin_j ceil(r_j / k_j[i])`` breaks ties by the smallest type index, the order
  Proposition 1 (item 2) uses, so the result is deterministic.
- ``r_j`` can be zero or negative: earlier configurations may have over-provisioned type j
  (they carry type-j slots while another type bounded their count). Such a type "has no more
  jobs left", so its ceiling is <= 0 and the paper's intent is zero servers: X̂ is clamped to
  max(0, min(ceil(r/k), N)). The type is still removed from J[i] as j*.
- If MaxReward(K^{J[i]}) is the empty configuration (no remaining type fits a server or has a
  positive reward), no configuration can serve the remaining types and GPA stops early.
"""

from __future__ import annotations

import math
from typing import Sequence

from app.policies.dra.configurations import Config, ConfigurationSpace


def gpa(space: ConfigurationSpace, y_hat: Sequence[float], servers: int,
        masks: list[int] | None = None) -> list[tuple[Config, int]]:
    """GPA(Ŷ) for ``servers`` servers: [(k[i], X̂_{k[i]}) for i = 1, 2, ...] in GPA order.
    ``masks``, if given, receives J[i] (the type subset k[i] was chosen from) per step."""
    r = list(y_hat)
    n_left = servers
    mask = space.full_mask
    ceil = math.ceil
    out: list[tuple[Config, int]] = []
    while mask:
        k, support = space.max_reward_entry(mask)
        if not support:
            break
        if masks is not None:
            masks.append(mask)
        best = None
        j_star = -1
        for j, kj in support:
            v = ceil(r[j] / kj)
            if best is None or v < best:
                best, j_star = v, j
        x = best if best < n_left else n_left
        if x < 0:
            x = 0
        if x:
            for j, kj in support:
                r[j] -= x * kj
            n_left -= x
        mask &= ~(1 << j_star)
        out.append((k, x))
    return out
