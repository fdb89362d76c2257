"""The declarations' checks at a test's scale: every declaration calibrated and run on fresh
seeds the calibration never saw, the verdicts computed from them, the doc block written."""

from __future__ import annotations

import json
from pathlib import Path

from app.policies.moments.priors import Prior
from app.sim.moments import declarations as dc

# 2 lives per candidate, 2 halvings, 0.05-year lives: the whole command in ~20 s.
TINY = ["--lives", "2", "--fresh", "2", "--years", "0.05", "--iterations", "2", "--workers", "1"]


def test_doubled_growth_prior_keeps_the_shape_and_doubles_lambdas_mean() -> None:
    table1, doubled = Prior(), Prior.from_dict(dc.doubled_growth_prior())
    assert doubled.lam[0] == table1.lam[0]
    assert doubled.lam[0] / doubled.lam[1] == 2 * table1.lam[0] / table1.lam[1]
    assert (doubled.mu, doubled.sig) == (table1.mu, table1.sig)


def test_every_declaration_is_calibrated_then_run_on_fresh_seeds(tmp_path: Path) -> None:
    doc = tmp_path / "moment.md"
    doc.write_text("# Title\n\nintro\n\n" + dc.BEGIN + "\nold\n" + dc.END + "\n\nthe rest\n")
    out, png = tmp_path / "declarations.json", tmp_path / "fresh.png"
    assert dc.main([*TINY, "--local-dask", "2", "--json", str(out), "--doc", str(doc),
                    "--plot", str(png)]) == 0
    res = json.loads(out.read_text())
    assert res["complete"] and res["recipe"]["lives"] == 2 and res["recipe"]["seed"] == 1000
    assert set(res["declarations"]) == {d.name for d in dc.DECLARATIONS}
    recipe_seeds = set(range(1000, 1000 + res["recipe"]["lives"]))
    for name, entry in res["declarations"].items():
        assert set(entry["kinds"]) == set(dc.KINDS), name
        for kind, cell in entry["kinds"].items():
            cal, fresh = cell["calibration"], cell["fresh"]
            # One candidate per halving (one more if none met τ), each on the recipe's lives,
            # then the held-out check's steps on as many held-out lives, from its own seeds.
            v = cal["validation"]
            steps = 0 if v is None else len(v["steps"])
            assert cal["lives"] == 2 * cal["candidates"] + 2 * steps and cal["candidates"] in (2, 3)
            assert steps <= res["recipe"]["step_downs"] + 1
            if v is not None:
                # Importance-sampled: the first seeds from 500,000 in the badness buckets.
                assert 500000 <= v["seeds"][0] <= v["seeds"][1] < dc.FRESH_SEED
                strata = v["importance_sampling"]
                assert sum(strata["runs"]) == 2 and len(strata["probs"]) == 4
                assert all(p > 0 for p, n in zip(strata["probs"], strata["runs"]) if n)
                assert v["search_threshold"] == v["steps"][0]["threshold"]
                assert [s["threshold"] for s in v["steps"]] == [
                    v["search_threshold"] * 0.5 ** k for k in range(steps)]
                assert cal["declarable"] == v["met"] == v["steps"][-1]["meets_sla"]
                assert cal["threshold"] == v["steps"][-1]["threshold"]
            assert cal["declarable"] == (cal["policy"] is not None)
            if cal["declarable"]:
                assert cal["policy"]["threshold"] == cal["threshold"]
                assert cal["policy"].get("population_prior") == entry["population_prior"]
            seeds = [life["seed"] for life in fresh["per_life"]]
            assert seeds == [dc.FRESH_SEED, dc.FRESH_SEED + 1] and not recipe_seeds & set(seeds)
            assert fresh["requests"] == sum(life["requests"] for life in fresh["per_life"])
            assert fresh["meets_sla"] == (fresh["failure_rate"] <= entry["sla"])
            lo, hi = fresh["jeffreys95"]
            assert lo <= fresh["failure_rate"] <= hi
            assert set(cell) == {"calibration", "fresh", "fresh_calibration_engine"}
    # The looser τ at the same capacity and seeds can only stop higher in the same search (the
    # held-out check may then step either down).
    for kind in dc.KINDS:
        cells = [res["declarations"][n]["kinds"][kind]["calibration"] for n in ("c", "c_strict")]
        searched = [c["threshold"] if c["validation"] is None else c["validation"]["search_threshold"]
                    for c in cells]
        assert searched[0] >= searched[1]
        two = res["checks"]["2"][kind]
        assert two["passes"] == (two["looser_threshold_higher"] and two["utilization_gain"]["mean"] > 0
                                 and two["admitted_gain"]["mean"] > 0)
    assert [row["declaration"] for row in res["checks"]["1"]] == ["a", "b", "c"]
    # The same calibration on a Dask cluster lands on the same threshold.
    three = res["checks"]["3"]
    assert three["same_threshold"] and three["dask"]["where"].startswith("Dask LocalCluster of 2")
    text = doc.read_text()
    assert text.startswith("# Title\n\nintro\n\n" + dc.BEGIN) and text.endswith(dc.END + "\n\nthe rest\n")
    assert "\nold\n" not in text and "**Not the service's recipe**" in text
    assert text.count("| (b) 5,000 cores, τ = 1e-05, λ's prior mean ×2 |") == 4  # two kinds, two engines
    assert png.stat().st_size > 10_000
    # --resume keeps every finished part at the same scale: nothing runs again.
    again = tmp_path / "again.json"
    again.write_text(out.read_text())
    assert dc.main([*TINY, "--resume", "--local-dask", "0", "--json", str(again), "--doc", str(doc),
                    "--plot", str(png)]) == 0
    resumed = json.loads(again.read_text())
    assert resumed["sessions"][-1]["ran"] == [] and len(resumed["sessions"]) == 2
    assert resumed["declarations"] == res["declarations"] and resumed["checks"] == res["checks"]
    assert "--resume" not in resumed["command"]


def test_reproduce_moment_keeps_both_generated_sections(tmp_path: Path) -> None:
    from app.sim.moments import paper_scale, reproduce

    doc = tmp_path / "moment.md"
    doc.write_text(f"# Title\n\n{paper_scale.BEGIN}\npaper\n{paper_scale.END}\n\n{dc.BEGIN}\nmine\n{dc.END}\n")
    reproduce.reproduce(tmp_path, quick=True)
    text = doc.read_text()
    assert f"{paper_scale.BEGIN}\npaper\n{paper_scale.END}" in text and f"{dc.BEGIN}\nmine\n{dc.END}" in text
    assert "Table 2" in text  # and the scaled-down report around them
