"""The vectorised moment computation makes exactly the decisions the per-deployment one made.

reference_formulas.py is formulas.py as it was before moments_batch (kept frozen here as the
oracle), with the only changes formulas.py's expressions have had since, all for accuracy
(tests/policies/moments/test_accuracy.py): the survival powers from log1p,
D_n's factors from expm1, the Gamma ratios from formulas.log_gamma_ratio; golden_decisions.json holds two seeded lives' full admission sequences recorded with
the engine before the change.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from app.policies.moments import MomentEngine
from app.policies.moments.formulas import Belief, Grid, moments, moments_batch
from app.policies.moments.options import MomentOptions
from app.sim.moments.simulator import simulate
from tests.policies.moments import reference_formulas as ref

pos = st.floats(0.05, 500.0)
beliefs = st.builds(
    lambda la, lb, ma, mb, sa, sb: Belief((la, lb), (ma, mb), (sa, sb), 0.119, 0.673),
    pos, pos, pos, st.floats(0.05, 1e5), pos, pos)


def ulps(x: np.ndarray, ref: np.ndarray) -> float:
    """The largest difference in units of the last place of the reference."""
    gap = np.spacing(np.maximum(np.abs(ref), np.finfo(float).tiny))
    return float((np.abs(x - ref) / gap).max(initial=0.0))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 400), beliefs), min_size=1, max_size=6),
       st.sampled_from([Grid(steps=37), Grid((24.0, 8760.0), 120)]))
def test_batch_rows_are_the_reference_to_a_few_ulps(items, grid) -> None:  # type: ignore[no-untyped-def]
    e, v = moments_batch([c for c, _ in items], [b for _, b in items], grid)
    for i, (c, b) in enumerate(items):
        e0, v0 = ref.moments(c, ref.Belief(b.lam, b.mu, b.sig, b.delta, b.nu), ref.Grid(grid.horizons, grid.steps))
        # Not bit for bit: numpy's SIMD loops may round an entry one ulp apart between the
        # batch's (k, rows, n) arrays and the reference's (rows, n) (seen on 4 entries of
        # μ ~ Γ(1, 1.05) at 24 h / 1 year × 120, under numpy 2.3.5 and 2.4.6 alike; 7 ulps
        # on a machine with AVX-512 FP16 at μ ~ Γ(2, 1.05), 24 h × 37 steps: a running sum,
        # rounded in another order). The engine decides with kernel.py, not with this; golden_decisions below
        # pins whole lives' decisions.
        assert ulps(e[i], e0) <= 16 and ulps(v[i], v0) <= 16
        e1, v1 = moments(c, b, grid)  # and alone, as the engine's newcomer path computes it
        assert ulps(e1, e0) <= 16 and ulps(v1, v0) <= 16
    e_only, zeros = moments_batch([c for c, _ in items], [b for _, b in items], grid, variance=False)
    assert np.array_equal(e_only, e) and not zeros.any()  # the first moment's path: same E


def test_seeded_lives_make_the_recorded_decisions() -> None:
    golden = json.loads((Path(__file__).parent / "golden_decisions.json").read_text())["lives"]
    for key, want in golden.items():
        policy, obs = key.split("/")
        eng = MomentEngine(MomentOptions(400, policy, None if policy == "first_moment" else 0.6, True, Grid(steps=600)))
        seen: list[str] = []
        admit = eng.admit

        def recording(*a, **k):  # type: ignore[no-untyped-def]
            out = admit(*a, **k)
            seen.append(out["decision"][0])
            return out

        eng.admit = recording  # type: ignore[method-assign]
        res = simulate(policy, 400, 1.5, 0.03, int(obs), 7, threshold=eng.threshold, steps=600, engine=eng)
        assert "".join(seen) == want["decisions"], key
        assert res["utilization"] == want["utilization"]
        assert "a" in want["decisions"] and "r" in want["decisions"]  # the life tests both branches
