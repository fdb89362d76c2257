"""The learnt population prior inside the engine, driven by the §2.1 model (issue #14)."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from app.api.schemas.state import LearnerView
from app.policies.moments import MomentEngine
from app.policies.moments.declare import checked_cautious_start
from app.sim.moments.derive import service_engine, service_options
from app.sim.moments.simulator import simulate

CAPACITY, RATE, YEARS = 500, 0.1, 1.0  # four times the paper's load per core: evidence sooner


class Recorder:
    """Drives a real engine and records every call, so the same stream can be replayed."""

    def __init__(self, engine: MomentEngine) -> None:
        self.engine = engine
        self.calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self.engine, name)
        if name not in ("admit", "scale_out", "scale_in", "shutdown"):
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            self.calls.append((name, args, kwargs))
            return attr(*args, **kwargs)
        return call


def life(growth: float, learn: bool, seed: int) -> tuple[dict[str, Any], Recorder]:
    rec = Recorder(service_engine("first_moment", CAPACITY, 1e-3, 0.3 * CAPACITY,
                                  closed_loop=False, learn=learn))
    out = simulate("first_moment", CAPACITY, YEARS, RATE, 0, seed, engine=rec,  # type: ignore[arg-type]
                   growth=growth)
    return out, rec


def test_the_prior_stays_where_it_is_right_and_learns_a_wrong_scale_out_rate() -> None:
    # Right prior: no adoption, and decisions identical to the paper's engine.
    for seed in (0, 1):
        plain, _ = life(1.0, False, seed)
        learnt, rec = life(1.0, True, seed)
        assert rec.engine.learner is not None and rec.engine.learner.adoptions == []
        assert (learnt["admitted"], learnt["utilization"]) == (plain["admitted"], plain["utilization"])
    # Deployments scale out three times as often as Table 1 says: λ's mean is learnt within
    # weeks, near ×3, μ's is left alone (its evidence agrees with the prior), and the scale-
    # outs that failed with the wrong prior (6.3% of them on this seed) no longer fail.
    wrong, _ = life(3.0, False, 0)
    fixed, rec = life(3.0, True, 0)
    adoptions = rec.engine.learner.adoptions
    assert adoptions, "no prior learnt"
    factor = adoptions[-1]["mean_factor"]
    assert 2.0 < factor["lambda"] < 4.5 and factor["mu"] == 1.0 and factor["sigma"] == 1.0
    assert adoptions[0]["likelihood_ratio"]["lambda"] > 10.83
    assert wrong["scaleout_failure_rate"] > 1e-2 and fixed["scaleout_failure_rate"] <= 1e-3
    state = rec.engine.describe()["population_prior"]
    LearnerView.model_validate(state)  # /state's document names what an adoption shows
    assert state["learnt"] and state["prior"]["lambda"] == adoptions[-1]["prior"]["lambda"]
    # A threshold given without a ladder was calibrated for the declared growth only: the
    # learnt × 2-4.5 is beyond it, and /state says so (the operator's alert, metrics.py).
    assert rec.engine.describe()["growth_calibration"] == {
        "learnt_lambda_factor": factor["lambda"], "learnt_mu_factor": 1.0,
        "calibrated_lambda_factors": [1.0], "ratio": factor["lambda"], "beyond_calibration": True}
    right = life(1.0, True, 0)[1].engine.growth_calibration()
    assert right is not None and right["learnt_lambda_factor"] == 1.0
    assert not right["beyond_calibration"]
    assert life(1.0, False, 0)[1].engine.growth_calibration() is None  # nothing learnt


def test_a_restored_engine_learns_and_decides_as_the_original(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # A handful per admission, so that this small cluster also has a snapshot in which some
    # deployments are on the new prior and some wait (REPRIOR_PER_ADMIT is 64 otherwise).
    monkeypatch.setattr("app.policies.moments.engine.REPRIOR_PER_ADMIT", 3)
    _, rec = life(3.0, True, 0)
    calls = rec.calls
    # Replay the stream on a fresh engine up to just after the first adoption, while
    # deployments still wait to be moved to the new prior, and snapshot it there.
    eng = service_engine("first_moment", CAPACITY, 1e-3, 0.3 * CAPACITY, closed_loop=False,
                         learn=True)
    cut, state = None, None
    for i, (name, args, kwargs) in enumerate(calls):
        getattr(eng, name)(*args, **kwargs)
        if eng.learner.adoptions and eng._reprior:
            state = json.loads(json.dumps(eng.to_state()))
            # Cached moments computed under the old prior: the state says under which.
            if any(row["cached"] and len(row["cached"]) == 3 for row in state["deployments"]):
                cut = i + 1
                break
    assert cut is not None and state is not None, "no deployment ever waited for a new prior"
    restored = MomentEngine.from_state(state)
    for name, args, kwargs in calls[cut:]:
        assert getattr(restored, name)(*args, **kwargs) == getattr(eng, name)(*args, **kwargs)
    assert restored.to_state() == eng.to_state()
    assert restored.learner.adoptions == rec.engine.learner.adoptions


def test_a_dry_run_answers_as_the_arrival_itself_when_a_prior_is_due() -> None:
    _, rec = life(3.0, True, 0)
    eng = service_engine("first_moment", CAPACITY, 1e-3, 0.3 * CAPACITY, closed_loop=False,
                         learn=True)
    checked = 0
    for name, args, kwargs in rec.calls:
        if name == "admit" and eng.learner.due(args[2]) and len(eng.learner.evidence) >= 20:
            before = json.dumps(eng.to_state())
            dry = eng.admit(*args, **kwargs, dry_run=True)
            assert json.dumps(eng.to_state()) == before
            assert getattr(eng, name)(*args, **kwargs) == dry
            checked += 1
        else:
            getattr(eng, name)(*args, **kwargs)
    assert checked > 10


def test_the_controller_comparison_runs_every_cell_on_common_random_numbers() -> None:
    from app.sim.moments.closed_loop import compare

    res = compare("first_moment", 200, 1e-3, 60.0, runs=2, years=0.1, growth=2.0,
                  controllers=("paper", "service", "oracle"), seed=7)
    cells = res["cells"]
    # No oracle at growth 1 (the paper's engine is told the truth there already).
    assert set(cells) == {"growth=1 paper", "growth=1 service", "growth=2 paper",
                          "growth=2 service", "growth=2 oracle"}
    assert res["seeds"] == [7, 8] and all(len(c["final_thresholds"]) == 2 for c in cells.values())
    # Same arrivals in every cell: with nothing learnt yet (too few deployments in 0.1 years)
    # the service decides as the paper does, while the oracle's larger λ admits less.
    assert cells["growth=2 service"]["utilization"] == cells["growth=2 paper"]["utilization"]
    assert cells["growth=2 oracle"]["utilization"] < cells["growth=2 paper"]["utilization"]


def test_growth_one_alone_runs_each_seed_once() -> None:
    # A check at the right prior (--growth 1) once ran every seed twice into the same cell,
    # doubling the requests its Wilson bound was computed on.
    from app.sim.moments.closed_loop import compare

    res = compare("threshold", 100, 1e-3, 40.0, runs=3, years=0.05, growth=1.0,
                  controllers=("paper",), seed=3)
    assert list(res["cells"]) == ["growth=1 paper"]
    assert len(res["cells"]["growth=1 paper"]["final_thresholds"]) == 3


def test_skip_right_prior_runs_only_the_mis_specified_cells() -> None:
    from app.sim.moments.closed_loop import compare

    full = compare("threshold", 100, 1e-3, 40.0, runs=2, years=0.05, growth=2.0,
                   controllers=("paper", "service"), seed=5)
    only = compare("threshold", 100, 1e-3, 40.0, runs=2, years=0.05, growth=2.0,
                   controllers=("paper", "service"), seed=5, right_prior=False)
    assert set(only["cells"]) == {"growth=2 paper", "growth=2 service"}
    # The same seeds give the same cells with or without the right-prior ones beside them.
    for key, cell in only["cells"].items():
        assert cell == full["cells"][key]
    # With nothing else asked for, the right prior is still run (growth 1 is that cell).
    alone = compare("threshold", 100, 1e-3, 40.0, runs=1, years=0.05, growth=1.0,
                    controllers=("paper",), seed=5, right_prior=False)
    assert list(alone["cells"]) == ["growth=1 paper"]


def test_the_threshold_follows_the_ladder_step_of_each_learnt_prior_and_survives_a_restore() -> None:
    """With a ladder, every adoption moves the threshold to the step of the learnt λ factor
    (the largest calibrated factor at or below it), and nowhere else; a restored engine goes on
    exactly as the original."""
    from app.policies.moments.sla import GrowthLadder

    t1 = 0.3 * CAPACITY
    steps = [(1.0, t1), (2.0, 0.4 * CAPACITY), (4.0, 0.5 * CAPACITY)]

    def engine() -> MomentEngine:
        options, _ = service_options("first_moment", CAPACITY, 1e-3, t1, closed_loop=False,
                                     learn=True)
        return MomentEngine(replace(options, ladder=tuple(steps)))

    # The seed above: λ's mean is learnt between ×2 and ×4.5. The life is simulated with the
    # ladder (it decides differently), then its stream replayed step by step.
    rec = Recorder(engine())
    simulate("first_moment", CAPACITY, YEARS, RATE, 0, 0, engine=rec, growth=3.0)  # type: ignore[arg-type]
    eng = engine()
    seen, state, cut, answers = [], None, None, []
    for i, (name, args, kwargs) in enumerate(rec.calls):
        before = len(eng.learner.adoptions)
        answers.append(getattr(eng, name)(*args, **kwargs))
        if len(eng.learner.adoptions) > before:
            factor = eng.learner.adoptions[-1]["mean_factor"]["lambda"]
            seen.append((factor, eng.ladder.factor, eng.threshold))
            if state is None:
                state, cut = json.loads(json.dumps(eng.to_state())), i + 1
        else:  # between adoptions the threshold stays where the last one put it
            assert eng.threshold == eng.ladder.in_use()
    assert seen, "no prior learnt"
    prev = 1.0
    for factor, step, threshold in seen:  # up at the factor, down only below it ÷ 1.1
        assert step == max(k for k, _ in steps
                           if factor >= k or (k == prev and factor >= k / GrowthLadder.HYSTERESIS))
        assert threshold == dict(steps)[step]
        prev = step
    assert seen[-1][1] >= 2.0  # it climbed
    assert eng.describe()["growth_ladder"]["factor"] == seen[-1][1]
    # Calibrated up to × 4: the learnt factor is beyond it only past 4 × the hysteresis.
    growth = eng.growth_calibration()
    assert growth is not None and growth["calibrated_lambda_factors"] == [1.0, 2.0, 4.0]
    assert growth["learnt_lambda_factor"] == seen[-1][0]
    assert growth["learnt_mu_factor"] == eng.learner.adoptions[-1]["mean_factor"]["mu"]
    assert growth["ratio"] == max(seen[-1][0] / 4.0, 1.0 / growth["learnt_mu_factor"])
    assert growth["beyond_calibration"] == (growth["ratio"] > GrowthLadder.HYSTERESIS)
    restored = MomentEngine.from_state(state)
    assert restored.ladder is not None and restored.ladder.steps == steps
    for (name, args, kwargs), answer in zip(rec.calls[cut:], answers[cut:]):
        assert getattr(restored, name)(*args, **kwargs) == answer
    assert restored.to_state() == eng.to_state()


def test_without_a_threshold_every_cell_starts_from_the_table_and_the_oracle_from_its_ladder_step(
        monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """compare without --threshold: the cells start from the table's t, the service carries its
    by_growth ladder, and oracle_ladder (told λ × 2) runs at the ladder's × 2 step."""
    from app.policies.moments import sla
    from app.sim.moments.closed_loop import compare

    rows = {k: dict(v) for k, v in sla.CALIBRATED_GROWTH.items()}
    rows["threshold"] = {2.0: ((500, 0.01, 96, 1.0, 0.0),)}  # zeroth moment: nothing to learn
    monkeypatch.setattr(sla, "CALIBRATED_GROWTH", rows)
    res = compare("threshold", 500, 1e-4, None, runs=1, years=0.05, growth=2.0,
                  controllers=("paper", "oracle", "oracle_ladder"), seed=3, right_prior=False)
    table = sla.table_threshold("threshold", 500, 1e-4)[0]
    assert res["threshold"] == table and [s["threshold"] for s in res["ladder"]] == [5.0]
    finals = {k: c["final_thresholds"] for k, c in res["cells"].items()}
    assert finals == {"growth=2 paper": [table], "growth=2 oracle": [table],
                      "growth=2 oracle_ladder": [5.0]}


def test_a_cautious_start_believes_the_top_growth_until_its_deployments_tell() -> None:
    """A cautious start (MomentOptions.cautious_growth): from the first event the engine believes λ × 2 at the declared
    threshold. Deployments that grow as declared end it (slower: the declared prior, step 1);
    deployments that grow × 3 confirm faster growth (the learnt prior, × 2 kept as a floor
    under it, and the ladder climbs). Until either, the threshold is the declared one. A
    restored engine goes on as the original, the end included."""
    import pytest

    from app.policies.moments import errors

    t1, t2 = 0.3 * CAPACITY, 0.4 * CAPACITY
    steps = [(1.0, t1), (2.0, t2)]

    def engine(steps: list[tuple[float, float]], cautious: float = 1.0,
               learn: bool = True, threshold: float = t1) -> MomentEngine:
        options, _ = service_options("first_moment", CAPACITY, 1e-3, threshold,
                                     closed_loop=False, learn=learn)
        return MomentEngine(replace(options, ladder=tuple(steps), cautious_growth=cautious))

    # Nothing to start where nothing is learnt, or at factor 1; no factor below 1.
    assert engine(steps, 2.0, learn=False).learner is None
    assert engine(steps, 1.0).learner.cautious is None
    with pytest.raises(errors.MomentsError):
        engine(steps, 0.5)
    # A belief under which even a 1-core arrival into the empty cluster is refused would
    # admit nothing and never learn: refused, or (a default's) the engine starts as declared.
    tight, _ = service_options("first_moment", CAPACITY, 1e-3, 1.0, closed_loop=False,
                               learn=True)
    with pytest.raises(errors.MomentsError, match="1-core"):
        checked_cautious_start(replace(tight, cautious_growth=2.0), fallback=False)
    fallen = checked_cautious_start(replace(tight, cautious_growth=2.0), fallback=True)
    assert fallen.learner.cautious is None and fallen.learner.learnt is None
    declared = engine([]).population_prior
    ends = {}
    for growth in (1.0, 3.0):
        rec = Recorder(engine(steps, 2.0))
        assert rec.engine.learner.cautious == 2.0
        assert rec.engine.population_prior.lam == (declared.lam[0], declared.lam[1] / 2)
        simulate("first_moment", CAPACITY, 2 * YEARS, RATE, 0, 1, engine=rec,  # type: ignore[arg-type]
                 growth=growth)
        # Replayed call by call: the declared threshold and the held belief until the end;
        # restored from a state taken halfway there, the same answers and the same state.
        eng = engine(steps, 2.0)
        state, answers = None, []
        for i, (name, args, kwargs) in enumerate(rec.calls):
            answers.append(getattr(eng, name)(*args, **kwargs))
            if eng.learner.assumed:
                assert eng.threshold == t1 and eng.ladder.factor == 1.0
                # A held belief is an assumption, not evidence of growth beyond calibration.
                assert eng.learnt_lambda_factor() == 1.0
                assert eng.population_prior.lam[1] == declared.lam[1] / 2
                cut = i + 1
            else:  # ended, or a floor: never less demand than held until rejected for slower
                assert eng.learner.cautious is None or eng.population_prior.lam[1] <= declared.lam[1] / 2
        ended = [a for a in eng.learner.adoptions
                 if a.get("ended_cautious_start") or a.get("cautious_start")]
        assert len(ended) == 1 and not eng.learner.assumed
        ends[growth] = ended[0], eng
        cut //= 2
        replay = engine(steps, 2.0)
        for name, args, kwargs in rec.calls[:cut]:
            getattr(replay, name)(*args, **kwargs)
        state = json.loads(json.dumps(replay.to_state()))
        assert state["learner"]["cautious"] == 2.0
        restored = MomentEngine.from_state(state)
        for (name, args, kwargs), answer in zip(rec.calls[cut:], answers[cut:]):
            assert getattr(restored, name)(*args, **kwargs) == answer
        assert restored.to_state() == eng.to_state()
    slower, right = ends[1.0]
    assert slower["ended_cautious_start"] == "slower" and right.learner.cautious is None
    assert right.population_prior.lam == declared.lam and right.threshold == t1
    # Faster growth confirmed: × 2 stays as a floor (still cautious, no longer assumed) and
    # the ladder climbs to × 2's step.
    faster, grew = ends[3.0]
    assert faster["cautious_start"] == "faster" and faster["mean_factor"]["lambda"] >= 2.0
    assert grew.learner.cautious == 2.0 and grew.learner.confirmed_faster
    assert grew.describe()["population_prior"]["cautious_phase"] == "floor"
    assert grew.ladder.factor == 2.0 and grew.threshold == t2
    assert grew.learnt_lambda_factor() == grew.learner.adoptions[-1]["mean_factor"]["lambda"] >= 2.0


def test_the_comparison_runs_a_cautious_start_only_when_asked_and_refuses_one_that_admits_nothing(
        capsys) -> None:  # type: ignore[no-untyped-def]
    import pytest

    from app.sim.moments import closed_loop

    assert "service_cautious" in closed_loop.CONTROLLERS
    assert "service_cautious" not in closed_loop.DEFAULT_CONTROLLERS
    res = closed_loop.compare("first_moment", 200, 1e-3, 60.0, runs=1, years=0.05, growth=2.0,
                              controllers=("service", "service_cautious"), seed=7,
                              right_prior=False)
    assert set(res["cells"]) == {"growth=2 service", "growth=2 service_cautious"}
    # The second moment with λ × 2 at 2,000 cores refuses a 1-core arrival into the empty
    # cluster: refused before any life, as the service refuses the declaration.
    with pytest.raises(SystemExit):
        closed_loop.main(["--policy", "second_moment", "--capacity", "2000", "--sla", "1e-4",
                          "--runs", "1", "--years", "0.01", "--controllers", "paper,service_cautious"])
    assert "1-core" in capsys.readouterr().err
