"""RMS simulation, the ``simulate rms`` / ``reproduce rms`` handlers and the §III contrast."""

from __future__ import annotations

import argparse
import json

import pytest

from app.sim.rms.cli import add_reproduce_parser, add_simulate_parser
from app.sim.rms.simulator import (
    EC2_SERVER,
    EC2_TYPES,
    bf_instability_model,
    ec2_boundary_rates,
    maximal_configurations,
    run_policies,
    simulate,
)
from app.sim.rms.trends import slope


def test_simulation_accounts_for_every_job_and_is_deterministic():
    model, lam, mu = bf_instability_model()
    a = simulate(model, "rms_rf_ad", lam, mu, 30.0, 7)
    b = simulate(model, "rms_rf_ad", lam, mu, 30.0, 7)
    assert a.summary() == b.summary() and a.queue == b.queue
    assert a.final_queue == a.arrived - a.started
    assert a.finished <= a.started <= a.arrived
    assert a.internal_events > 0


def test_policies_see_the_same_jobs():
    res = run_policies("bf-instability", ["rms", "best_fit_queue", "first_fit_queue"], 20.0, 3)
    assert len({r.arrived for r in res.values()}) == 1


def test_maximal_configurations():
    assert sorted(maximal_configurations((10.0,), [(2.0,), (5.0,)])) == [(0, 2), (2, 1), (5, 0)]
    configs = maximal_configurations(EC2_SERVER, [d for _, d in EC2_TYPES])
    assert (0, 5, 0) in configs and len(configs) == 6
    assert ec2_boundary_rates(1) == pytest.approx([2 / 3, 11 / 3, 2 / 3])


def _parse(add, argv):
    p = argparse.ArgumentParser()
    add(p.add_subparsers())
    return p.parse_args(argv)


def test_simulate_handler_json(capsys):
    args = _parse(add_simulate_parser, ["rms", "--preset", "bf-instability", "--policies",
                                        "rms,rms_rf_ad,best_fit_queue", "--duration", "20",
                                        "--seed", "2", "--json"])
    assert args.func(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out["policies"]) == {"rms", "rms_rf_ad", "best_fit_queue"}
    for row in out["policies"].values():
        assert row["mean_queue"] >= 0 and isinstance(row["final_queue"], int)


def test_simulate_handler_rejects_unknown_policy():
    args = _parse(add_simulate_parser, ["rms", "--policies", "nope", "--duration", "5"])
    with pytest.raises(SystemExit):
        args.func(args)


def test_reproduce_quick(tmp_path, capsys):
    args = _parse(add_reproduce_parser, ["rms", "--out", str(tmp_path), "--quick"])
    assert args.func(args) == 0
    doc = (tmp_path / "rms.md").read_text()
    assert "Fig. 1b" in doc and "Fig. 2" in doc and "Fig. 3" in doc and "Fig. 4" in doc
    assert "RMS+JSQ (Algorithm 2)" in doc and "| rms_po2 |" in doc
    for png in ("fig1b_bf_instability.png", "fig2_clock_rate.png", "fig3_variants.png",
                "fig4_distributed.png"):
        assert (tmp_path / "rms" / png).stat().st_size > 1000


def test_fig1b_trends_best_fit_grows_rms_levels_off():
    """§III / Fig. 1b, reduced to T = 4,000 on seed 4 (not one of the reported seeds 1-3).
    Slope of the window means (10 windows of 400) from t = 1,200 on, after RMS's queue has
    filled up to its level (it takes ~1,000 time units from empty). Tolerances, from the long
    runs in docs/reproduction/rms/trends.md: Best-Fit with smallest-job-first grows linearly
    at about +500 jobs per 1,000 time units, so its slope must be >= +250; RMS has no trend
    but oscillates slowly (window means of 1,000 units between ~200 and ~1,200 over T =
    20,000), so |slope| <= 150 holds over 2,800 time units only away from its steepest
    swings: the seed is fixed, and a change to the engines' random streams may need another
    seed here, not another tolerance."""
    res = run_policies("bf-instability", ["best_fit_queue", "rms"], 4000.0, 4, sample_step=10.0)
    bf = slope(res["best_fit_queue"].queue, 10.0, 10, first=3)
    rms = slope(res["rms"].queue, 10.0, 10, first=3)
    msg = f"slopes per 1,000 time units: best-fit {bf:+.0f}, rms {rms:+.0f}"
    assert bf >= 250, msg
    assert abs(rms) <= 150, msg
