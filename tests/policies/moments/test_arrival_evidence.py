"""An arrival's size as one observation of its σ (MomentOptions(arrival_size_evidence=True))."""

from __future__ import annotations

import json

import pytest

from app.policies.moments import MomentEngine
from app.policies.moments.errors import InvalidPrior
from app.policies.moments.formulas import Grid
from app.policies.moments.options import MomentOptions
from app.policies.moments.priors import (
    POPULATION_SIG,
    Prior,
    Stats,
    declared_observations,
    posterior,
)

SMALL = Grid((24.0 * 30, 24.0), 60)


def test_an_arrival_is_sigma_evidence_only() -> None:
    plain = posterior(Prior(), Stats(scaleouts=3, scaleout_time=10, extra_cores=6), 0.1, 0.6)
    sized = posterior(Prior(), Stats(scaleouts=3, scaleout_time=10, extra_cores=6,
                                     sized_arrivals=1, arrival_extra_cores=9), 0.1, 0.6)
    assert sized.sig == (plain.sig[0] + 9, plain.sig[1] + 1)  # one more 1 + Pois(σ) draw: 10 cores
    assert (sized.lam, sized.mu) == (plain.lam, plain.mu)  # no scale-out clock, no lifetime


def test_without_the_option_the_posterior_is_the_papers_bit_for_bit() -> None:
    stats = Stats(scaleouts=2.5, extra_cores=0.1 + 0.2)
    b = posterior(Prior(), stats, 0.1, 0.6)
    assert b.sig == (POPULATION_SIG[0] + stats.extra_cores, POPULATION_SIG[1] + stats.scaleouts)


@pytest.mark.parametrize("name", ["sized_arrivals", "arrival_extra_cores"])
def test_clients_cannot_declare_what_the_engine_counts(name: str) -> None:
    with pytest.raises(InvalidPrior, match="unknown statistics"):
        declared_observations({name: 1.0})


def _sigma_mean(e: MomentEngine, dep: str) -> float:
    return e.deployment_view(dep)["posterior"]["sigma"]["mean"]


def test_small_arrivals_look_smaller_and_big_ones_bigger() -> None:
    plain = MomentEngine(MomentOptions(100_000, "first_moment", threshold=1e9, grid=SMALL))
    sized = MomentEngine(MomentOptions(100_000, "first_moment", threshold=1e9, grid=SMALL, arrival_size_evidence=True))
    for e in (plain, sized):
        e.admit("one", 1, 0.0)
        e.admit("eighty", 80, 0.0)
    prior_mean = POPULATION_SIG[0] / POPULATION_SIG[1]
    assert _sigma_mean(plain, "one") == pytest.approx(prior_mean) == _sigma_mean(plain, "eighty")
    assert _sigma_mean(sized, "one") == pytest.approx(POPULATION_SIG[0] / (POPULATION_SIG[1] + 1))
    assert _sigma_mean(sized, "eighty") == pytest.approx((POPULATION_SIG[0] + 79) / (POPULATION_SIG[1] + 1))
    stats = sized.deployment_view("eighty")["statistics"]
    assert (stats["sized_arrivals"], stats["arrival_extra_cores"], stats["scaleouts"]) == (1, 79, 0)
    assert sized.describe()["arrival_size_evidence"] is True and plain.describe()["arrival_size_evidence"] is False


def test_it_changes_first_moment_decisions_both_ways() -> None:
    """At one t the engine that counts sizes admits more 1-core arrivals (their growth is
    expected smaller) and refuses a 20-core one that the plain engine admits (σ ~ 19)."""
    def fill(sized: bool) -> tuple[int, str]:
        e = MomentEngine(MomentOptions(100_000, "first_moment", threshold=60.0, grid=SMALL, arrival_size_evidence=sized))
        ones = 0
        while e.admit(f"d{ones}", 1, 0.0)["decision"] == "admitted":
            ones += 1
        fresh = MomentEngine(MomentOptions(100_000, "first_moment", threshold=60.0, grid=SMALL, arrival_size_evidence=sized))
        return ones, fresh.admit("big", 20, 0.0)["decision"]

    plain_ones, plain_big = fill(False)
    sized_ones, sized_big = fill(True)
    assert sized_ones > 2 * plain_ones > 0
    assert (plain_big, sized_big) == ("admitted", "rejected")


def test_states_from_before_the_option_load_without_it() -> None:
    e = MomentEngine(MomentOptions(100, "second_moment", threshold=0.2, grid=SMALL))
    e.admit("a", 3, 0.0)
    state = json.loads(json.dumps(e.to_state()))
    del state["config"]["arrival_size_evidence"]
    for row in state["deployments"]:  # rows written before the two statistics existed
        for stats in (row["stats"], row["cached"][1]):
            del stats["sized_arrivals"], stats["arrival_extra_cores"]
    restored = MomentEngine.from_state(state)
    assert restored.arrival_size_evidence is False
    assert restored.admit("b", 2, 1.0) == e.admit("b", 2, 1.0)
