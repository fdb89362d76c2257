"""The compiled moments (kernel.py) are formulas.py's, to rounding, on any belief the API admits."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from app.policies.moments import formulas, kernel
from app.policies.moments.formulas import Belief, Grid

gamma = st.tuples(st.floats(1e-3, 1e3), st.floats(1e-3, 1e5))
beliefs = st.builds(lambda lam, mu, sig: Belief(lam, mu, sig, 0.119, 0.673), gamma, gamma, gamma)
grids = st.sampled_from([Grid(steps=37), Grid((24.0, 8760.0), 120), Grid(steps=600), Grid((1.0,), 1)])


EPS = float(np.finfo(float).eps)


def close(x: np.ndarray, ref: np.ndarray, cores: list[int], variance: bool) -> bool:
    """Relative 1e-8 against the row's scale, plus an absolute allowance for a cancellation
    that both sides make, each rounding its own way: Var[B_n] = c(p1 − p2) + c²(p2 − p1²)
    when p2 ≈ p1² (hypothesis: 672 cores, μ ~ Γ(0.001, 86914), 1e-10 apart in 6.3e-4 cores²).
    (D_n's 1 − exp(t), which cancelled where exp(t) is near 1 — one core, μ ~ Γ(109, 55), the
    730 h row: 4% apart in 1.6e-15 expected cores — is −expm1(t) on both sides;
    test_accuracy.py holds both to 50-digit arithmetic.)
    Such absolute errors (1e-12 cores, 1e-10 cores² + ε c²) stay far below any number a
    decision reads (the marginal heuristic's 1e-5 cores is the smallest; the second moment
    compares summed variances with the free cores squared). An entry that is a difference of
    large terms (a variance near zero) is judged against its row, not against itself."""
    c = np.asarray(cores, dtype=float).reshape(-1, 1, 1)
    allowance = 1e-10 + 64 * EPS * c**2 if variance else 1e-12
    scale = np.abs(ref).max(axis=-1, keepdims=True)
    return bool(np.all(np.abs(x - ref) <= 1e-8 * scale + allowance))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 5000), beliefs), min_size=1, max_size=5), grids)
def test_the_compiled_moments_are_the_formulas(items, grid) -> None:  # type: ignore[no-untyped-def]
    cores, bs = [c for c, _ in items], [b for _, b in items]
    e, v = kernel.moments_batch(cores, bs, grid)
    e0, v0 = formulas.moments_batch(cores, bs, grid)
    assert e.shape == e0.shape == (len(items), *grid.shape)
    assert close(e, e0, cores, False) and close(v, v0, cores, True)
    e_only, zeros = kernel.moments_batch(cores, bs, grid, variance=False)
    assert np.array_equal(e_only, e) and not zeros.any()  # the first moment's path: same E
    for i, (c, b) in enumerate(items):  # a row does not depend on its batch
        e1, v1 = kernel.moments(c, b, grid)
        assert np.array_equal(e1, e[i]) and np.array_equal(v1, v[i])


def test_a_batch_with_two_populations_is_refused() -> None:
    b = Belief((1.0, 1.0), (1.0, 1.0), (1.0, 1.0), 0.119, 0.673)
    try:
        kernel.moments_batch([1, 1], [b, Belief(b.lam, b.mu, b.sig, 0.119, 0.5)], Grid(steps=5))
    except ValueError:
        return
    raise AssertionError("mixed ν accepted")


def test_the_kernel_works_where_numba_can_cache_nowhere(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The service image runs a read-only install as a user without a home: numba then
    refuses a cached function at import. The kernel compiles uncached instead."""
    import os
    import subprocess
    import sys

    blocker = tmp_path / "file"
    blocker.write_text("")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(blocker / "cache"),  # under a file: unwritable
           "NUMBA_CACHE_LOCATOR_CLASSES": "UserProvidedCacheLocator"}  # and nowhere else
    code = ("from app.policies.moments import kernel\n"
            "from app.policies.moments.formulas import Belief, Grid\n"
            "b = Belief((1.0, 1.0), (1.0, 1.0), (1.0, 1.0), 0.119, 0.673)\n"
            "print(float(kernel.moments(3, b, Grid(steps=5))[0].sum()))\n")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=300, check=False)
    assert out.returncode == 0, out.stderr
    b = Belief((1.0, 1.0), (1.0, 1.0), (1.0, 1.0), 0.119, 0.673)
    assert float(out.stdout) == float(kernel.moments(3, b, Grid(steps=5))[0].sum())


def test_moments_that_are_not_finite_name_their_deployment() -> None:
    """The kernel checks every moment it writes: a NaN or an infinity would poison the engine's
    totals for good (the engine turns this into a 422 naming the deployment or the prior)."""
    good = Belief((1.0, 1.0), (1.0, 1.0), (1.0, 1.0), 0.119, 0.673)
    bad = Belief((1.0, 1.0), (1.0, float("nan")), (1.0, 1.0), 0.119, 0.673)
    huge = Belief((1e152, 1.0), (1.0, 1.0), (1.0, 1.0), 0.119, 0.673)  # E[λ] = 1e152: Var overflows
    for beliefs, index in (([good, bad], 1), ([huge, good], 0)):
        try:
            kernel.moments_each([3, 3], beliefs, Grid(steps=20))
        except kernel.NotFinite as exc:
            assert exc.index == index
        else:
            raise AssertionError("non-finite moments accepted")
    assert len(kernel.moments_each([3], [good], Grid(steps=20))) == 1


def _with_d_one(cores: int, b: Belief, grid: Grid, d_one: float) -> tuple[np.ndarray, np.ndarray]:
    e, v = np.empty(grid.shape), np.empty(grid.shape)
    scratch = np.empty((11, 2 * grid.steps + 1))
    assert kernel._deployment(np.array(kernel._params(cores, b)), grid.step_sizes, grid.steps, True, e, v,
                              scratch, d_one)
    return e, v


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 20000), beliefs, grids)
def test_skipping_the_unit_factors_of_d_n_changes_no_bit(cores, b, grid) -> None:  # type: ignore[no-untyped-def]
    """The kernel stops taking D_n's logs and exponentials where its factors round to exactly
    1 (kernel.D_ONE); computing every factor (d_one = -inf) must give the same bits."""
    skipped = _with_d_one(cores, b, grid, kernel.D_ONE)
    every = _with_d_one(cores, b, grid, -np.inf)
    assert np.array_equal(skipped[0], every[0]) and np.array_equal(skipped[1], every[1])


def test_the_bit_check_has_teeth() -> None:
    """Skipping factors that are not 1 (a threshold of -1 instead of D_ONE) changes a young
    three-core deployment's moments, so the property above can fail."""
    from app.policies.moments.priors import (
        POPULATION_DELTA,
        POPULATION_NU,
        Prior,
        Stats,
        posterior,
    )

    b = posterior(Prior(), Stats(), POPULATION_DELTA, POPULATION_NU)
    grid = Grid()
    every = _with_d_one(3, b, grid, -np.inf)
    assert np.array_equal(_with_d_one(3, b, grid, kernel.D_ONE)[0], every[0])
    assert not np.array_equal(_with_d_one(3, b, grid, -1.0)[0], every[0])


finite = st.floats(-1e6, 1e6, allow_subnormal=True)


@settings(max_examples=60, deadline=None)
@given(st.lists(finite, min_size=24, max_size=24), st.booleans(), st.booleans())
def test_retotal_has_the_bits_of_numpys_in_place_updates(values, has_old, has_new) -> None:  # type: ignore[no-untyped-def]
    """The engine's totals are persisted verbatim and a restored engine must subtract the
    same bits, so the compiled replacement must round exactly as `tot -= old; tot += new`."""
    tot_e, tot_v, old_e, old_v, new_e, new_v = (np.array(values[i::6][:4]).reshape(2, 2) for i in range(6))
    want_e, want_v = tot_e.copy(), tot_v.copy()
    if has_old:
        want_e -= old_e
        want_v -= old_v
    if has_new:
        want_e += new_e
        want_v += new_v
    kernel.retotal(tot_e, tot_v, old_e, old_v, new_e, new_v, has_old, has_new)
    assert np.array_equal(tot_e, want_e) and np.array_equal(tot_v, want_v)
