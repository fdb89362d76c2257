"""Server choice shared by RMS's clock ticks and the greedy baselines.

- uniform: RMS's own sampling (§IV-A step 1): any server, fit checked afterwards;
- rf: Random-Fit, uniform over the servers the job fits in (RMS-RF, §VI);
- ff: First-Fit, lowest server number the job fits in;
- bf: Best-Fit, the fitting server with the highest score
      sum_d (demand[d]/cap[d]) * (used[d]/cap[d])   (RMS-BF, §VI),
  i.e. the paper's inner product of demand and occupancy, both scaled by the server's
  capacity so that dimensions with different units weigh alike (as app/policies/best_fit.py).
"""

from __future__ import annotations

import numpy as np

from app.policies.model import FIT_TOLERANCE, ClusterModel

# Best-fit scores are rounded so that ties go to the lowest server number, not to float noise.
_SCORE_DIGITS = 9


def fits(model: ClusterModel, used: list[float], s: int, j: int) -> bool:
    cap = model.capacity(s)
    demand = model.job_types[j].demand
    return all(u + d <= c + FIT_TOLERANCE for u, d, c in zip(used, demand, cap))


def fitting_servers(model: ClusterModel, used: list[list[float]], j: int) -> list[int]:
    return [s for s in range(model.num_servers) if fits(model, used[s], s, j)]


def bf_score(model: ClusterModel, used: list[float], s: int, j: int) -> float:
    cap = model.capacity(s)
    demand = model.job_types[j].demand
    return round(sum((d / c) * (u / c) for d, u, c in zip(demand, used, cap) if c > 0),
                 _SCORE_DIGITS)


def choose_server(rule: str, model: ClusterModel, used: list[list[float]], j: int,
                  rng: np.random.Generator,
                  arrays: tuple[np.ndarray, np.ndarray] | None = None) -> int | None:
    """A server for a type-j job under ``rule``, or None. Draws from ``rng`` only for
    'uniform' (always one draw) and 'rf' (one draw when some server fits).

    ``arrays`` = (used, capacities) as L x D arrays mirroring ``used``: with them the scans of
    ff/rf/bf run vectorised and pick exactly the server the scalar code would."""
    if rule == "uniform":
        s = int(rng.integers(model.num_servers))
        return s if fits(model, used[s], s, j) else None
    if rule not in ("ff", "rf", "bf"):
        raise ValueError(f"unknown server rule {rule!r}")
    if arrays is not None:
        return _choose_vectorised(rule, model, used, j, rng, *arrays)
    if rule == "ff":
        for s in range(model.num_servers):
            if fits(model, used[s], s, j):
                return s
        return None
    candidates = fitting_servers(model, used, j)
    if not candidates:
        return None
    if rule == "rf":
        return candidates[int(rng.integers(len(candidates)))]
    return _best_of(model, used, candidates, j)


def _best_of(model: ClusterModel, used: list[list[float]], candidates: list[int], j: int
             ) -> int:
    """Best-Fit among ``candidates`` (in server order): highest rounded score, lowest index."""
    best, best_score = candidates[0], bf_score(model, used[candidates[0]], candidates[0], j)
    for s in candidates[1:]:
        sc = bf_score(model, used[s], s, j)
        if sc > best_score:
            best, best_score = s, sc
    return best


def _choose_vectorised(rule: str, model: ClusterModel, used: list[list[float]], j: int,
                       rng: np.random.Generator, used_np: np.ndarray, caps: np.ndarray
                       ) -> int | None:
    demand = np.asarray(model.job_types[j].demand, dtype=float)
    # The same IEEE operations as ``fits``, elementwise: the same servers fit.
    candidates = np.flatnonzero(np.all(used_np + demand <= caps + FIT_TOLERANCE, axis=1))
    if candidates.size == 0:
        return None
    if rule == "ff":
        return int(candidates[0])
    if rule == "rf":
        return int(candidates[int(rng.integers(candidates.size))])
    # Best-Fit: numpy's sum may round differently from ``bf_score`` in the last bits, so it
    # only shortlists the servers within a margin of the top; the exact scalar rule decides.
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(caps > 0, (demand / caps) * (used_np / caps), 0.0)
    scores = terms[candidates].sum(axis=1)
    near = candidates[scores >= scores.max() - 1e-7]
    return _best_of(model, used, [int(s) for s in near], j)

