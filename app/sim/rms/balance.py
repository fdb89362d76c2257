"""The queue level at which RMS's *fixed-weight* configuration chain just serves the load.

With the weights frozen at w, a server's configuration is distributed as (9) / (14):
    phi(k) ∝ exp(sum_j w_j k_j) prod_j (rho_j)^{k_j} / k_j!,   rho_j = r_j^l / mu_j
(r_j^l = r_j / L per server for Algorithm 1's (9), the server's own clock for Algorithm 2).
Type j is then served at rate L mu_j E_phi[k_j]. With f = log(1+x) (b = 0, §VII) and no floor,
exp(w_j) = 1 + Q_j, so the *balance level* is the queue vector Q at which every type is served
exactly at its arrival rate. Below it the chain serves less than arrives and queues grow; above
it they shrink. It is a time-scale-separated estimate (the configuration chain is assumed to
settle faster than queues move), not a prediction of the mean queue. Algorithm 2 sees its
local queues Q_j^l ≈ Q_j / L (JSQ spreads them), so its total balance level is L times the
per-server level.
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy.optimize import minimize
from scipy.special import gammaln, logsumexp

from app.policies.model import FIT_TOLERANCE


def configurations(capacity: tuple[float, ...], demands: list[tuple[float, ...]]
                   ) -> np.ndarray:
    """Every feasible configuration k of one server (rows), for small instances."""
    most = [min((c + FIT_TOLERANCE) // d for c, d in zip(capacity, dem) if d > 0)
            for dem in demands]
    ks = [k for k in itertools.product(*(range(int(m) + 1) for m in most))
          if all(sum(n * dem[i] for n, dem in zip(k, demands)) <= c + FIT_TOLERANCE
                 for i, c in enumerate(capacity))]
    return np.array(ks, dtype=float)


def served(x: np.ndarray, confs: np.ndarray, rho: np.ndarray) -> np.ndarray:
    """E_phi[k] per type for weights x = w (log-domain, so large queues do not overflow)."""
    logw = confs @ (x + np.log(rho)) - gammaln(confs + 1).sum(axis=1)
    p = np.exp(logw - logsumexp(logw))
    return p @ confs


def balance_level(capacity: tuple[float, ...], demands: list[tuple[float, ...]],
                  lam: list[float], mu: list[float], servers: int,
                  rate_per_server: list[float]) -> list[float]:
    """Per-type queue Q_j (as seen by one server's weights) at which L mu_j E[k_j] = lam_j."""
    confs = configurations(capacity, demands)
    rho = np.asarray(rate_per_server) / np.asarray(mu)
    target = np.asarray(lam) / (servers * np.asarray(mu))
    best = None
    # The map from weights to E[k] is monotone but flat in places: several starts, keep the best.
    for start in itertools.product((0.0, 3.0, 6.0, 9.0), repeat=len(demands)):
        res = minimize(lambda x: float(((served(x, confs, rho) - target) ** 2).sum()),
                       np.array(start), method="Nelder-Mead",
                       options={"xatol": 1e-10, "fatol": 1e-16, "maxiter": 20_000})
        if best is None or res.fun < best.fun:
            best = res
    assert best is not None
    if best.fun > 1e-12:
        raise ValueError("no balance level: the load is outside what the configurations serve")
    return [float(np.expm1(x)) for x in best.x]
