"""`headroom simulate dra`: a reduced run through the CLI, its JSON, options and the plot."""

from __future__ import annotations

import json

import pytest

from app.cli import main
from app.sim.dra.bounds import global_greedy, optimal
from app.sim.dra.presets import paper_worst_case
from app.sim.dra.cli import parse_policies

ARGS = ["simulate", "dra", "--preset", "paper-worst-case", "--alpha", "2.25", "--seed", "3",
        "--servers", "12", "--duration", "5", "--warmup", "1", "--json",
        "--policies", "dra,dra_p:dra,power_of_d,best_fit,first_fit",
        "--policy-param", "dra_p.preemption=true", "--policy-param", "power_of_d.d=2"]
TIMING = ("seconds", "events_per_second")


def _run(capsys, args=ARGS) -> dict:
    assert main(args) == 0
    return json.loads(capsys.readouterr().out)


def test_simulate_dra_json(capsys):
    out = _run(capsys)
    instance = paper_worst_case(2.25)
    assert out["greedy_reward_per_server"] == pytest.approx(global_greedy(instance))
    assert out["optimal_reward_per_server"] == pytest.approx(optimal(instance))
    assert list(out["policies"]) == ["dra", "dra_p", "power_of_d", "best_fit", "first_fit"]
    assert out["policies"]["dra_p"]["params"] == {"preemption": True}
    assert out["policies"]["power_of_d"]["params"] == {"d": 2}
    top = 8 * 80 + 640  # reward is 8 per vCPU + 1 per GB: no server earns more
    for p in out["policies"].values():
        assert 0 < p["reward_per_server"] <= top
        assert 0 < p["acceptance_rate"] <= 1
        assert p["ratio_to_optimal"] == pytest.approx(
            p["reward_per_server"] / out["optimal_reward_per_server"])
        assert p["migrations"] >= 0 and p["events"] > 0
        assert set(p["utilization"]) == {"cpu", "memory"}
    assert out["policies"]["dra"]["migrations"] > 0
    assert out["policies"]["first_fit"]["migrations"] == 0
    # Common random numbers: every policy saw the same arrivals.
    assert len({p["arrivals"] for p in out["policies"].values()}) == 1
    # Same seed, same output (wall-clock figures aside).
    again = _run(capsys)
    for p in (*out["policies"].values(), *again["policies"].values()):
        for k in TIMING:
            p.pop(k)
    assert again == out


def test_simulate_dra_plot_and_table(tmp_path, capsys):
    png = tmp_path / "reward.png"
    assert main(["simulate", "dra", "--servers", "5", "--duration", "2", "--no-progress",
                 "--policies", "dra,first_fit", "--plot", str(png)]) == 0
    text = capsys.readouterr().out
    assert "global greedy" in text and "first_fit" in text
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bad_options_are_reported(capsys):
    assert main(["simulate", "dra", "--duration", "2", "--warmup", "3", "--json"]) == 2
    assert "warmup" in capsys.readouterr().err
    assert main(["simulate", "dra", "--policies", "dra", "--policy-param",
                 "dra.nonsense=1", "--json"]) == 2
    assert "unknown dra parameters" in capsys.readouterr().err


def test_parse_policies():
    assert parse_policies("dra, x:dra", ["x.reservation.b=1", "x.migrations=false"]) == {
        "dra": ("dra", {}), "x": ("dra", {"reservation": {"b": 1}, "migrations": False})}
    for spec, params in (("nope", []), ("dra,dra", []), ("dra", ["other.b=1"]),
                         ("dra", ["dra=1"]), ("", [])):
        with pytest.raises(ValueError):
            parse_policies(spec, params)
