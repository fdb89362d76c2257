"""MomentOptions: built in one place from a stored declaration (options.from_declaration),
with the value each option had before it existed for declarations that lack it; and the
calibrations (calibrations.py) each with what backs them."""

from __future__ import annotations

import dataclasses

import pytest

from app.policies.moments import MomentsError, calibrations
from app.policies.moments.engine import MomentEngine
from app.policies.moments.options import (
    TIGHTEST,
    LoopBounds,
    MomentOptions,
    default_threshold,
    from_declaration,
)
from app.policies.moments.priors import Prior

LADDER = {"source": "declared", "bounds": [0.001, 0.2],
          "by_growth": [{"lambda_factor": 2.0, "threshold": 0.15}]}


def test_a_declaration_from_before_every_option_gets_the_engine_it_had_then() -> None:
    old = from_declaration({"capacity_cores": 2000, "policy": {"kind": "second_moment"}})
    assert old == MomentOptions(2000, "second_moment", 0.112, marginal=True, loop=None,
                                learn=False, arrival_size_evidence=False, ladder=None,
                                overflow_sd=0.0, cautious_growth=1.0, population=Prior())
    first = from_declaration({"capacity_cores": 1000, "sla": 0.01,
                              "policy": {"kind": "first_moment", "closed_loop": True}})
    assert first.threshold == default_threshold("first_moment", 1000) == 14223 / 20
    # No derivation: the loop may tighten to TIGHTEST of the threshold, never loosen past it.
    assert first.loop == LoopBounds(0.01, first.threshold * TIGHTEST, first.threshold)
    # A closed loop without an SLA has nothing to aim at.
    assert from_declaration({"capacity_cores": 1000, "policy": {
        "kind": "first_moment", "closed_loop": True}}).loop is None


def test_every_stated_option_reaches_the_options() -> None:
    prior = {"lambda": [2.0, 4.0], "mu": [2.0, 20.0], "sigma": [1.0, 2.0]}
    spec = {"capacity_cores": 2000, "sla": 1e-3, "policy": {
        "kind": "second_moment", "threshold": 0.1, "marginal": False, "closed_loop": True,
        "learn_prior": True, "cautious_growth": 2.0, "arrival_size_evidence": True,
        "overflow_sd": 0.5, "population_prior": prior, "derivation": LADDER}}
    options = from_declaration(spec)
    assert options == MomentOptions(
        2000, "second_moment", 0.1, False, population=Prior.from_dict(prior),
        loop=LoopBounds(1e-3, 0.001, 0.2), learn=True, arrival_size_evidence=True,
        ladder=((1.0, 0.1), (2.0, 0.15)), overflow_sd=0.5, cautious_growth=2.0)
    # The ladder is a learning cluster's only; a null cautious_growth is none.
    spec["policy"].update(learn_prior=False, cautious_growth=None)
    options = from_declaration(spec)
    assert options.ladder is None and options.cautious_growth == 1.0 and not options.learns


def test_options_are_frozen_and_checked() -> None:
    options = MomentOptions(100)
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.threshold = 1.0  # type: ignore[misc]
    with pytest.raises(MomentsError):
        MomentOptions(100, "fourth_moment")
    with pytest.raises(MomentsError):
        MomentOptions(0)


def test_the_engine_builds_its_controllers_from_its_options() -> None:
    engine = MomentEngine(from_declaration({"capacity_cores": 2000, "sla": 1e-3, "policy": {
        "kind": "second_moment", "threshold": 0.1, "closed_loop": True, "learn_prior": True,
        "cautious_growth": 2.0, "derivation": LADDER}}))
    assert (engine.loop.sla, engine.loop.lo, engine.loop.hi) == (1e-3, 0.001, 0.2)
    assert engine.ladder.steps == [(1.0, 0.1), (2.0, 0.15)]
    assert engine.learner.cautious == 2.0
    # The zeroth-moment rule has no model for a learnt prior to correct.
    zeroth = MomentEngine(MomentOptions(100, "threshold", learn=True, cautious_growth=2.0))
    assert zeroth.learner is None


def _anchors():
    for kind, anchors in {**calibrations.CALIBRATED,
                          **{f"{k} sized": v for k, v in calibrations.CALIBRATED_SIZED.items()}
                          }.items():
        for a in anchors:
            yield kind, a
    for kind, steps in calibrations.CALIBRATED_GROWTH.items():
        for factor, anchors in steps.items():
            for a in anchors:
                yield f"{kind} × {factor}", a


@pytest.mark.parametrize(("kind", "anchor"), list(_anchors()),
                         ids=lambda x: x if isinstance(x, str) else str(x.capacity))
def test_every_anchor_says_what_backs_it(kind: str, anchor: calibrations.Anchor) -> None:
    assert anchor.runs >= 1 and anchor.lives
    assert anchor.confidence is None or 0 <= anchor.confidence <= 1
    if anchor.command != calibrations.UNRECORDED:
        assert anchor.command.startswith(("headroom ", "python -m app.sim.moments."))
        assert f"--capacity {anchor.capacity} " in anchor.command
        assert "--runs " in anchor.command


def test_every_measured_default_says_what_backs_it() -> None:
    for table in (calibrations.CAUTIOUS_BY_DEFAULT, calibrations.OVERFLOW_SD_BY_DEFAULT):
        for measured in table.values():
            assert measured.lives and measured.command.startswith("python -m app.sim.")
