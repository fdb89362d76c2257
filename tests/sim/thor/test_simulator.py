"""THOR evaluation on traces: the policies' scores, the CLI handlers and a quick reproduction."""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import pytest

from app.sim.thor import reproduce as reproduce_thor
from app.sim.thor.cli import add_reproduce_parser, add_simulate_parser
from app.sim.thor.simulator import POLICIES, evaluate, load_series


def cli(argv: list[str]) -> argparse.Namespace:
    root = argparse.ArgumentParser()
    sub = root.add_subparsers(dest="command", required=True)
    add_simulate_parser(sub.add_parser("simulate").add_subparsers(dest="experiment"))
    add_reproduce_parser(sub.add_parser("reproduce").add_subparsers(dest="paper"))
    return root.parse_args(argv)


def test_evaluate_scores_every_policy():
    series = 10 + np.sin(np.arange(500) / 20) + 0.1 * np.random.default_rng(0).random(500)
    out = evaluate(series, 0.1)
    assert set(out["policies"]) == set(POLICIES)
    oracle = out["policies"]["static_oracle"]
    assert oracle["violation_rate"] <= 0.1 and oracle["relative_cost"] == 1.0
    for s in out["policies"].values():
        assert s["cost"] == pytest.approx(s["mean_reservation"] * 500)
    assert abs(out["policies"]["thor"]["predicted_violation_rate"] - 0.1) < 0.02


def test_simulate_thor_json_on_a_trace(capsys):
    args = cli(["simulate", "thor", "--trace", "google2019", "--resource", "memory",
                "--epsilon", "10%", "--steps", "800", "--json"])
    assert args.func(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["periods"] == 800 and out["epsilon"] == 0.1
    assert set(out["policies"]) == set(POLICIES)
    for s in out["policies"].values():
        assert {"violation_rate", "mean_reservation", "cost"} <= set(s)


def test_simulate_thor_csv_and_params(tmp_path, capsys):
    path = tmp_path / "d.csv"
    path.write_text("t,load\n" + "".join(f"{t},{5 + (t % 10) / 10}\n" for t in range(300)))
    args = cli(["simulate", "thor", "--csv", str(path), "--column", "load", "--epsilon",
                "0.05", "--param", "thor.estimator.tail_factor=1.2", "--policies",
                "thor,static_oracle"])
    assert args.func(args) == 0
    text = capsys.readouterr().out
    assert "thor" in text and "static_oracle" in text and "ftl" not in text


@pytest.mark.parametrize("argv,message", [
    (["--epsilon", "0.1"], "give --trace"),
    (["--csv", "missing.csv", "--column", "x", "--epsilon", "0.1"], "No such file"),
    (["--trace", "google2019", "--resource", "cpu", "--epsilon", "0.1", "--param", "x=1"],
     "POLICY.KEY"),
])
def test_simulate_thor_errors(argv, message):
    args = cli(["simulate", "thor", *argv])
    with pytest.raises(SystemExit) as err:
        args.func(args)
    assert message in str(err.value)


def test_epsilon_is_checked_by_the_parser():
    with pytest.raises(SystemExit):
        cli(["simulate", "thor", "--trace", "google2019", "--resource", "cpu",
             "--epsilon", "0.7"])


def test_load_series_rejects_bad_csv(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("x\n1\n-2\n")
    with pytest.raises(ValueError):
        load_series(csv_path=path, column="x")
    with pytest.raises(ValueError):
        load_series(csv_path=path, column="y")


def test_quick_reproduction_runs_in_seconds(tmp_path):
    t0 = time.perf_counter()
    args = cli(["reproduce", "thor", "--out", str(tmp_path), "--quick"])
    assert args.func(args) == 0
    assert time.perf_counter() - t0 < 20
    doc = (tmp_path / "thor.md").read_text()
    assert "## Goals" in doc and "Google 2011" in doc
    for trace, resource in reproduce_thor.SERIES:
        assert f"### {trace} / {resource}" in doc
    assert (tmp_path / "thor" / "fig3.png").stat().st_size > 10_000
    assert (tmp_path / "thor" / "fig3_zoom.png").exists()
