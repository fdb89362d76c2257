"""The population-prior estimator (app/policies/moments/learning.py) on synthetic evidence."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from app.policies.moments.learning import LR_CRITICAL, _choose, log_likelihood, ml_rate


def negative_binomial(rng: np.random.Generator, shape: float, rate: float, n: int
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Counts k_i ~ Pois(θ_i X_i) with θ_i ~ Gamma(shape, rate), exposures spread widely."""
    x = rng.exponential(500.0, n)
    theta = rng.gamma(shape, 1.0 / rate, n)
    return rng.poisson(theta * x).astype(float), x


def test_ml_rate_recovers_the_rate_that_generated_the_counts() -> None:
    rng = np.random.default_rng(7)
    for shape, rate in ((0.4907, 0.4496 * 200), (0.3107, 0.5778 * 300), (2.0, 50.0)):
        k, x = negative_binomial(rng, shape, rate, 20000)
        est = ml_rate(shape, k, x)
        assert abs(math.log(est / rate)) < 0.08, (shape, rate, est)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 50), st.floats(1e-3, 1e5)), min_size=1, max_size=40),
       st.floats(0.05, 5.0))
def test_ml_rate_maximises_the_likelihood(rows, shape) -> None:  # type: ignore[no-untyped-def]
    k = np.array([r[0] for r in rows], dtype=float)
    x = np.array([r[1] for r in rows])
    est = ml_rate(shape, k, x)
    if k.sum() == 0:
        assert est == math.inf  # nothing happened: the rate's mean is 0
        return
    best = log_likelihood(shape, est, k, x)
    for factor in (0.9, 0.99, 1.01, 1.1):
        assert best >= log_likelihood(shape, est * factor, k, x) - 1e-9 * (1 + abs(best))


def test_ml_rate_at_the_edges() -> None:
    # Events over no exposure at all: the likelihood rises as the rate falls to 0.
    assert ml_rate(1.0, np.array([1.0]), np.array([0.0])) == 0.0
    assert ml_rate(1.0, np.zeros(3), np.ones(3)) == math.inf


def test_a_prior_moves_only_on_clear_evidence() -> None:
    rng = np.random.default_rng(3)
    shape, rate = 0.4907, 0.4496 * 100
    k, x = negative_binomial(rng, shape, rate, 2000)
    # Data from the declared prior: it stays (and the statistic is small).
    kept, lr = _choose(shape, rate, rate, k, x)
    assert kept == rate and lr < LR_CRITICAL
    # Data whose mean is 3x the declared one: the rate falls to the point estimate.
    k3, x3 = negative_binomial(rng, shape, rate / 3, 2000)
    moved, lr = _choose(shape, rate, rate, k3, x3, demand=+1)
    assert lr > LR_CRITICAL and moved == ml_rate(shape, k3, x3) and 2.4 < rate / moved < 3.8
    # A value within ×1.1 of the one in use is not worth recomputing the cluster for.
    assert _choose(shape, moved * 1.05, rate, k3, x3, demand=+1)[0] == moved * 1.05
    # A third of the declared mean: clear evidence, but it would make the cluster less
    # careful than the operator declared, so a λ-like prior stays; a μ-like one (deaths) moves.
    k_low, x_low = negative_binomial(rng, shape, rate * 3, 2000)
    stay, lr = _choose(shape, rate, rate, k_low, x_low, demand=+1)
    assert lr > LR_CRITICAL and stay == rate
    assert _choose(shape, rate, rate, k_low, x_low, demand=-1)[0] > rate * 2
    # ... and a prior raised earlier comes back down to the declared one, not below.
    assert _choose(shape, rate / 3, rate, k_low, x_low, demand=+1)[0] == rate


def test_a_second_adoption_queues_each_deployment_once(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Two priors adopted before the first one's recomputes are done: every live deployment on
    the population prior waits once, for the newest prior, and the queue drains to empty."""
    from app.policies.moments import MomentEngine
    from app.policies.moments.options import MomentOptions
    from app.policies.moments.priors import Prior

    eng = MomentEngine(MomentOptions(2000, "first_moment", threshold=1500.0, learn=True))
    for i in range(12):
        assert eng.admit(f"d{i}", 2, at=float(i))["decision"] == "admitted"
    learner = eng.learner
    assert learner is not None
    priors = iter([Prior(lam=(0.4907, 0.4496 / 2)), Prior(lam=(0.4907, 0.4496 / 3))])
    monkeypatch.setattr(type(learner), "due", lambda self, at: True)
    monkeypatch.setattr(type(learner), "estimate", lambda self, live, at, delta, nu: next(priors, None))
    monkeypatch.setattr("app.policies.moments.engine.REPRIOR_PER_ADMIT", 2)
    eng.admit("x0", 1, at=20.0)  # first adoption: 12 + x0 wait, 2 of them recomputed next time
    waiting = list(eng._reprior)
    eng.admit("x1", 1, at=21.0)  # the second, with deployments still waiting from the first
    assert waiting and len(eng._reprior) == len(set(eng._reprior))
    assert set(eng._reprior) == {d.id for d in eng.deployments.values() if d.alive and d.population}
    assert all(d.prior.lam[1] == 0.4496 / 3 for d in eng.deployments.values() if d.population)
    for t in range(30):
        eng.admit(f"y{t}", 1, at=22.0 + t)
    assert not eng._reprior


def test_a_cautious_start_holds_its_growth_until_the_evidence_tells() -> None:
    """learning.PopulationLearner._hold: λ × 2 is believed from the start and held while the
    evidence cannot tell × 1 from × 2; it ends, handing over to the ordinary rule, when the
    evidence rejects × 2 for slower growth; when it rejects the declared prior for faster
    growth instead, × 2 stays as a floor under the learnt rate until rejected for slower."""
    from app.policies.moments.learning import PopulationLearner
    from app.policies.moments.priors import Prior

    rng = np.random.default_rng(11)
    declared = Prior()
    shape, rate = declared.lam
    held = rate / 2

    def step(learner: PopulationLearner, truth_rate: float, n: int
             ) -> tuple[float, float, str | None]:
        k, x = negative_binomial(rng, shape, truth_rate, n)
        ordinary, lr = _choose(shape, learner.prior.lam[1], rate, k, x, demand=+1)  # as estimate()
        return ordinary, *learner._hold(ordinary, lr, k, x)

    def hold(truth_rate: float, n: int) -> tuple[PopulationLearner, float, float, str | None]:
        learner = PopulationLearner(declared)
        start = learner.start_cautious(2.0)
        assert start.lam == (shape, held) and start.mu == declared.mu and learner.prior == start
        assert learner.assumed
        return learner, *step(learner, truth_rate, n)

    # Too little evidence to tell × 1 from × 2: held, whatever the ordinary rule chose.
    learner, ordinary, used, ended = hold(rate, 5)
    assert (used, ended) == (held, None) and learner.cautious == 2.0 and ordinary == rate
    assert learner.assumed
    # Deployments that grow as declared: ended (slower), the ordinary rule's declared rate.
    learner, ordinary, used, ended = hold(rate, 3000)
    assert (used, ended) == (rate, "slower") and learner.cautious is None
    assert learner.last_lr["lambda_cautious"] > LR_CRITICAL and not learner.assumed
    # Deployments that grow × 4: faster confirmed, at the ordinary rule's point estimate (more
    # demand than the floor), and the floor stays.
    learner, ordinary, used, ended = hold(rate / 4, 3000)
    assert ended == "faster" and used == ordinary and 3.0 < rate / used < 5.3
    assert learner.cautious == 2.0 and learner.confirmed_faster and not learner.assumed
    # Deployments that grow × 2: faster confirmed, at the rate held (the floor), and the same
    # evidence again says nothing new.
    learner, ordinary, used, ended = hold(held, 3000)
    assert ended == "faster" and used == held and learner.last_lr["lambda_cautious"] < LR_CRITICAL
    assert step(learner, held, 3000)[1:] == (held, None) and learner.confirmed_faster
    # Confirmed faster, then evidence of × 1.2 (an undershooting point estimate looks so):
    # a point estimate below × 2 is not followed while × 2 is not rejected ...
    _, used, ended = step(learner, rate / 1.6, 300)
    assert (used, ended) == (held, None) and learner.last_lr["lambda_cautious"] < LR_CRITICAL
    # ... and when it is, the floor goes (slower), to the ordinary rule's rate.
    ordinary, used, ended = step(learner, rate / 1.2, 5000)
    assert ended == "slower" and used == ordinary and 1.0 < rate / used < 1.5
    assert learner.cautious is None and not learner.confirmed_faster
    # The held factor and the phase are state: a learner rebuilt from its dict holds the same;
    # a state from before the floor (no key) is unconfirmed.
    again = PopulationLearner(declared)
    again.start_cautious(2.0)
    assert PopulationLearner.from_dict(again.to_dict()).cautious == 2.0
    assert PopulationLearner.from_dict(learner.to_dict()).cautious is None
    floor, *_ = hold(held, 3000)
    rebuilt = PopulationLearner.from_dict(floor.to_dict())
    assert (rebuilt.cautious, rebuilt.confirmed_faster) == (2.0, True)
    old = floor.to_dict()
    del old["confirmed_faster"]
    assert PopulationLearner.from_dict(old).confirmed_faster is False


def test_growth_calibration_counts_longer_lived_cores_as_beyond_any_step() -> None:
    """engine.growth_calibration: the learner moves μ only towards longer lives, and no step
    was calibrated for those, so a learnt lifetime × 2 is past the calibration whatever the
    ladder holds; λ within the ladder's steps is not."""
    from app.policies.moments import MomentEngine
    from app.policies.moments.options import MomentOptions
    from app.policies.moments.priors import Prior

    eng = MomentEngine(MomentOptions(2000, "second_moment", 0.05, learn=True,
                       ladder=((1.0, 0.05), (2.0, 0.1))))
    dec = eng.learner.declared
    eng.learner.learnt = Prior((dec.lam[0], dec.lam[1] / 2), dec.mu, dec.sig)  # λ × 2: a step
    within = eng.growth_calibration()
    assert within["learnt_lambda_factor"] == 2.0 and within["ratio"] == 1.0
    assert not within["beyond_calibration"]
    eng.learner.learnt = Prior((dec.lam[0], dec.lam[1] / 2), (dec.mu[0], dec.mu[1] * 2), dec.sig)
    longer = eng.growth_calibration()
    assert longer["learnt_mu_factor"] == 0.5 and longer["ratio"] == 2.0
    assert longer["beyond_calibration"]
    eng.learner.learnt = Prior((dec.lam[0], dec.lam[1] / 3), dec.mu, dec.sig)  # λ × 3
    assert eng.growth_calibration()["ratio"] == 1.5
