"""Start-time forecasts: exact where the future is determined, no forecast without a history,
the engine untouched, and on a recorded run the realised start falls inside the 80% interval
about 80% of the time."""

from __future__ import annotations

import numpy as np
import pytest

from app.policies.model import cluster_model
from app.policies.rms import make_scheduler
from app.policies.rms.forecast import forecast_start
from app.sim.rms.forecasts import run

ONE_SERVER = {"dimensions": ["cpu"],
              "server_pools": [{"name": "s", "count": 1, "capacity": {"cpu": 8}}],
              "job_types": [{"name": "small", "demand": {"cpu": 2}, "reward": 1},
                            {"name": "whole", "demand": {"cpu": 8}, "reward": 1}]}


def engine(kind: str = "first_fit_queue"):
    e = make_scheduler(kind, cluster_model(ONE_SERVER), {}, np.random.default_rng(0))
    e.kind = kind
    return e


def test_a_determined_future_is_forecast_exactly() -> None:
    e = engine()
    # Every finished job ran exactly 1.0: the history holds one lifetime.
    for i in range(4):
        e.arrive(f"w{i}", "whole", float(2 * i))
        e.depart(f"w{i}", float(2 * i) + 1.0)
    e.arrive("running", "whole", 10.0)
    e.arrive("waiting", "whole", 10.25)  # the server is full: it waits
    before = e.to_state()
    f = forecast_start(e, "waiting", seed=3, seconds=None)
    # The running job is 0.25 old of a sure 1.0: it ends at 11.0 and the waiting job starts
    # then; arrivals meanwhile find the server full and queue behind it.
    assert f["median"] == f["low"] == f["high"] == 11.0
    assert f["samples"] == f["started"] == 32 and f["finished_jobs"] == 4
    assert f["reason"] is None and f["horizon"] > 11.0
    assert e.to_state() == before  # the engine itself is not moved
    assert forecast_start(e, "waiting", seed=3, seconds=None) == f  # seeded


def test_the_futures_arrivals_never_take_a_real_jobs_id() -> None:
    e = engine()
    for i in range(3):
        e.arrive(f"~forecast-{i + 1}", "small", float(i))
        e.depart(f"~forecast-{i + 1}", float(i) + 0.5)
    for i in range(1, 5):
        e.arrive(f"forecast-{i}", "whole" if i > 1 else "small", 10.0 + i / 10)
    f = forecast_start(e, "forecast-4", seconds=None)
    assert f["reason"] is None and f["median"] is not None


def test_no_history_no_forecast_and_only_for_a_waiting_job() -> None:
    e = engine()
    e.arrive("a", "whole", 0.0)
    e.arrive("b", "whole", 0.5)
    f = forecast_start(e, "b", seconds=None)
    assert f["median"] is None and "no finished job" in f["reason"] and f["samples"] == 0
    assert "not waiting" in forecast_start(e, "a")["reason"]


def test_a_job_older_than_every_finished_one_runs_as_long_again() -> None:
    e = engine()
    e.arrive("w", "whole", 0.0)
    e.depart("w", 1.0)
    e.arrive("old", "whole", 2.0)
    e.arrive("waiting", "whole", 6.0)  # "old" has run 4.0 > every finished lifetime
    f = forecast_start(e, "waiting", seconds=None)
    assert f["median"] == f["low"] == f["high"] == 10.0


@pytest.mark.parametrize("kind", ["first_fit_queue", "rms"])
def test_the_80_percent_interval_holds_the_realised_start_about_80_percent_of_the_time(kind) -> None:
    # A recorded run whose true lifetimes are lognormal; the forecast only sees the engine.
    # Seeded and without the wall-clock cap: the same figures under any load.
    out = run(kind, jobs=2000, load=0.9, every=6, seed=2)
    assert out["checked"] >= 120 and out["no_forecast"] == 0
    low, high = out["coverage_ci95"]
    assert 0.6 <= out["coverage"] <= 0.92, out
    assert low <= out["coverage"] <= high
    assert abs(out["median_relative_error"]) < 0.5, out
