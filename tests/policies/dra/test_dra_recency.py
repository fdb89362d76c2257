"""RecencyList (Definition 4's per-configuration indexes) against a plain list."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from app.policies.dra.recency import RecencyList


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 10**6)), max_size=400),
       st.integers(0, 40))
def test_recency_list_matches_a_list(ops, initial):
    model = list(range(initial))  # oldest first
    rl = RecencyList(list(model))
    fresh = initial
    for push, pick in ops:
        if push or not model:
            rl.push(fresh)
            model.append(fresh)
            fresh += 1
        else:
            s = model.pop(pick % len(model))
            rl.remove(s)
        assert len(rl) == len(model)
        assert rl.oldest_first() == model
        assert rl.newest() == (model[-1] if model else None)
        for at, s in enumerate(model):
            assert rl.index(s) == len(model) - at
