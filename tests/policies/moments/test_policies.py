"""The admission rules' compiled scan (policies._scan) decides as the numpy expressions it
replaced, kept here as the reference: same admission, reason, worst step and bound."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from app.policies.moments import policies
from app.policies.moments.policies import MARGINAL, Verdict


def reference(ok: np.ndarray, total_e: np.ndarray, bound: np.ndarray, own_e: np.ndarray, marginal: bool,
              why: str) -> Verdict:
    passes = ok | (own_e < MARGINAL) if marginal else ok
    rescued = bool(marginal and np.any(~ok & passes))
    score = bound if passes.all() else np.where(passes, -np.inf, bound)
    r, s = np.unravel_index(int(np.argmax(score)), score.shape)
    admitted = bool(passes.all())
    reason = ("admitted_marginal" if rescued else "within_bound") if admitted else why
    return Verdict(admitted, reason, (int(r), int(s)), float(total_e[r, s]), float(bound[r, s]), rescued)


def reference_first(total_e, own_e, t, capacity, marginal):  # type: ignore[no-untyped-def]
    return reference(total_e <= t, total_e, total_e / capacity, own_e, marginal, "expected_cores_over_threshold")


def reference_second(total_e, total_v, own_e, rho, capacity, marginal):  # type: ignore[no-untyped-def]
    slack = capacity - total_e
    with np.errstate(divide="ignore", invalid="ignore"):
        bound = np.where(slack > 0, total_v / (total_v + slack**2), 1.0)
    bound = np.nan_to_num(bound, nan=0.0)
    ok = (slack >= 0) & (bound <= rho)
    return reference(ok, total_e, bound, own_e, marginal, "overflow_bound_exceeded")


CAPACITY = 1000.0
# Values that meet every edge: exactly the capacity (slack 0), no variance (0/0 where nothing
# is free), ties between steps, marginal arrivals just either side of 1e-5.
e_values = st.one_of(st.sampled_from([0.0, 500.0, CAPACITY, CAPACITY + 1.0]), st.floats(0.0, 2 * CAPACITY))
v_values = st.one_of(st.sampled_from([0.0, 1.0, 1e6]), st.floats(0.0, 1e7))
own_values = st.one_of(st.sampled_from([0.0, MARGINAL / 2, MARGINAL, 1.0]), st.floats(0.0, 50.0))


@st.composite
def grids(draw):  # type: ignore[no-untyped-def]
    rows, steps = draw(st.integers(1, 3)), draw(st.integers(1, 6))
    def arr(values):  # type: ignore[no-untyped-def]
        return np.array(draw(st.lists(values, min_size=rows * steps, max_size=rows * steps))).reshape(rows, steps)
    return arr(e_values), arr(v_values), arr(own_values)


@settings(max_examples=400, deadline=None)
@given(grids(), st.sampled_from([0.0, 0.05, 0.112, 1.0]), st.sampled_from([0.0, 500.0, CAPACITY]), st.booleans())
def test_the_compiled_rules_decide_as_the_numpy_ones(g, rho, t, marginal) -> None:  # type: ignore[no-untyped-def]
    e, v, own = g
    assert policies.second_moment(e, v, own, rho, CAPACITY, marginal) == reference_second(e, v, own, rho, CAPACITY,
                                                                                           marginal)
    assert policies.first_moment(e, own, t, CAPACITY, marginal) == reference_first(e, own, t, CAPACITY, marginal)


def test_the_worst_step_is_the_failing_one_with_the_largest_bound() -> None:
    e = np.array([[100.0, 990.0, 900.0], [10.0, 20.0, 30.0]])
    v = np.array([[1.0, 1e9, 1.0], [0.0, 0.0, 0.0]])
    own = np.full(e.shape, 1.0)
    verdict = policies.second_moment(e, v, own, 0.1, CAPACITY, True)
    assert not verdict.admitted and verdict.reason == "overflow_bound_exceeded" and verdict.worst == (0, 1)
    own[0, 1] = 0.0  # the failing step is marginal for this arrival: rescued
    verdict = policies.second_moment(e, v, own, 0.1, CAPACITY, True)
    assert verdict.admitted and verdict.reason == "admitted_marginal" and verdict.marginal


def test_nothing_free_and_no_variance_is_a_bound_of_zero_as_before() -> None:
    """0 / 0 where the free cores' square underflows: numpy's nan_to_num made it 0; the
    compiled scan must not raise (numba's default error model would) and must agree."""
    e, v, own = np.zeros((1, 2)), np.zeros((1, 2)), np.ones((1, 2))
    got = policies.second_moment(e, v, own, 0.1, 1e-170, False)
    assert got == reference_second(e, v, own, 0.1, 1e-170, False) and got.bound == 0.0 and got.admitted
