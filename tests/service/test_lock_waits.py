"""The per-cluster lock-wait figures: exact sums, bounded memory (least recent forgotten)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from app.service.lock_waits import LockWaits


@given(st.lists(st.tuples(st.sampled_from("abcdef"), st.floats(0, 10)), max_size=50))
def test_figures_are_those_of_the_recorded_waits(waits):
    book = LockWaits(max_clusters=3)
    for cid, s in waits:
        book.record(cid, s)
    # The model: waits per cluster since it last entered the book; a fourth cluster pushes
    # out the one waited for least recently, and its figures start again if it returns.
    model: dict[str, list[float]] = {}
    for cid, s in waits:
        model[cid] = model.pop(cid, []) + [s]
        if len(model) > 3:
            del model[next(iter(model))]
    for cid in "abcdef":
        view = book.view(cid)
        mine = model.get(cid)
        if mine is None:
            assert view["transactions"] == 0 and view["max_ms"] is None
            continue
        assert view["transactions"] == len(mine)
        assert abs(view["max_ms"] - 1000 * max(mine)) < 1e-9
        assert abs(view["last_ms"] - 1000 * mine[-1]) < 1e-9
        assert abs(view["mean_ms"] - 1000 * sum(mine) / len(mine)) < 1e-6
