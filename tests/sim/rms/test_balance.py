"""The fixed-weight balance level of the Fig. 1b preset (docs/reproduction/rms.md quotes it)."""

from __future__ import annotations

import numpy as np
import pytest

from app.sim.rms.balance import balance_level, configurations, served

FIG1B = {"capacity": (10.0,), "demands": [(2.0,), (5.0,)], "lam": [20.8, 10.4],
         "mu": [1.0, 1.0], "servers": 10}


def test_configurations_of_one_fig1b_server():
    got = {tuple(int(x) for x in k) for k in configurations((10.0,), [(2.0,), (5.0,)])}
    assert got == {(a, b) for a in range(6) for b in range(3) if 2 * a + 5 * b <= 10}


def test_fig1b_balance_levels():
    # r_j = 20 over 10 servers: 2 per server (Algorithm 1's r_j / L, Algorithm 2's r_j^l).
    q = balance_level(**FIG1B, rate_per_server=[2.0, 2.0])
    assert sum(q) == pytest.approx(211.5, abs=0.1)  # Algorithm 1: total queue
    assert 10 * sum(q) == pytest.approx(2115, abs=1)  # Algorithm 2: L x the local level
    # At that level the frozen chain serves exactly the load; a tenth more queue serves more.
    confs = configurations((10.0,), [(2.0,), (5.0,)])
    at = served(np.log1p(q), confs, np.array([2.0, 2.0])) * 10
    assert at == pytest.approx([20.8, 10.4], rel=1e-6)
    above = served(np.log1p(np.array(q) * 1.1), confs, np.array([2.0, 2.0])) * 10
    assert (above - np.array([20.8, 10.4])).sum() > 0
