"""A slow, literal DRA (paper §4) to check the incremental engine against, step by step.

Every rank is stored per server and recomputed from scratch on each call; the only
non-paper choice, which ℓ_e to reassign, follows the rule documented in
``app.policies.dra.cra`` (the paper allows any).
"""

from __future__ import annotations

from app.policies.dra.configurations import ConfigurationSpace
from app.policies.dra.gpa import gpa


def reference_cra(space: ConfigurationSpace, L: int, orders: dict, empty: set, y_hat: list):
    """CRA on ``orders`` (configuration -> servers, oldest first). Returns the new orders,
    rank per server, I* and the Reject Group."""
    J = space.J
    plan = gpa(space, y_hat, L)
    lists = {k: list(v) for k, v in orders.items()}
    rank = {s: J + 1 for s in range(L)}
    pos = {k: i for i, (k, _) in enumerate(plan, 1)}
    istar = J
    for i, (k, x_hat) in enumerate(plan, 1):
        servers = lists.setdefault(k, [])
        while len(servers) < x_hat:
            candidates = []
            for k2, others in lists.items():
                if k2 == k:
                    continue
                eligible = [s for s in others if s in empty and rank[s] == J + 1]
                if not eligible:
                    continue
                s = eligible[-1]  # the most recently assigned
                p = pos.get(k2, 0)
                group = 0 if p == 0 else (1 if p < i else 2)
                candidates.append(((group, -p, s), s, k2))
            if not candidates:
                istar = min(istar, i)
                break
            _, s, k2 = min(candidates)
            lists[k2].remove(s)
            servers.append(s)
        n = len(servers)
        for at, s in enumerate(servers):
            index = n - at  # index 1 = most recent
            if index > n - x_hat:  # "indexes greater than X − X̂"
                rank[s] = i
    lists = {k: v for k, v in lists.items() if v}
    rg = {v[-1] for v in lists.values() if rank[v[-1]] > istar}
    return lists, rank, istar, rg


def reference_rg_j(rg: set, rank: dict, counts: list, j: int):
    """RG_j: highest-rank Reject-Group server with a type-j job; ties to the smallest number."""
    holders = [s for s in rg if counts[s][j] > 0]
    return min(holders, key=lambda s: (-rank[s], s)) if holders else None
