"""admissibility(): what a moment engine can admit as it stands, from dry runs only.

The engine is left bit for bit as it was (its state, and the decisions it makes next); the
largest admissible deployment is the one a linear scan of plain dry runs finds, which rests
on admission being monotone in cores, checked here on small capacities rather than assumed;
a gated engine (a threshold being calibrated) admits 0 with the gate's reason."""

from __future__ import annotations

import json
import math

from hypothesis import event, given, settings
from hypothesis import strategies as st

from app.policies.moments import MomentEngine
from app.policies.moments.admissible import PROBE, admissibility, typical_arrival_cores
from app.policies.moments.family import MomentAdapter
from app.policies.moments.options import GATE_CALIBRATING, MomentOptions
from app.policies.moments.priors import Prior

KINDS = ("threshold", "first_moment", "second_moment")


def engine(kind: str, capacity: int, share: float, **kw: object) -> MomentEngine:
    """`share`: ρ for the second moment, t / capacity for the others."""
    threshold = share if kind == "second_moment" else share * capacity
    return MomentEngine(MomentOptions(capacity, kind, threshold, **kw))  # type: ignore[arg-type]


def busy(e: MomentEngine, sizes: list[int]) -> MomentEngine:
    """Deployments of `sizes` arriving an hour apart, each admitted one scaled out once, so
    that the engine holds deployments changed since its last admission (its dirty ones)."""
    for i, size in enumerate(sizes):
        if e.admit(f"d{i}", size, float(i))["decision"] == "admitted":
            e.scale_out(f"d{i}", 1, i + 0.5)
    return e


def state(e: MomentEngine) -> str:
    return json.dumps(e.to_state(), sort_keys=True)


def scan(e: MomentEngine) -> list[bool]:
    """Plain dry runs of every size from 1 to one past the free cores (no shared refresh)."""
    return [e.admit("scan", k, e.now, dry_run=True)["decision"] == "admitted"
            for k in range(1, e.capacity - e.active + 2)]


cases = st.tuples(
    st.sampled_from(KINDS), st.integers(1, 150), st.floats(0.005, 0.9),
    st.lists(st.integers(1, 12), max_size=6), st.booleans(), st.booleans())


@settings(max_examples=40, deadline=None)
@given(cases)
def test_admission_is_monotone_in_cores_and_the_bisection_finds_the_scan(case) -> None:
    kind, capacity, share, sizes, evidence, learn = case
    e = busy(engine(kind, capacity, share, arrival_size_evidence=evidence, learn=learn), sizes)
    admitted = scan(e)
    largest = sum(admitted)
    assert admitted == [True] * largest + [False] * (len(admitted) - largest), admitted
    assert admissibility(e)["largest_first_deployment"] == largest
    event("admits none" if largest == 0 else "admits all free cores" if largest == len(admitted) - 1
          else "admits some sizes")


@settings(max_examples=25, deadline=None)
@given(cases)
def test_the_engine_is_left_bit_identical(case) -> None:
    kind, capacity, share, sizes, evidence, learn = case
    options = {"arrival_size_evidence": evidence, "learn": learn}
    probed = busy(engine(kind, capacity, share, **options), sizes)
    twin = busy(engine(kind, capacity, share, **options), sizes)
    before = state(probed)
    admissibility(probed)
    assert state(probed) == before
    # ... and what it decides next is what an engine never probed decides.
    at = probed.now + 1.0
    assert probed.admit("next", 2, at) == twin.admit("next", 2, at)
    assert state(probed) == state(twin)


def test_the_typical_first_deployment_is_one_plus_the_mean_sigma() -> None:
    # Table 1: σ ~ Gamma(0.2616, 0.0552), E[σ] = 4.74, so 1 + Pois(σ) averages 5.74 cores.
    assert typical_arrival_cores(engine("second_moment", 2000, 0.05)) == 6
    declared = Prior(sig=(1.0, 0.1))  # E[σ] = 10
    assert typical_arrival_cores(engine("second_moment", 2000, 0.05, population=declared)) == 11
    tiny = Prior(sig=(1e-6, 1e6))
    assert typical_arrival_cores(engine("second_moment", 2000, 0.05, population=tiny)) == 1


def test_a_cluster_that_admits_a_typical_deployment_says_so() -> None:
    out = admissibility(engine("second_moment", 20_000, 0.112))
    assert out["admits_typical"] is True
    typical = out["typical_first_deployment"]
    assert typical == {"cores": 6, "decision": "admitted", "reason": "within_bound",
                       "overflow_bound": typical["overflow_bound"]}
    assert 0 <= typical["overflow_bound"] <= 0.112
    assert out["largest_first_deployment"] > 6
    assert out["summary"].startswith(
        f"admits first deployments of up to {out['largest_first_deployment']} cores; "
        "a typical one (6 cores) is admitted")


def test_a_cluster_too_small_for_a_typical_deployment_gives_the_numbers() -> None:
    """The issue's case: a small cluster at a tight ρ takes a few cores, not a typical
    deployment, and the answer says by how much the rule's bound misses."""
    out = admissibility(engine("second_moment", 500, 0.3))
    typical = out["typical_first_deployment"]
    assert out["largest_first_deployment"] == 1 and out["admits_typical"] is False
    assert typical["decision"] == "rejected" and typical["reason"] == "overflow_bound_exceeded"
    assert typical["overflow_bound"] > 0.3
    assert out["summary"] == (
        "admits first deployments of up to 1 core; a typical one (6 cores) is rejected: "
        f"Cantelli's bound {typical['overflow_bound']:.3g} exceeds ρ = 0.3")
    tighter = admissibility(engine("second_moment", 500, 0.1))
    assert tighter["largest_first_deployment"] == 0
    assert tighter["summary"].startswith("admits no first deployment now, not even of 1 core "
                                         "(overflow_bound_exceeded); a typical one")


def test_the_first_and_zeroth_moments_state_their_own_bounds() -> None:
    first = admissibility(engine("first_moment", 500, 0.03))  # t = 15 expected cores
    assert first["typical_first_deployment"]["reason"] == "expected_cores_over_threshold"
    assert "Markov's bound E/c" in first["summary"] and "exceeds t/c = 0.03" in first["summary"]
    zeroth = admissibility(engine("threshold", 500, 0.01))  # t = 5 active cores
    assert zeroth["largest_first_deployment"] == 4  # active < t
    assert zeroth["typical_first_deployment"]["overflow_bound"] == 6 / 500  # active / c
    assert zeroth["summary"].endswith("rejected: active/c 0.012 reaches t/c = 0.01")


def test_an_engine_that_refuses_everything_admits_zero_and_says_why() -> None:
    """While a threshold is calibrated the engine refuses every deployment (its gate):
    nothing here knows of gates, the dry runs say it."""
    out = admissibility(engine("second_moment", 100_000, 0.112, gate=GATE_CALIBRATING))
    assert out["largest_first_deployment"] == 0 and out["admits_typical"] is False
    assert out["typical_first_deployment"]["reason"] == GATE_CALIBRATING
    assert out["summary"].startswith(
        f"admits no first deployment now, not even of 1 core ({GATE_CALIBRATING}); "
        f"a typical one (6 cores) is rejected ({GATE_CALIBRATING})")


def test_a_full_cluster_admits_zero_for_want_of_cores() -> None:
    e = engine("threshold", 10, 1.5)  # t above the capacity: only the cores limit
    assert e.admit("all", 10, 0.0)["decision"] == "admitted"
    out = admissibility(e)
    assert out["largest_first_deployment"] == 0
    assert out["typical_first_deployment"]["reason"] == "no_capacity"


def test_the_bisection_is_short_at_100000_cores() -> None:
    """About log2 of the free cores of dry runs (17 at 100,000), each on one shared refresh."""
    e = busy(engine("second_moment", 100_000, 0.112), [4, 8, 2, 30, 6])
    sizes: list[int] = []
    plain = e.admit

    def counted(deployment_id: str, cores: int, at: float, *args: object, **kw: object) -> dict:
        sizes.append(cores)
        return plain(deployment_id, cores, at, *args, **kw)  # type: ignore[arg-type]

    e.admit = counted  # type: ignore[method-assign]
    out = admissibility(e)
    assert len(sizes) <= math.ceil(math.log2(e.capacity - e.active + 1)) + 1
    assert sizes[0] == out["typical_first_deployment"]["cores"]


def test_a_deployment_named_like_the_probe_is_not_in_the_way() -> None:
    e = engine("second_moment", 2000, 0.05)
    assert e.admit(PROBE, 1, 0.0)["decision"] == "admitted"
    before = state(e)
    assert admissibility(e)["largest_first_deployment"] >= 1
    assert state(e) == before


def test_the_adapter_computes_it_once_per_event_applied() -> None:
    """/state reuses the figure until an event changes the engine (family.py); a dry run
    changes nothing, so it keeps it."""
    fam = MomentAdapter.build({"capacity_cores": 20_000, "sla": 1e-4,
                               "policy": {"kind": "second_moment", "threshold": 0.112}})
    empty = fam.admissible()
    assert fam.describe()["admissible"] == empty == admissibility(fam.engine)
    fam.admissible()["typical_first_deployment"]["cores"] = -1  # a caller's copy
    assert fam.admissible() == empty
    event = {"kind": "deployment", "deployment_id": "d", "cores": 400, "at": 1.0}
    fam.dry_run(event)
    assert fam.admissible() == empty
    assert fam.apply(event).decision == "admitted"
    now = fam.admissible()
    assert now == admissibility(fam.engine)
    assert now["largest_first_deployment"] < empty["largest_first_deployment"]
