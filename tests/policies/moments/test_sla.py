"""The threshold a declared SLA implies (table, declared, calibrated) and the closed loop."""

from __future__ import annotations

import copy
import itertools
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.policies.moments import MomentsError
from app.policies.moments.family import MomentAdapter
from app.policies.moments.options import TIGHTEST, ladder_steps
from app.policies.moments.sla import (
    CALIBRATED,
    CALIBRATED_SIZED,
    SlaLoop,
    declared_threshold,
    table_threshold,
    wilson,
)


def test_wilson_interval_known_values() -> None:
    lo, hi = wilson(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    lo, hi = wilson(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)
    # Exactly 0 (and 1) at the ends, whatever the rounding of centre − half (it gave 1.1e-22
    # for 0 of 2,145,815, which a plot's error bar then refused as negative).
    assert wilson(0, 2_145_815)[0] == 0.0 and wilson(7, 7)[1] == 1.0
    assert all(wilson(0, n)[0] == 0.0 for n in range(1, 5000, 7))


def test_loop_waits_for_a_window_of_one_over_tau_then_tightens_on_failures() -> None:
    loop = SlaLoop(sla=0.01, lo=1.0, hi=100.0)
    t = 100.0
    for _ in range(20):  # a burst of denials: far above τ, but only 20 requests
        t = loop.observe(False, t)
    assert t == 100.0 and loop.tightened == 0
    for _ in range(80):
        t = loop.observe(True, t)
    # 20 of 100 failed: the Wilson lower bound (0.13) is far above 1%: the strongest step.
    assert t == pytest.approx(50.0) and loop.tightened == 1 and loop.window_requests == 0
    loop = SlaLoop(sla=0.01, lo=1.0, hi=100.0)
    t = 100.0
    for k in range(2000):  # a steady 2%: the evidence crosses τ barely, the mildest step
        t = loop.observe(k % 50 != 0, t)
    assert loop.tightened >= 3 and t == pytest.approx(100.0 * 0.9**loop.tightened)


def test_loop_loosens_only_after_a_long_clean_window_and_never_past_its_bounds() -> None:
    loop = SlaLoop(sla=0.05, lo=1.0, hi=12.0)
    t = 10.0
    for _ in range(19):
        t = loop.observe(True, t)
    assert t == 10.0  # 0 of 19: upper bound 0.17 is not below τ/2
    for _ in range(400):
        t = loop.observe(True, t)
    assert t == 12.0 and loop.loosened >= 1  # capped at the loosest bound
    for _ in range(2000):
        t = loop.observe(False, t)
    assert t == 1.0  # and never below the tightest


def test_table_threshold_at_an_anchor_between_anchors_and_beyond() -> None:
    cap, frac = CALIBRATED["threshold"][1][:2]
    t, d = table_threshold("threshold", cap, 1e-4)
    assert t == pytest.approx(frac * cap) and d["bounds"] == [t * TIGHTEST, t]
    assert d["source"] == "table" and d["runs"] >= 1 and d["confidence"] is not None
    # Between two anchors: the tighter share of the capacity, loosening up to the looser.
    tables = [(kind, anchors, False) for kind, anchors in CALIBRATED.items()]
    tables += [(kind, anchors, True) for kind, anchors in CALIBRATED_SIZED.items() if anchors]
    for kind, anchors, sized in tables:
        for below, above in itertools.pairwise(anchors):
            mid = (below[0] + above[0]) // 2
            t, d = table_threshold(kind, mid, 1e-4, sized)
            values = sorted(a[1] if kind == "second_moment" else a[1] * mid for a in (below, above))
            assert t == pytest.approx(values[0]) and d["bounds"][1] == pytest.approx(values[1])
            assert [a["capacity"] for a in d["anchors"]] == [below[0], above[0]]
    # A stricter SLA than the table's has no calibration behind it.
    assert table_threshold("threshold", cap, 1e-5)[1]["confidence"] is None
    for kind in CALIBRATED:
        for capacity in (100, 500, 2000, 100_000):
            for sized in (False, True):
                sized_caps = [a[0] for a in CALIBRATED_SIZED.get(kind, ((0,),))]
                if sized and (not sized_caps or capacity < sized_caps[0]):
                    continue  # refused: the next test
                t, d = table_threshold(kind, capacity, 1e-4, sized)
                assert 0 < d["bounds"][0] <= t <= d["bounds"][1]


def test_counting_arrival_sizes_has_anchors_of_its_own() -> None:
    """The same t or ρ admits differently when arrivals' sizes are σ evidence, so neither
    the table nor a calibration's derivation carries over between the two engines."""
    assert set(CALIBRATED_SIZED) == {"first_moment", "second_moment"}
    first = CALIBRATED_SIZED["first_moment"]
    for cap, value, *_ in first:
        sized = table_threshold("first_moment", cap, 1e-4, True)
        assert [a["capacity"] for a in sized[1]["anchors"]] == [cap]
        assert sized[0] == pytest.approx(value * cap) != table_threshold("first_moment", cap, 1e-4)[0]
    # Where the option has no anchor at or below the capacity it has no threshold to offer (a
    # wild small newcomer read as tame broke every ρ tried), where the plain engine has one.
    with pytest.raises(ValueError, match=f"below {first[0][0]} cores"):
        table_threshold("first_moment", first[0][0] - 1, 1e-4, True)
    assert CALIBRATED_SIZED["second_moment"] == ()
    for capacity in (500, 2000, 100_000):
        with pytest.raises(ValueError, match="no calibrated second_moment threshold"):
            table_threshold("second_moment", capacity, 1e-4, True)
        assert table_threshold("second_moment", capacity, 1e-4)[0] > 0
    # The zeroth-moment rule has no belief: the option changes nothing, nor its threshold.
    assert table_threshold("threshold", 2000, 1e-4, True) == table_threshold("threshold", 2000, 1e-4)
    calibrated = {"source": "calibration", "bounds": [1.0, 10.0],
                  "scale": {"capacity": 1000, "arrival_size_evidence": True}}
    assert declared_threshold("first_moment", 1000, 1e-4, 10.0, calibrated, True)[0] == 10.0
    with pytest.raises(ValueError, match="calibrated with arrival_size_evidence"):
        declared_threshold("first_moment", 1000, 1e-4, 10.0, calibrated, False)
    calibrated["scale"] = {"capacity": 1000}
    with pytest.raises(ValueError, match="calibrated without arrival_size_evidence"):
        declared_threshold("first_moment", 1000, 1e-4, 10.0, calibrated, True)
    # An expert's threshold without a derivation states no scale: it stands either way.
    assert declared_threshold("first_moment", 1000, 1e-4, 10.0, None, True)[0] == 10.0


@pytest.mark.parametrize("derivation, message", [
    ({"source": "declared", "bounds": [1.0, 5.0]}, "outside"),
    ({"source": "calibration", "bounds": [1.0, 10.0], "sla": 1e-3}, "sla 0.001"),
    ({"source": "calibration", "bounds": [1.0, 10.0], "scale": {"capacity": 99}}, "99 cores"),
    ({"source": "calibration", "bounds": [1.0, 10.0], "scale": {"steps": 60}}, "60 steps"),
])
def test_declared_threshold_must_agree_with_its_derivation(derivation, message) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=message):
        declared_threshold("threshold", 1000, 1e-4, 10.0, derivation)
    with pytest.raises(ValueError, match="needs the policy.threshold"):
        declared_threshold("threshold", 1000, 1e-4, None, derivation)
    t, d = declared_threshold("threshold", 1000, 1e-4, 10.0, None)
    assert t == 10.0 and d == {"source": "declared", "bounds": [10.0 * TIGHTEST, 10.0]}


def spec(policy: str, closed_loop: bool = True) -> dict:  # type: ignore[type-arg]
    thr = {"threshold": 12.0, "first_moment": 12.0, "second_moment": 0.3}[policy]
    return {"name": "m", "capacity_cores": 30, "sla": 0.05,
            "policy": {"kind": policy, "threshold": thr, "marginal": True,
                       "closed_loop": closed_loop,
                       "derivation": {"source": "declared", "bounds": [thr / 10, thr * 2]}}}


events = st.lists(st.tuples(st.sampled_from(["admit", "out", "out", "out", "in"]),
                            st.integers(0, 5), st.integers(1, 6), st.floats(0, 3)),
                  max_size=60)


def play(family: MomentAdapter, script: list) -> list:  # type: ignore[type-arg]
    out = []
    for kind, i, c, now in script:
        event = {"deployment": {"kind": "deployment", "deployment_id": f"d{i}", "cores": c,
                                "at": now},
                 "out": {"kind": "scale_out", "deployment_id": f"d{i}", "cores": c, "at": now},
                 "in": {"kind": "scale_in", "deployment_id": f"d{i}", "cores": 1, "at": now},
                 }["deployment" if kind == "admit" else kind]
        try:
            out.append(family.apply(event).to_dict())
        except MomentsError as exc:
            out.append(("err", exc.field))
        out.append(family.engine.threshold)
    return out


@settings(max_examples=30, deadline=None)
@given(events, st.sampled_from(["threshold", "first_moment", "second_moment"]))
def test_closed_loop_state_survives_a_rebuild(evts, policy) -> None:  # type: ignore[no-untyped-def]
    """A cluster rebuilt from its snapshot makes the same decisions and loop moves as one
    that never stopped (the loop's window and counters are part of the engine's state)."""
    s = spec(policy)
    fam = MomentAdapter.build(s)
    t, log = 0.0, []
    for kind, i, c, dt in evts:
        t += dt
        log.append((kind, i, c, t))
    half = len(log) // 2
    play(fam, log[:half])
    restored = MomentAdapter.from_state(s, json.loads(json.dumps(fam.to_state())))
    twin = copy.deepcopy(fam)
    assert play(restored, log[half:]) == play(twin, log[half:])
    assert json.dumps(restored.to_state()) == json.dumps(twin.to_state())
    assert restored.describe()["closed_loop"] == twin.describe()["closed_loop"]


def test_loop_is_off_for_declarations_from_before_it_and_when_asked() -> None:
    old = spec("threshold")
    del old["policy"]["closed_loop"]
    assert MomentAdapter.build(old).engine.loop is None
    assert MomentAdapter.build(spec("threshold", closed_loop=False)).engine.loop is None
    fam = MomentAdapter.build(spec("threshold"))
    assert fam.engine.loop is not None and fam.engine.loop.hi == 24.0
    assert fam.describe()["threshold_derivation"]["source"] == "declared"


def test_prior_learning_is_off_for_declarations_from_before_it() -> None:
    old = spec("second_moment")
    assert MomentAdapter.build(old).engine.learner is None  # no key: the paper's fixed prior
    new = spec("second_moment")
    new["policy"]["learn_prior"] = True
    assert MomentAdapter.build(new).engine.learner is not None
    zeroth = spec("threshold")
    zeroth["policy"]["learn_prior"] = True
    assert MomentAdapter.build(zeroth).engine.learner is None


def test_a_stored_cautious_start_builds_as_declared_without_the_creation_probe() -> None:
    """The empty-cluster probe runs when a cluster is declared (422 there); a stored
    declaration builds the same way whatever a later release's probe would say, even one
    whose probe refuses (here a ρ so tight that no 1-core arrival is admitted)."""
    import pytest

    from app.policies.moments.errors import MomentsError
    from app.sim.moments.derive import service_engine

    stored = spec("second_moment")
    stored["policy"].update(learn_prior=True, cautious_growth=2.0, threshold=1e-9,
                            derivation={"source": "declared", "bounds": [1e-10, 1e-9]})
    fam = MomentAdapter.build(stored)
    assert fam.engine.learner.cautious == 2.0
    assert fam.describe()["population_prior"]["cautious_lambda_factor"] == 2.0
    with pytest.raises(MomentsError, match="1-core"):
        service_engine("second_moment", 30, 0.05, 1e-9, cautious_growth=2.0)
    old = spec("second_moment")  # from before the option: no key, no cautious start
    old["policy"]["learn_prior"] = True
    assert MomentAdapter.build(old).engine.learner.cautious is None


def test_arrival_sizes_count_only_where_declared() -> None:
    assert MomentAdapter.build(spec("first_moment")).engine.arrival_size_evidence is False
    sized = spec("first_moment")
    sized["policy"]["arrival_size_evidence"] = True
    fam = MomentAdapter.build(sized)
    assert fam.engine.arrival_size_evidence is True
    assert fam.describe()["arrival_size_evidence"] is True


def test_denials_tighten_a_live_cluster_and_the_decision_shows_the_new_threshold() -> None:
    fam = MomentAdapter.build(spec("threshold"))
    fam.apply({"kind": "deployment", "deployment_id": "a", "cores": 10, "at": 0.0})
    fam.apply({"kind": "deployment", "deployment_id": "b", "cores": 1, "at": 0.0})
    fam.apply({"kind": "scale_out", "deployment_id": "a", "cores": 19, "at": 1.0})  # full
    for k in range(20):  # 1/τ = 20 denied requests
        out = fam.apply({"kind": "scale_out", "deployment_id": "b", "cores": 5, "at": 2.0 + k})
        assert out.to_dict()["decision"] == "denied"
    assert fam.engine.threshold == pytest.approx(12.0 * 0.5)
    assert fam.describe()["closed_loop"]["tightened"] == 1


def test_a_growth_ladder_climbs_at_the_factor_and_comes_down_below_it_with_hysteresis() -> None:
    from app.policies.moments.sla import GrowthLadder

    rising = [(1.0, 0.05), (2.0, 0.15), (4.0, 0.3)]
    ladder = GrowthLadder(list(rising))
    assert ladder.in_use() == 0.05
    assert [ladder.target(f, 1.0) for f in (1.0, 1.5, 1.99, 2.0, 3.99, 4.0, 50.0)] == [
        (1.0, 0.05), (1.0, 0.05), (1.0, 0.05), (2.0, 0.15), (2.0, 0.15), (4.0, 0.3), (4.0, 0.3)]
    ladder.factor = 4.0
    assert ladder.target(3.7, 1.0) == (4.0, 0.3)  # within ÷1.1 of its step: stays
    assert ladder.target(3.6, 1.0) == (2.0, 0.15)
    # No step was calibrated for longer-lived cores: with μ learnt too it never loosens past
    # the declared threshold, and with only μ learnt it is the declared one.
    assert ladder.target(4.0, 0.5) == (4.0, 0.05)
    assert ladder.target(1.0, 0.5) == (1.0, 0.05)
    # Where the calibrated threshold falls with the factor, between two steps the tighter.
    falling = GrowthLadder([(1.0, 58.6), (2.0, 30.0)])
    assert [falling.target(f, 1.0) for f in (1.2, 2.0, 3.0)] == [(1.0, 30.0), (2.0, 30.0), (2.0, 30.0)]
    ladder.threshold = 0.3
    assert GrowthLadder.from_dict(json.loads(json.dumps(ladder.to_dict()))) == ladder


def test_the_table_gives_a_ladder_only_where_it_has_growth_anchors(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from app.policies.moments import sla

    base = {k: dict(v) for k, v in sla.CALIBRATED_GROWTH.items()}
    base["second_moment"] = {2.0: ((500, 0.4, 96, 1.0, 0.0), (2000, 0.2, 48, 1.0, 0.0)),
                             4.0: ((2000, 0.5, 48, 1.0, 0.0),)}
    monkeypatch.setattr(sla, "CALIBRATED_GROWTH", base)
    steps = {c: [(s["lambda_factor"], s["threshold"])
                 for s in table_threshold("second_moment", c, 1e-4)[1].get("by_growth", [])]
             for c in (400, 500, 1000, 2000, 5000)}
    # At an anchor its value; between two the table's threshold there times the smaller of
    # the anchors' ratios to their Table 1 values; outside them nothing (no extrapolation).
    ratio = min(0.4 / CALIBRATED["second_moment"][0][1], 0.2 / CALIBRATED["second_moment"][1][1])
    assert steps == {400: [], 500: [(2.0, 0.4)],
                     1000: [(2.0, pytest.approx(table_threshold("second_moment", 1000, 1e-4)[0] * ratio))],
                     2000: [(2.0, 0.2), (4.0, 0.5)], 5000: []}
    _, d = table_threshold("second_moment", 2000, 1e-4)
    assert [s["lambda_factor"] for s in d["by_growth"]] == [2.0, 4.0]
    assert "by_growth" not in table_threshold("second_moment", 5000, 1e-4)[1]
    # A stricter SLA than the anchors' gets no ladder: they were calibrated for 1e-4.
    assert "by_growth" not in table_threshold("second_moment", 2000, 1e-5)[1]
    # The ladder goes to clusters that learn their prior, with the declared threshold as step 1.
    assert ladder_steps(True, d, 0.05) == ((1.0, 0.05), (2.0, 0.2), (4.0, 0.5))
    assert ladder_steps(False, d, 0.05) is None
    assert ladder_steps(True, {"source": "declared"}, 0.05) is None


def test_every_growth_anchor_sits_on_a_table_anchor() -> None:
    """A step between two capacities scales by its anchors' ratios to their Table 1 values,
    so each growth anchor needs a Table 1 anchor at the same capacity; and the factors rise."""
    from app.policies.moments.sla import CALIBRATED_GROWTH

    for kind, rows in CALIBRATED_GROWTH.items():
        base = {a[0] for a in CALIBRATED[kind]}
        for factor, anchors in rows.items():
            assert factor > 1 and {a[0] for a in anchors} <= base
            assert [a[0] for a in anchors] == sorted({a[0] for a in anchors})


def test_a_capacity_outside_the_calibrated_ones_states_no_confidence() -> None:
    """The nearest anchor's value stands in outside the table, but its lives were another
    cluster's: the derivation states no confidence there, and the anchor's own where it is."""
    for kind, anchors in CALIBRATED.items():
        low, high = anchors[0], anchors[-1]
        for capacity, anchor in ((low[0] // 2, low), (high[0] * 5, high)):
            t, d = table_threshold(kind, capacity, 1e-4)
            unit = 1 if kind == "second_moment" else capacity
            assert t == pytest.approx(anchor[1] * unit)
            assert [a["capacity"] for a in d["anchors"]] == [anchor[0]]
            assert d["confidence"] is None
        for anchor in (low, high):
            assert table_threshold(kind, anchor[0], 1e-4)[1]["confidence"] == anchor[3]
