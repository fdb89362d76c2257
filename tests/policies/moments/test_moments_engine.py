"""MomentEngine: policy decisions on hand-built cases, validation, state round-trip."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.api.schemas.state import DeploymentView
from app.policies.errors import PolicyError
from app.policies.moments import MomentEngine, MomentsError
from app.policies.moments.admissible import admissibility
from app.policies.moments.formulas import Grid
from app.policies.moments.options import MomentOptions
from app.sim.moments.replay import largest as largest_peaks
from tests.helpers import check_state_view

SMALL = Grid((24.0 * 30, 24.0), 60)
# A deployment we know is tiny and short-lived: cores live ~6 minutes, maximum lifetime ~1 hour.
SHORT = {"gamma": {"lambda": [1e3, 1e3], "mu": [1e4, 1e3], "sigma": [1e3, 1e4]}}
# One we know is big and long-lived.
LONG = {"gamma": {"lambda": [1e3, 1e2], "mu": [1e3, 1e5], "sigma": [1e3, 1e2]}}


def eng(policy: str = "second_moment", **kw: object) -> MomentEngine:
    return MomentEngine(MomentOptions(kw.pop("capacity", 1000), policy, grid=SMALL, **kw))  # type: ignore[arg-type]


def test_threshold_policy_counts_active_cores() -> None:
    e = eng("threshold", threshold=10)
    assert e.admit("a", 6, 0.0)["decision"] == "admitted"
    r = e.admit("b", 4, 1.0)
    assert r["decision"] == "rejected" and r["reason"] == "active_cores_over_threshold"
    assert e.admit("c", 3, 1.0)["decision"] == "admitted"  # 9 < 10


def test_first_moment_rejects_when_expected_cores_exceed_t() -> None:
    e = eng("first_moment", threshold=50.0)
    assert e.admit("small", 2, 0.0, prior=SHORT)["decision"] == "admitted"
    r = e.admit("big", 10, 0.0, prior=LONG)
    assert r["decision"] == "rejected" and r["reason"] == "expected_cores_over_threshold"
    assert r["details"]["expected_cores"] > 50.0 and r["details"]["threshold"] == 50.0
    assert r["details"]["worst_horizon"]["horizon"] in {"720h", "24h"}


def test_second_moment_rejects_when_mean_exceeds_capacity_and_accepts_small() -> None:
    e = eng("second_moment", threshold=0.1, capacity=200)
    r = e.admit("big", 10, 0.0, prior=LONG)
    assert r["decision"] == "rejected" and r["reason"] == "overflow_bound_exceeded"
    assert r["details"]["overflow_bound"] == 1.0  # Σ E > c: eq. (19) fails
    ok = e.admit("small", 1, 0.0, prior=SHORT)
    assert ok["decision"] == "admitted" and ok["details"]["overflow_bound"] <= 0.1


def test_marginal_heuristic_admits_short_lived_in_unsafe_state() -> None:
    for marginal, expected in ((True, "admitted"), (False, "rejected")):
        e = eng("first_moment", threshold=30.0, marginal=marginal, capacity=10_000)
        # Force an unsafe state: a long-lived deployment whose expectation exceeds t.
        e.threshold = 1e9
        assert e.admit("long", 10, 0.0, prior=LONG)["decision"] == "admitted"
        e.threshold = 30.0
        assert e.admit("other", 1, 0.0)["decision"] == "rejected"  # population prior: not marginal
        r = e.admit("short", 1, 0.0, prior=SHORT)
        assert r["decision"] == expected
        if marginal:
            assert r["reason"] == "admitted_marginal" and r["details"]["marginal"] is True


def test_rejected_when_cores_not_free() -> None:
    e = eng("threshold", threshold=1e9, capacity=10)
    e.admit("a", 8, 0.0)
    r = e.admit("b", 3, 0.0)
    assert r["decision"] == "rejected" and r["reason"] == "no_capacity"


def test_scale_out_all_or_nothing_and_sla_rate() -> None:
    e = eng("threshold", threshold=1e9, capacity=10)
    e.admit("a", 6, 0.0)
    assert e.scale_out("a", 4, 1.0) == {"decision": "granted", "active_cores": 10, "sla_failure_rate": 0.0,
                                        "migrate": None}  # the zeroth moment expects nothing
    r = e.scale_out("a", 1, 2.0)
    assert r == {"decision": "denied", "active_cores": 10, "sla_failure_rate": 0.5, "migrate": None}
    e.scale_in("a", 5, 3.0)
    assert e.scale_out("a", 5, 4.0)["decision"] == "granted"
    d = e.describe()
    assert d["scaleout_requests"] == 3 and d["scaleouts_denied"] == 1


def test_death_by_scale_in_and_shutdown() -> None:
    e = eng()
    e.admit("a", 2, 0.0)
    e.admit("b", 2, 0.0)
    assert e.scale_in("a", 2, 1.0)["alive"] is False
    e.shutdown("b", 2.0)
    assert e.active == 0 and e.describe()["deployments"] == 0
    with pytest.raises(MomentsError) as exc:
        e.scale_out("a", 1, 3.0)
    assert exc.value.field == "deployment_id"
    # Totals return to ~0 once everything is dead.
    assert abs(e._tot_e).max() < 1e-6


def test_outgrowing_names_a_deployment_its_moments_expect_to_need_half_the_cluster() -> None:
    """engine.outgrowing: a deployment admitted on the population prior that then scales out
    fast is listed once its moments are recomputed (at the next admission, as the totals
    are), with its expected peak against capacity; one that dies leaves the list. The
    cluster refuses newcomers meanwhile, but cannot refuse that deployment's growth."""
    e = eng("second_moment", threshold=0.5, capacity=400)
    for key in ("a", "b"):
        assert e.admit(key, 2 if key == "a" else 1, 0.0)["decision"] == "admitted"
    quiet = e.outgrowing()
    assert quiet is not None and quiet["count"] == 0 and quiet["deployments"] == []
    assert 0.0 < quiet["largest_expected_share"] < 0.5
    for k in range(30):  # 120 cores in 6 hours: far faster than the population prior says
        r = e.scale_out("a", 4, 0.2 * (k + 1))
        assert r["decision"] == "granted" and r["migrate"] is None
    # Its cached moments are still the admission's until the next admission recomputes them.
    assert e.outgrowing() == quiet
    assert e.admit("c", 1, 6.5)["decision"] == "rejected"
    loud = e.outgrowing()
    assert loud is not None and loud["count"] == 1 and loud["largest_expected_share"] > 1.0
    [row] = loud["deployments"]
    assert row["deployment_id"] == "a" and row["cores"] == 122
    # Its own next scale-out is answered "migrate", with the same expectation; b's is not.
    migrate = e.scale_out("a", 4, 6.6)["migrate"]
    assert migrate == {"reason": "outgrowing_cluster", "share": 0.5,
                       "expected_peak_cores": row["expected_peak_cores"], "expected_share": row["expected_share"],
                       "expected_cluster_share": loud["expected_cluster_share"]}
    assert row["reason"] == "outgrowing_cluster"
    assert e.scale_out("b", 1, 6.7)["migrate"] is None
    assert e.deployment_view("a")["migrate"] == migrate and e.deployment_view("b")["migrate"] is None
    e.scale_in("a", 4, 6.8)
    # The peak is over every point of the grid; the deployment's view shows the horizons' ends.
    assert row["expected_peak_cores"] >= max(e.deployment_view("a")["expected_cores"].values()) > 200
    assert row["expected_share"] == row["expected_peak_cores"] / 400
    assert e.describe()["outgrowing"] == loud
    e.shutdown("a", 7.0)
    gone = e.outgrowing()
    assert gone is not None and gone["count"] == 0 and gone["largest_expected_share"] < 0.5
    assert eng("threshold", threshold=10).outgrowing() is None  # no moments to expect with


def test_dry_run_changes_nothing() -> None:
    e = eng()
    e.admit("a", 2, 0.0)
    before = json.dumps(e.to_state())
    r = e.admit("b", 3, 0.0, dry_run=True)
    assert r["decision"] == "admitted"
    assert json.dumps(e.to_state()) == before


@pytest.mark.parametrize(
    "call, field",
    [
        (lambda e: e.scale_out("nope", 1, 5.0), "deployment_id"),
        (lambda e: e.scale_out("a", 0, 5.0), "cores"),
        (lambda e: e.scale_in("a", -1, 5.0), "cores"),
        (lambda e: e.scale_in("a", 99, 5.0), "cores"),
        (lambda e: e.scale_out("a", 1, 0.5), "at"),
        (lambda e: e.admit("b", 1, 0.5), "at"),
        (lambda e: e.admit("a", 1, 5.0), "deployment_id"),
        (lambda e: e.admit("b", 0, 5.0), "cores"),
        (lambda e: e.admit("b", 1, 5.0, prior={"observations": {"bogus": 1}}), "prior.observations"),
        (lambda e: e.admit("b", 1, 5.0, prior={"gamma": {"lambda": [0, 1], "mu": [1, 1], "sigma": [1, 1]}}), "prior.gamma.lambda[0]"),
        (lambda e: e.shutdown("nope", 5.0), "deployment_id"),
    ],
)
def test_validation_raises_before_mutating(call, field) -> None:  # type: ignore[no-untyped-def]
    e = eng()
    e.admit("a", 2, 1.0)
    e.scale_out("a", 1, 1.0)
    before = json.dumps(e.to_state())
    with pytest.raises(PolicyError) as exc:  # a MomentsError, or the shared TimeWentBackwards
        call(e)
    assert isinstance(exc.value, ValueError) and exc.value.field == field
    assert json.dumps(e.to_state()) == before


def test_category_prior_learned_from_labelled_deployments() -> None:
    e = eng("second_moment", capacity=100_000)
    t = 0.0
    for i in range(8):  # short-lived category: cores die fast, no scale-outs
        e.admit(f"s{i}", 1, t, category="batch")
        t += 0.1
        e.scale_in(f"s{i}", 1, t)
    batch = e.deployment_view("s7")["posterior"]["mu"]["mean"]
    e.admit("new", 1, t, category="batch")
    e.admit("plain", 1, t)
    assert e.deployment_view("new")["posterior"]["mu"]["mean"] > e.deployment_view("plain")["posterior"]["mu"]["mean"]
    assert batch > 1.0


events = st.lists(
    st.tuples(st.sampled_from(["admit", "out", "in", "shut"]), st.integers(0, 5), st.integers(1, 4), st.floats(0, 3)),
    max_size=25,
)


@settings(max_examples=40, deadline=None)
@given(events, st.sampled_from(["threshold", "first_moment", "second_moment"]), st.booleans())
def test_state_round_trip_makes_identical_decisions(evts, policy, sized) -> None:  # type: ignore[no-untyped-def]
    thr = {"threshold": 15.0, "first_moment": 15.0, "second_moment": 0.2}[policy]
    e = MomentEngine(MomentOptions(30, policy, threshold=thr, grid=SMALL, arrival_size_evidence=sized))
    t = 0.0
    log = []

    def play(engine: MomentEngine, script: list) -> list:  # type: ignore[type-arg]
        out = []
        for kind, i, c, dt, now in script:
            try:
                if kind == "admit":
                    out.append(engine.admit(f"d{i}", c, now, category="k" if i % 2 else None))
                elif kind == "out":
                    out.append(engine.scale_out(f"d{i}", c, now))
                elif kind == "in":
                    out.append(engine.scale_in(f"d{i}", 1, now))
                else:
                    out.append(engine.shutdown(f"d{i}", now))
            except MomentsError as exc:
                out.append(("err", exc.field))
        return out

    for kind, i, c, dt in evts:
        t += dt
        log.append((kind, i, c, dt, t))
    half = len(log) // 2
    play(e, log[:half])
    restored = MomentEngine.from_state(json.loads(json.dumps(e.to_state())))
    twin = copy.deepcopy(e)
    assert restored.arrival_size_evidence is sized
    assert play(restored, log[half:]) == play(twin, log[half:])
    assert json.dumps(restored.to_state()) == json.dumps(twin.to_state())
    # What /state shows of it is what the OpenAPI document says (the family adds the SLA's
    # three fields and what it admits); and each deployment's view, live or kept dead for its
    # category.
    check_state_view({**restored.describe(), "sla": None, "threshold_derivation": None,
                      "meets_sla": None, "admissible": admissibility(restored)})
    for key in restored.deployments:
        DeploymentView.model_validate(restored.deployment_view(key))


def _outgrowing_from_scratch(e: MomentEngine) -> tuple[float, list[tuple[float, str]]]:
    """(largest peak, the rows outgrowing lists): those whose peak, or the cores they hold
    now, reach half the cluster, by the larger of the two, largest first; else, where the
    cluster's expected cores plus overflow_sd standard deviations (the totals' largest over
    the grid) reach capacity, the one with the largest peak (the larger id on a tie)."""
    peaks = {key: float(m[0].max()) for key, m in e._cache.items()}
    limit = 0.5 * e.capacity
    cores = {key: float(e.deployments[key].cores) for key in peaks}
    held = {key: max(p, cores[key]) if cores[key] >= limit else p for key, p in peaks.items()}
    over = sorted(((p, k) for k, p in held.items() if p >= limit), reverse=True)
    line = float((e._tot_e + e.overflow_sd * np.sqrt(np.maximum(e._tot_v, 0.0))).max())
    if not over and peaks and line >= e.capacity:
        over = [max((p, k) for k, p in peaks.items())]
    return max(held.values(), default=0.0), over



def test_a_deployment_that_grew_into_half_the_cluster_between_arrivals_is_told_to_migrate() -> None:
    """Moments are recomputed at arrivals only, so a deployment that scales out into the
    cluster with no arrival in between still has its admission's moments (it expects a few
    cores). Holding half the cluster is enough: its scale-out that reaches half is answered
    migrate (outgrowing_cluster, the cores it holds as its peak), /state lists it, a restored
    engine too; a neighbour is not told cluster_overflow meanwhile; once it shrinks below
    half it is no longer listed (its cached moments never expected it)."""
    e = eng("second_moment", threshold=0.5, capacity=2000)
    assert e.admit("big", 4, 1.0)["decision"] == "admitted"
    assert e.admit("small", 2, 1.5)["decision"] == "admitted"
    cached = e.expected_peak("big")
    assert cached is not None and cached < 100
    answers = [e.scale_out("big", 200, 2.0 + k)["migrate"] for k in range(7)]  # 204 ... 1,404 cores
    assert answers[:4] == [None] * 4  # up to 804 cores: under half, and its moments expect little
    assert e.expected_peak("big") == cached  # no arrival: the cache is the admission's
    for migrate, cores in zip(answers[4:], (1004, 1204, 1404)):
        assert migrate is not None and migrate["reason"] == "outgrowing_cluster"
        assert migrate["expected_peak_cores"] == cores and migrate["expected_share"] == cores / 2000
    listed = e.outgrowing()
    assert listed is not None and listed["count"] == 1
    assert listed["deployments"] == [{"deployment_id": "big", "cores": 1404, "expected_peak_cores": 1404.0,
                                      "expected_share": 1404 / 2000, "reason": "outgrowing_cluster"}]
    # The gauge (and its alert) see the cores it holds; its moments' own view is unchanged.
    assert listed["largest_expected_share"] == 1404 / 2000
    assert max(cached, e.expected_peak("small")) < 100
    restored = MomentEngine.from_state(json.loads(json.dumps(e.to_state())))
    assert restored.outgrowing() == listed
    assert e.scale_out("small", 1, 9.0)["migrate"] is None
    e.scale_in("big", 500, 9.5)  # 904 cores: under half again
    assert e.outgrowing()["count"] == 0 and e.scale_out("big", 1, 9.6)["migrate"] is None
    assert restored.scale_out("big", 1, 9.7)["migrate"]["expected_peak_cores"] == 1405
    e.capacity = 1600  # a smaller cluster: its 905 cores are half of it, not noted at 2,000
    assert [r["deployment_id"] for r in e.outgrowing()["deployments"]] == ["big"]

def test_the_one_sd_line_names_the_largest_deployment_before_expected_cores_reach_capacity() -> None:
    """overflow_sd = 1: cluster_overflow is answered once E + sd of the cluster's cores reaches
    capacity somewhere on the grid; at 0 (the default before the option) only once E does.
    Both name the same deployment, the largest; the answer says where the line stood."""
    engines = [MomentEngine(MomentOptions(1000, policy="second_moment", threshold=0.5, overflow_sd=sd)) for sd in (0.0, 1.0)]
    for e in engines:
        for i, cores in enumerate((40, 90, 10)):
            assert e.admit(f"d{i}", cores, at=float(i))["decision"] == "admitted"
    plain, sd = engines
    largest = largest_peaks(plain, 1)[0]["deployment_id"]
    assert largest == "d1" == largest_peaks(sd, 1)[0]["deployment_id"]

    def totals(e: MomentEngine, mean: float, var: float) -> None:
        # The cluster as the line sees it; a new version, as a recompute would leave it.
        e._tot_e[:] = 0.0
        e._tot_v[:] = 0.0
        e._tot_e[2, 7], e._tot_v[2, 7] = mean, var
        e._updates += 1

    for e in engines:  # E 900, sd 50: neither line is reached
        totals(e, 900.0, 2500.0)
        assert e._overflow_candidate() is None
        assert e.scale_out("d1", 1, 3.0)["migrate"] is None
    for e in engines:  # E 900, sd 100: E + sd is at capacity, E is not
        totals(e, 900.0, 10_000.0)
    assert plain._overflow_candidate() is None and sd._overflow_candidate() == largest
    assert plain.scale_out("d1", 1, 5.0)["migrate"] is None
    assert sd.scale_out("d1", 1, 5.0)["migrate"] == {
        "reason": "cluster_overflow", "share": 0.5, "expected_peak_cores": sd.expected_peak("d1"),
        "expected_share": sd.expected_peak("d1") / 1000, "expected_cluster_share": 0.9,
        "overflow_sd": 1.0, "overflow_line_share": 1.0}
    for e in engines:  # E at capacity: both lines name it
        totals(e, 1000.0, 0.0)
        assert e._overflow_candidate() == largest
    # The line is part of the state: a restored engine answers with the same line.
    restored = MomentEngine.from_state(json.loads(json.dumps(sd.to_state())))
    assert restored.overflow_sd == 1.0
    old = json.loads(json.dumps(plain.to_state()))
    del old["config"]["overflow_sd"]  # a state saved before the option: E's line
    assert MomentEngine.from_state(old).overflow_sd == 0.0


def test_a_cluster_expected_to_outgrow_itself_moves_its_largest_deployment_one_at_a_time() -> None:
    """No deployment is expected to need half the cluster, but together they are expected to
    need more than all of it (six deployments learnt to grow fast): the one with the largest
    expected peak is listed and its scale-outs answered migrate ("cluster_overflow"), the
    others' not; when it leaves the next largest is told, and once the totals fall below
    capacity nobody is."""
    e = eng("second_moment", threshold=0.5, capacity=400)
    ids = [f"d{k}" for k in range(6)]
    for key in ids:
        assert e.admit(key, 1, 0.0)["decision"] == "admitted"
    assert e.outgrowing()["count"] == 0 and e.outgrowing()["expected_cluster_share"] < 1.0  # type: ignore[index]
    t = 0.0
    for _ in range(6):
        for key in ids:
            t += 0.05
            assert e.scale_out(key, 4, t)["migrate"] is None  # the admission's moments still
    assert e.admit("x", 1, t + 0.1)["decision"] == "rejected"  # recomputes them: over capacity
    t += 0.1
    moving = []
    while True:
        out = e.outgrowing()
        assert out is not None and out["largest_expected_share"] < 0.5
        if out["expected_cluster_share"] < 1.0:
            assert out["count"] == 0
            break
        [row] = out["deployments"]
        assert row["reason"] == "cluster_overflow" and out["count"] == 1
        assert row["expected_share"] == out["largest_expected_share"]
        top = largest_peaks(e, 3)  # the one named first, then the ones a later answer would name
        assert top[0]["deployment_id"] == row["deployment_id"]
        assert top[0]["expected_peak_cores"] == row["expected_peak_cores"] == e.expected_peak(row["deployment_id"])
        assert [r["expected_peak_cores"] for r in top] == sorted((r["expected_peak_cores"] for r in top), reverse=True)
        answers = {}
        for key in ids:
            if key not in moving:
                t += 0.01
                answers[key] = e.scale_out(key, 1, t)["migrate"]
        told = [key for key, a in answers.items() if a is not None]
        assert told == [row["deployment_id"]]
        assert answers[told[0]] == {"reason": "cluster_overflow", "share": 0.5,
                                    "expected_peak_cores": row["expected_peak_cores"],
                                    "expected_share": row["expected_share"],
                                    "expected_cluster_share": out["expected_cluster_share"]}
        e.shutdown(told[0], t)  # the orchestrator moves it: the totals lose its moments now
        moving.append(told[0])
    assert 1 <= len(moving) < len(ids)  # some move, not all: the rest fit once they have gone


@settings(max_examples=150, deadline=None)
@given(events, st.lists(st.booleans(), min_size=25, max_size=25), st.sampled_from([6, 30, 80]),
       st.sampled_from([0.0, 1.0, 2.5]))
def test_outgrowing_kept_up_to_date_equals_one_computed_from_scratch(evts, asks, capacity, sd) -> None:  # type: ignore[no-untyped-def]
    """engine.outgrowing updates only the peaks of deployments stored or removed since it was
    last asked; whenever it is asked (and after a restore, and when the cluster's capacity
    changes under it) its answer is the one a pass over every cached deployment gives, at
    whichever cluster_overflow line (overflow_sd) the cluster has."""
    e = MomentEngine(MomentOptions(capacity, "second_moment", threshold=0.9, grid=SMALL, overflow_sd=sd))
    t = 0.0

    def check(engine: MomentEngine) -> None:
        got = engine.outgrowing()
        largest, over = _outgrowing_from_scratch(engine)
        assert got is not None and got["largest_expected_share"] == largest / engine.capacity
        assert got["count"] == len(over)
        assert [(r["expected_peak_cores"], r["deployment_id"]) for r in got["deployments"]] == over[:5]
        assert got["expected_cluster_share"] == float(engine._tot_e.max()) / engine.capacity
        assert engine.overflow_sd == sd
        if sd:
            line = engine._tot_e + sd * np.sqrt(np.maximum(engine._tot_v, 0.0))
            assert got["overflow_line_share"] == float(line.max()) / engine.capacity
        else:
            assert "overflow_line_share" not in got
        # replay.largest: every cached deployment by peak, largest first, the larger id on a tie.
        every = sorted(((float(m[0].max()), key) for key, m in engine._cache.items()), reverse=True)
        assert [(r["expected_peak_cores"], r["deployment_id"]) for r in largest_peaks(engine, 4)] == every[:4]
        assert all(engine.expected_peak(key) == peak for peak, key in every)
        # Each live deployment's next scale-out is answered migrate exactly when it is listed.
        for key, d in engine.deployments.items():
            if d.alive:
                assert (engine._migrate(d) is not None) == any(k == key for _, k in over), key

    for (kind, i, c, dt), ask in zip(evts, asks):
        t += dt
        try:
            if kind == "admit":
                e.admit(f"d{i}", c, t)
            elif kind == "out":
                # Its answer reads the moments of the cache (a scale-out only marks them) and
                # the cores it holds after this scale-out.
                migrate = e.scale_out(f"d{i}", 4 * c, t)["migrate"]
                told = [k for _, k in _outgrowing_from_scratch(e)[1]]
                assert (migrate is not None) == (f"d{i}" in told)
            elif kind == "in":
                e.scale_in(f"d{i}", 1, t)
            else:
                e.shutdown(f"d{i}", t)
        except MomentsError:
            pass
        if ask:
            check(e)
    e.admit("flush", 1, t + 1.0, dry_run=True)
    check(e)
    if e._cache:  # the largest dies: the next answer must not remember it
        e.shutdown(max(e._cache, key=lambda key: float(e._cache[key][0].max())), t + 1.0)
        check(e)
    check(MomentEngine.from_state(json.loads(json.dumps(e.to_state()))))
    e.capacity *= 2  # the limit moves: who is over it is decided again from every peak
    check(e)
    e.capacity //= 4
    check(e)


def test_migrate_answers_and_the_list_agree_where_clusters_outgrow_themselves() -> None:
    """Small deployments that all scale out fast, in clusters sized so that together they
    can outgrow them while none alone needs half, then leave in a random order: after every
    event outgrowing() lists what the from-scratch pass lists, and each scale-out is answered
    migrate exactly when its deployment is listed. Counts the cluster-overflow answers given,
    so the test fails if its examples never reach that case."""
    overflowed = 0

    @settings(max_examples=40, deadline=None)
    @given(st.integers(4, 10), st.integers(2, 7), st.lists(st.integers(1, 6), min_size=80, max_size=80),
           st.sampled_from([150, 300, 500]), st.randoms(use_true_random=False))
    def run(n, rounds, sizes, capacity, rnd) -> None:  # type: ignore[no-untyped-def]
        nonlocal overflowed
        e = MomentEngine(MomentOptions(capacity, "second_moment", threshold=0.9, grid=SMALL))
        ids = [f"d{k}" for k in range(n)]
        t = 0.0

        def check() -> None:
            got = e.outgrowing()
            _, over = _outgrowing_from_scratch(e)
            assert got is not None
            assert [(r["expected_peak_cores"], r["deployment_id"]) for r in got["deployments"]] == over[:5]

        def out(key: str, cores: int) -> None:
            nonlocal t, overflowed
            t += 0.05
            migrate = e.scale_out(key, cores, t)["migrate"]
            told = [k for _, k in _outgrowing_from_scratch(e)[1]]
            assert (migrate is not None) == (key in told)
            overflowed += migrate is not None and migrate["reason"] == "cluster_overflow"

        for key in ids:
            e.admit(key, 1, 0.0)
        for r in range(rounds):
            for k, key in enumerate(ids):
                if key in e._cache:
                    out(key, sizes[(r * n + k) % len(sizes)])
        t += 0.1
        e.admit("trigger", 1, t)  # recomputes every deployment that scaled out
        check()
        rnd.shuffle(ids)
        for key in ids:
            for other in ids:
                if other in e._cache:
                    out(other, 1)
            check()
            if key in e._cache:
                e.shutdown(key, t)
            check()

    run()
    assert overflowed > 0


def test_a_state_from_a_kernel_that_rounds_otherwise_resums_its_totals() -> None:
    """engine.from_state: totals are kept verbatim from a state of this kernel (or of one from
    before the stamp), and re-summed from the rebuilt caches when the state says another
    kernel's rounding made them (kernel.ROUNDING)."""
    import numpy as np

    from app.policies.moments.kernel import ROUNDING

    e = eng("second_moment", threshold=0.5)
    for i in range(6):
        e.admit(f"d{i}", 1 + i, float(i))
        e.scale_out(f"d{i}", 2, float(i) + 0.5)
    e.admit("flush", 1, 7.0, dry_run=True)
    state = json.loads(json.dumps(e.to_state()))
    assert state["kernel"] == ROUNDING
    # Totals as an older kernel might have left them: a rounding's worth off the caches' sum.
    state["totals"] = [[[x * (1 + 1e-15) for x in row] for row in part] for part in state["totals"]]
    for stamp in (ROUNDING, None):
        old = dict(state)
        if stamp is None:
            del old["kernel"]
        kept = MomentEngine.from_state(old)
        assert kept._tot_e.tolist() == state["totals"][0] and kept._tot_v.tolist() == state["totals"][1]
    other = MomentEngine.from_state({**state, "kernel": ROUNDING + 1})
    resummed = copy.deepcopy(other)
    resummed._resum()
    assert np.array_equal(other._tot_e, resummed._tot_e) and np.array_equal(other._tot_v, resummed._tot_v)
    assert other._tot_e.tolist() != state["totals"][0]
    assert np.allclose(other._tot_e, e._tot_e, rtol=1e-14, atol=0)
