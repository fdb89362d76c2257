"""DRA's migration controls in the simulator: the budget holds over simulated time, the JSON
reports migrations per departure, and the mix-change workload switches at its instant."""

from __future__ import annotations

import json

import numpy as np
import pytest

from app.cli import main
from app.sim.dra.presets import paper_worst_case
from app.sim.dra.simulator import run_policy
from app.sim.dra.workload import MixChange, PoissonWorkload

INST = paper_worst_case(2.3)


def test_budget_caps_migrations_over_simulated_time():
    L, T = 20, 6.0
    free = run_policy("dra", {}, INST, L, 5, T, 0.0)
    rate = 0.1  # per server per time unit: at most burst (2) + 0.1 * 20 * 6 = 14 in the run
    capped = run_policy("dra", {"migration_budget": {"rate": rate, "per": "server",
                                                     "clock": "client"}}, INST, L, 5, T, 0.0)
    assert free.migrations > 2 * (2 + rate * L * T)  # unbudgeted DRA migrates far more
    assert 0 < capped.migrations <= 2 + rate * L * T
    d = capped.to_dict()
    assert d["migrations_per_departure"] == capped.migrations / capped.departures


def test_no_migration_modes_never_migrate():
    for mode in ("off_no_drain", "off_drain"):
        res = run_policy("dra", {"migrations": mode}, INST, 20, 5, 4.0, 1.0)
        assert res.migrations == 0 and res.to_dict()["migrations_per_departure"] == 0
        assert res.reward_per_server > 0


def test_cli_json_has_migrations_per_departure(capsys):
    args = ["simulate", "dra", "--preset", "paper-worst-case", "--alpha", "2.3", "--seed", "3",
            "--servers", "12", "--duration", "4", "--warmup", "1", "--json", "--no-progress",
            "--policies", "dra,dra_b:dra", "--policy-param",
            'dra_b.migration_budget={"rate": 0.1, "per": "server", "clock": "client"}']
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)["policies"]
    for p in out.values():
        assert p["migrations_per_departure"] == pytest.approx(p["migrations"] / p["departures"])
    assert out["dra_b"]["migrations"] < out["dra"]["migrations"]


def test_mix_change_switches_at_its_instant():
    a = PoissonWorkload([5.0, 0.0], 1.0, np.random.default_rng(1))
    b = PoissonWorkload([0.0, 5.0], 1.0, np.random.default_rng(2))
    times, types = [], []
    for t, j, _ in MixChange(a, b, 3.0).blocks():
        times += t
        types += j
        if times[-1] > 6:
            break
    assert times == sorted(times)
    assert all(j == 0 for t, j in zip(times, types) if t < 3.0)
    assert all(j == 1 for t, j in zip(times, types) if t >= 3.0)
    assert any(t < 3 for t in times) and any(t > 3 for t in times)
