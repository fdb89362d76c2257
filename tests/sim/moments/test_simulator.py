"""Simulation of the moment paper's model, posterior learning, and the CLI handlers."""

from __future__ import annotations

import argparse
import json

import numpy as np
import pytest

from app.policies.moments import MomentEngine
from app.policies.moments.formulas import Grid
from app.policies.moments.options import MomentOptions
from app.sim.moments import cli as moments_cli
from app.sim.moments import reproduce
from app.sim.moments.calibrate import confidence
from app.sim.moments.simulator import simulate


def test_posteriors_concentrate_on_true_parameters() -> None:
    lam, mu, sig, nu = 5.0, 0.2, 2.0, 0.673
    rng = np.random.default_rng(3)
    eng = MomentEngine(MomentOptions(10**6, "threshold", threshold=1e9, grid=Grid((24.0,), 10)))
    eng.admit("x", 50, 0.0)
    cores, t = 50, 0.0
    rate_out = lam * mu**nu
    while t < 3000.0:
        total = rate_out + cores * mu
        t += rng.exponential(1.0 / total)
        if rng.random() < rate_out / total:
            size = 1 + int(rng.poisson(sig))
            eng.scale_out("x", size, t)
            cores += size
        else:
            eng.scale_in("x", 1, t)
            cores -= 1
    post = eng.deployment_view("x")["posterior"]
    assert abs(post["mu"]["mean"] - mu) / mu < 0.1
    assert abs(post["sigma"]["mean"] - sig) / sig < 0.1
    assert abs(post["lambda"]["mean"] - lam) / lam < 0.15
    # and the posterior is much tighter than the population prior
    assert post["mu"]["var"] < 1e-3


def test_simulate_is_deterministic_and_sane() -> None:
    a = simulate("first_moment", 400, 0.1, 0.02, 0, seed=5, steps=20)
    b = simulate("first_moment", 400, 0.1, 0.02, 0, seed=5, steps=20)
    assert a == b
    assert 0.0 <= a["utilization"] <= 1.0 and 0.0 <= a["scaleout_failure_rate"] <= 1.0
    assert a["admitted"] + a["rejected"] > 0 and abs(a["threshold"] - 14223 / 20000 * 400) < 1e-9


def test_zeroth_moment_never_exceeds_threshold_at_admission() -> None:
    r = simulate("threshold", 300, 0.2, 0.05, 0, seed=1, threshold=50.0)
    assert r["admitted"] > 0 and r["rejected"] > 0


def test_prior_observations_reach_the_engine() -> None:
    r0 = simulate("second_moment", 2000, 0.1, 0.1, 0, seed=2, threshold=0.3, steps=20)
    r50 = simulate("second_moment", 2000, 0.1, 0.1, 50, seed=2, threshold=0.3, steps=20)
    assert r50["admitted"] > r0["admitted"]  # known deployments have far smaller variance


def test_confidence_respects_sample_size() -> None:
    few = [{"scaleout_failure_rate": 0.0, "scaleout_requests": 100}] * 3
    many = [{"scaleout_failure_rate": 0.0, "scaleout_requests": 100_000}] * 3
    assert confidence(few, 1e-4) < 0.5 < 0.9 < confidence(many, 1e-4)


def test_no_scale_out_requested_states_no_confidence() -> None:
    """A candidate that admits nothing meets τ trivially: no evidence, so no confidence (it
    printed 0.00, which reads as "certainly fails")."""
    from app.sim.moments.importance import confidence_is, confidence_text

    idle = [{"scaleout_failure_rate": 0.0, "scaleout_requests": 0}] * 4
    assert confidence(idle, 1e-4) is None
    weighted = {"runs": idle, "bucket": [0, 0, 1, 1], "buckets": {"probs": [0.9, 0.1]}}
    assert confidence_is(weighted, 1e-4) is None
    assert confidence_text(None).startswith("n/a") and confidence_text(0.5) == "0.50"
    assert confidence_text(0.98765, 3) == "0.988"


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd")
    moments_cli.add_simulate_parser(sub.add_parser("simulate").add_subparsers())
    moments_cli.add_calibrate_parser(sub)
    moments_cli.add_reproduce_parser(sub.add_parser("reproduce").add_subparsers())
    return ap


def test_simulate_cli_json(capsys) -> None:  # type: ignore[no-untyped-def]
    args = _parser().parse_args(
        ["simulate", "moment", "--policies", "threshold,first_moment", "--capacity", "300", "--years", "0.05",
         "--arrival-rate", "0.02", "--steps", "10", "--json"])
    assert args.func(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert [r["policy"] for r in out["results"]] == ["threshold", "first_moment"]


def test_calibrate_cli(capsys) -> None:  # type: ignore[no-untyped-def]
    args = _parser().parse_args(
        ["calibrate", "moment", "--policy", "first_moment", "--sla", "0.01", "--capacity", "200", "--years", "0.05",
         "--arrival-rate", "0.02", "--runs", "2", "--iterations", "3", "--steps", "10", "--json"])
    assert args.func(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["search"]) == 3
    # By default the answer is checked on as many held-out lives as --runs (the service's
    # recipe), and the confidence stated is theirs; --held-out 0 states the search's own.
    v = out["validation"]
    assert v["lives"] == 2 and v["seeds"][0] >= 500000
    assert out["confidence"] == v["steps"][-1]["confidence"]
    bare = _parser().parse_args(
        ["calibrate", "moment", "--policy", "first_moment", "--sla", "0.01", "--capacity", "200", "--years", "0.05",
         "--arrival-rate", "0.02", "--runs", "2", "--iterations", "3", "--steps", "10", "--held-out", "0", "--json"])
    assert bare.func(bare) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["validation"] is None and 0.0 <= out["confidence"] <= 1.0


def test_reproduce_quick_writes_report(tmp_path) -> None:  # type: ignore[no-untyped-def]
    args = _parser().parse_args(["reproduce", "moment", "--quick", "--out", str(tmp_path)])
    assert args.func(args) == 0
    text = (tmp_path / "moment.md").read_text()
    assert "Table 2" in text and "Fig. 1" in text and "20,000" in text
    assert json.loads((tmp_path / reproduce.RAW).read_text())["config"]["capacity"] == 300
    assert f"Raw results: `{reproduce.RAW}`" in text  # the report names where its data went


def test_pseudo_observations_stay_within_what_the_engine_accepts() -> None:
    from app.policies.moments.priors import PSEUDO_MAX
    from app.sim.moments.simulator import pseudo_observations

    # The floor of draw_parameters: a core that practically never dies, 50 observations.
    obs = pseudo_observations(np.random.default_rng(0), 1e-12, 1e-12, 0.0, 50)["observations"]  # type: ignore[index]
    assert max(obs.values()) <= PSEUDO_MAX
    MomentEngine(MomentOptions(100, "second_moment")).admit("x", 1, 0.0, prior={"observations": obs})


def test_arrival_sizes_as_evidence_reach_the_engine_and_change_admission() -> None:
    """The same arrivals (same seed): an engine that counts each arrival's size as σ evidence
    expects small newcomers to grow less, so at one t it admits more of them."""
    plain = simulate("first_moment", 2000, 0.3, 0.1, 0, seed=2, threshold=150.0, steps=20)
    sized = simulate("first_moment", 2000, 0.3, 0.1, 0, seed=2, threshold=150.0, steps=20,
                     arrival_size_evidence=True)
    assert (plain["arrival_size_evidence"], sized["arrival_size_evidence"]) == (False, True)
    assert sized["admitted"] > plain["admitted"]
    eng = MomentEngine(MomentOptions(2000, "first_moment", 150.0, grid=Grid(steps=20)))
    with pytest.raises(ValueError, match="disagree"):
        simulate("first_moment", 2000, 0.01, 0.1, 0, seed=2, engine=eng, arrival_size_evidence=True)


def test_calibrate_cli_declares_arrival_size_evidence(capsys) -> None:  # type: ignore[no-untyped-def]
    args = _parser().parse_args(
        ["calibrate", "moment", "--policy", "first_moment", "--sla", "0.5", "--capacity", "200",
         "--years", "0.05", "--arrival-rate", "0.02", "--runs", "2", "--iterations", "2",
         "--steps", "10", "--arrival-size-evidence", "--json"])
    assert args.func(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["scale"]["arrival_size_evidence"] is True
    assert out["policy"]["arrival_size_evidence"] is True
    assert out["policy"]["derivation"]["scale"]["arrival_size_evidence"] is True


# λ's mean doubled: deployments that grow twice as fast as Table 1 says.
TWICE = {"lambda": [0.4907, 0.2248], "mu": [0.3107, 0.5778], "sigma": [0.2616, 0.0552]}


def test_a_population_prior_is_what_deployments_are_drawn_from_and_what_the_engine_believes() -> None:
    from app.policies.moments.priors import Prior
    from app.sim.moments.simulator import draw_parameters

    # Table 1 spelled out draws exactly what the default draws.
    a, b = np.random.default_rng(5), np.random.default_rng(5)
    assert [draw_parameters(a) for _ in range(50)] == [draw_parameters(b, Prior()) for _ in range(50)]
    lam = {name: np.mean([draw_parameters(np.random.default_rng(s), p)[0] for s in range(4000)])
           for name, p in (("table1", None), ("twice", Prior.from_dict(TWICE)))}
    assert lam["twice"] / lam["table1"] == pytest.approx(2.0, rel=0.1)
    # Same seed, everything admitted: the same deployments ask for about twice the scale-outs.
    runs = {name: simulate("threshold", 10**6, 0.5, 0.5, 0, seed=3, threshold=10**6, steps=10,
                           population_prior=p)
            for name, p in (("table1", None), ("twice", TWICE))}
    assert runs["twice"]["population_prior"] == TWICE
    assert runs["twice"]["scaleout_requests"] > 1.5 * runs["table1"]["scaleout_requests"]
    # The engine simulate builds starts from the prior too (its view of a fresh deployment).
    eng = MomentEngine(MomentOptions(2000, "first_moment", 100.0, grid=Grid(steps=10), population=Prior.from_dict(TWICE)))
    simulate("first_moment", 2000, 0.01, 0.1, 0, seed=2, steps=10, engine=eng, population_prior=TWICE)
    assert eng.population.to_dict() == TWICE


def test_calibrate_cli_declares_the_population_prior_it_was_calibrated_for(capsys) -> None:  # type: ignore[no-untyped-def]
    from app.api.schemas.moments import MomentClusterCreate
    from app.families.moments import declare

    args = _parser().parse_args(
        ["calibrate", "moment", "--policy", "first_moment", "--sla", "0.5", "--capacity", "200",
         "--years", "0.05", "--arrival-rate", "0.02", "--runs", "2", "--iterations", "2",
         "--steps", "10", "--population-prior", json.dumps(TWICE), "--json"])
    assert args.func(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["scale"]["population_prior"] == TWICE
    assert out["policy"]["population_prior"] == TWICE
    # What it prints is a declaration the service accepts for that capacity and SLA (the
    # 10-step grid aside: the service decides on 600, so patch the scale to check the rest).
    out["policy"]["derivation"]["scale"]["steps"] = 600
    made = declare(MomentClusterCreate(name="c", capacity_cores=200, sla=0.5,
                                       policy=out["policy"]))
    assert made["policy"]["population_prior"] == TWICE
    with pytest.raises(SystemExit, match="population-prior"):
        bad = _parser().parse_args(["calibrate", "moment", "--policy", "first_moment",
                                    "--population-prior", '{"lambda": [1, 2]}'])
        bad.func(bad)


def test_moving_outgrowing_deployments_takes_their_scale_outs_off_the_cluster() -> None:
    """simulate(move_outgrowing=True): an operator who moves each deployment /state lists as
    outgrowing. In a population where every deployment outgrows 300 cores on its own (λ 20,
    cores living 20 hours, σ 5: ~320 cores at equilibrium), the engine lists one once its
    scale-outs show it; kept, it fails its own scale-outs (6-9% here), moved, it cannot. The
    engine ends with none listed but a deployment that grew into half the cluster since the
    last arrival (the operator here acts after arrivals), and the cluster admits more (each
    departure frees room)."""
    for seed in range(3):
        runs = {}
        for move in (False, True):
            eng = MomentEngine(MomentOptions(300, "second_moment", 0.3, grid=Grid((720.0, 24.0), 60)))
            r = simulate("second_moment", 300, 0.1, 0.05, 0, seed, engine=eng,
                         move_outgrowing=move, parameters=(20.0, 0.05, 5.0))
            runs[move] = (r, eng.outgrowing())
        (kept, kept_view), (moved, moved_view) = runs[False], runs[True]
        assert kept["moved"] == 0 and kept_view["count"] >= 1
        assert moved["moved"] > 0
        assert all(row["cores"] >= 150 for row in moved_view["deployments"]), moved_view
        assert sum(moved["moved_by_reason"].values()) == moved["moved"]
        assert moved["admitted"] > kept["admitted"]
        assert moved["scaleout_failure_rate"] < kept["scaleout_failure_rate"] / 3


def test_following_migrate_answers_takes_the_deployment_off_at_its_next_scale_out() -> None:
    """simulate(follow_migrate=True): an orchestrator that moves a deployment when its own
    scale-out is answered "migrate" (engine.scale_out). The same population as above: it
    moves deployments too and fails fewer scale-outs than keeping them; every move followed
    a "migrate" answer, and each such answer moved its deployment."""
    for seed in range(3):
        runs = {}
        for follow in (False, True):
            eng = MomentEngine(MomentOptions(300, "second_moment", 0.3, grid=Grid((720.0, 24.0), 60)))
            answered = []
            scale_out = eng.scale_out

            def counted(deployment_id: str, cores: int, at: float, scale_out=scale_out, answered=answered):
                out = scale_out(deployment_id, cores, at)
                answered.append(out["migrate"] is not None)
                return out

            eng.scale_out = counted  # type: ignore[method-assign]
            r = simulate("second_moment", 300, 0.1, 0.05, 0, seed, engine=eng,
                         follow_migrate=follow, parameters=(20.0, 0.05, 5.0))
            runs[follow] = (r, eng, sum(answered))
        (kept, _, kept_told), (moved, _, told) = runs[False], runs[True]
        assert kept["moved"] == 0 and kept_told > 0
        assert moved["moved"] == told > 0  # each "migrate" answer moved its deployment once
        assert kept["moved_by_reason"] == {} and sum(moved["moved_by_reason"].values()) == told
        assert set(moved["moved_by_reason"]) <= {"outgrowing_cluster", "cluster_overflow"}
        assert moved["admitted"] > kept["admitted"]
        assert moved["scaleout_failure_rate"] < kept["scaleout_failure_rate"] / 3
