"""Per-server occupancy as fractions of capacity, computed from job counts.

Baselines that rank servers by how full they are (best-fit, power-of-d) need cpu and memory in
comparable units, so every dimension is divided by the server's capacity in it. A dimension
where a pool has zero capacity counts as 0 for that pool: nothing with a positive demand there
can be placed on it, so it carries no load.

The occupancy is recomputed from the integer job counts rather than read from
``PlacementEngine.used``: ``used`` is a running float sum whose last bits depend on the order of
past arrivals and departures, so a restored snapshot (which re-adds the jobs in one pass) could
rank two tied servers differently from the engine it was taken from. A sum over counts in a
fixed type order is a function of the counts alone. Callers still round what they compare so
that servers whose usage is mathematically equal, reached through different job mixes, tie.
"""

from __future__ import annotations

from app.policies.model import ClusterModel

# Digits kept in compared scores. Scores are O(number of dimensions); float noise from the
# sums is ~1e-15, far below 1e-12, while genuine differences between job mixes are far above.
SCORE_DIGITS = 12


def normalised_demands(model: ClusterModel) -> list[list[tuple[float, ...]]]:
    """``out[pool][j][d]``: type j's demand in dimension d as a fraction of the pool's capacity."""
    return [
        [tuple(x / c if c > 0 else 0.0 for x, c in zip(t.demand, pool.capacity))
         for t in model.job_types]
        for pool in model.pools
    ]


def occupancy(counts: list[int], norm: list[tuple[float, ...]]) -> list[float]:
    """Fraction of capacity used per dimension on a server with these per-type job ``counts``;
    ``norm`` is ``normalised_demands(model)[pool of that server]``."""
    occ = [0.0] * (len(norm[0]) if norm else 0)
    for j, n in enumerate(counts):
        if n:
            for d, x in enumerate(norm[j]):
                occ[d] += n * x
    return occ
