"""M of the RMS paper (§II): the most jobs, of all types together, one server can hold.

The paper's M bounds sum_j k_j over every feasible configuration k of a server (the proofs use
sum_j sum_l k_j^l < LM), and (4)'s weight floor eps/(8M) f(Q_max) is built on it. The most
jobs of a *single* type is not that: capacity (1, 1) with demands (0.6, 0.1) and (0.1, 0.6)
holds one job of either type alone but one of each together, M = 2.

``most_jobs`` finds the maximum by depth-first enumeration of configurations with a bound
that prunes branches that cannot beat the best found. When the search would visit more than
``node_limit`` configurations it stops and returns ``upper_bound`` for the whole server
instead. Any upper bound is safe for the paper's use: M only enters the proofs through
sum_j k_j <= M and the floor eps/(8M), so a larger M keeps every inequality and merely lowers
the floor (Theorem 1 holds for any eps in (0, 1), and eps/(8M') with M' >= M is eps'/(8M) for
an eps' = eps M / M' in (0, 1)).

A configuration fits when, per dimension, the summed demand is at most the capacity plus
``FIT_TOLERANCE``: the rule the schedulers use job by job (``selection.fits``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

from app.policies.model import FIT_TOLERANCE, ClusterModel

# A fraction of a second of search; beyond it the bound is used (a cluster's engine computes M
# whenever it is built or reloaded, once per declaration and process thanks to the cache).
NODE_LIMIT = 10_000


def alone(room: Sequence[float], demand: Sequence[float]) -> int:
    """The most copies of one job that fit in ``room`` (0 if none does)."""
    ratios = [(r + FIT_TOLERANCE) / d for r, d in zip(room, demand) if d > 0]
    return max(0, math.floor(min(ratios))) if ratios else 0


def upper_bound(room: Sequence[float], demands: Sequence[Sequence[float]]) -> int:
    """A number of jobs no configuration of ``demands`` in ``room`` exceeds: the smaller of
    (a) the sum over types of the most of that type alone (each k_j is at most that), and
    (b) for each dimension every type uses, its room over the smallest demand in it (every
    job takes at least that much of the dimension). Zero-demand types are left out (the API
    refuses them: a job must demand some resource)."""
    live = [d for d in demands if any(x > 0 for x in d)]
    best = sum(alone(room, d) for d in live)
    for k, r in enumerate(room):
        smallest = min((d[k] for d in live), default=0.0)
        if smallest > 0:
            best = min(best, math.floor((r + FIT_TOLERANCE) / smallest))
    return best


def most_jobs(capacity: Sequence[float], demands: Sequence[Sequence[float]],
              node_limit: int = NODE_LIMIT) -> tuple[int, bool]:
    """(max over feasible configurations of sum_j k_j, exact?). Not exact: the search hit
    ``node_limit`` and the value is ``upper_bound(capacity, demands)``, which is >= the max."""
    live = [tuple(d) for d in demands if any(x > 0 for x in d)]
    # Types that fit most often first: good configurations are found early, so more pruning.
    live.sort(key=lambda d: -alone(capacity, d))
    best = 0
    nodes = 0

    def search(i: int, room: list[float], count: int) -> bool:
        """Extend a configuration with types i.. ; False when the node budget ran out."""
        nonlocal best, nodes
        nodes += 1
        if nodes > node_limit:
            return False
        best = max(best, count)
        if i == len(live) or count + upper_bound(room, live[i:]) <= best:
            return True
        d = live[i]
        for n in range(alone(room, d), -1, -1):  # most copies first: a high best early
            if not search(i + 1, [r - n * x for r, x in zip(room, d)], count + n):
                return False
        return True

    if search(0, list(capacity), 0):
        return best, True
    return upper_bound(capacity, live), False


@lru_cache(maxsize=256)
def _most_jobs_cached(capacity: tuple[float, ...], demands: tuple[tuple[float, ...], ...]
                      ) -> int:
    return most_jobs(capacity, demands)[0]


def max_jobs_per_server(model: ClusterModel) -> int:
    """M: the most jobs of all types together that any server holds (at least 1)."""
    demands = tuple(tuple(t.demand) for t in model.job_types)
    return max([1, *(_most_jobs_cached(tuple(p.capacity), demands) for p in model.pools)])


def max_jobs_one_type(model: ClusterModel) -> int:
    """The one-type rule: the most jobs of *one* type any server holds. Wrong for
    the paper's M (too small when types share a server better than they fill it alone), and
    kept only so clusters created with it keep deciding as logged."""
    best = 1
    for pool in model.pools:
        for t in model.job_types:
            ratios = [c / d for c, d in zip(pool.capacity, t.demand) if d > 0]
            if ratios:
                best = max(best, int(min(ratios) + FIT_TOLERANCE))
    return best
