"""Catch-up may follow a logged answer instead of deciding again (docs/architecture.md,
"Cheaper catch-up"): for every engine that claims it can (``follows_answers``), an engine that
followed another's answers is in the same state and makes the same future decisions."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.policies.base import PlacementEngine
from app.policies.model import ClusterModel, JobType, ServerPool
from app.policies.placement import PlacementAdapter
from app.policies.registry import PLACEMENT_ENGINES
from tests.policies.test_placement_invariants import clusters

FOLLOWERS = sorted(k for k, cls in PLACEMENT_ENGINES.items() if cls.follows_answers)

# (arrival?, job type draw, which running job departs)
STEPS = st.lists(st.tuples(st.booleans(), st.integers(0, 10), st.integers(0, 10)),
                 max_size=60)


def _pair(kind: str, model) -> tuple[PlacementAdapter, PlacementAdapter]:
    cls = PLACEMENT_ENGINES[kind]
    return (PlacementAdapter(cls(model, None, np.random.default_rng(1))),
            PlacementAdapter(cls(model, None, np.random.default_rng(1))))


def test_the_fit_baselines_follow_and_the_random_ones_do_not():
    assert FOLLOWERS == ["best_fit", "first_fit"]
    assert not PLACEMENT_ENGINES["power_of_d"].follows_answers
    assert not PLACEMENT_ENGINES["dra"].follows_answers


@pytest.mark.parametrize("kind", FOLLOWERS)
@settings(max_examples=60, deadline=None)
@given(model=clusters(), steps=STEPS)
def test_following_answers_gives_the_deciding_engine(kind, model, steps):
    decider, follower = _pair(kind, model)
    running: list[str] = []
    for n, (arrival, j, k) in enumerate(steps):
        if arrival or not running:
            event = {"kind": "arrival", "job_id": f"j{n}",
                     "job_type": model.job_types[j % model.num_types].name}
        else:
            event = {"kind": "departure", "job_id": running.pop(k % len(running))}
        answer = decider.apply(event).to_dict()
        if answer["decision"] == "placed":
            running.append(event["job_id"])
        assert follower.follow(event, answer) is True
        assert follower.to_state() == decider.to_state()
    assert follower.describe() == decider.describe()
    for t in model.job_types:  # the same next decision for every type
        assert follower.engine.decide_arrival(t.name).to_dict() == \
            decider.engine.decide_arrival(t.name).to_dict()


@pytest.mark.parametrize("kind", FOLLOWERS)
def test_an_answer_the_state_cannot_take_is_refused_unchanged(kind):
    model = ClusterModel(dimensions=("cpu",), pools=(ServerPool("p", 1, (1.0,)),),
                         job_types=(JobType("big", (1.0,), 1.0),))
    _, follower = _pair(kind, model)
    server = model.server_ids[0]
    follower.follow({"kind": "arrival", "job_id": "a", "job_type": "big"},
                    {"decision": "placed", "server_id": server})
    before = follower.to_state()
    for job, srv in (("b", server), ("a", server), ("c", "no-such-server")):
        with pytest.raises(ValueError):  # full, already there, unknown server
            follower.follow({"kind": "arrival", "job_id": job, "job_type": "big"},
                            {"decision": "placed", "server_id": srv})
    assert follower.to_state() == before


def test_an_engine_that_cannot_follow_says_so_and_changes_nothing():
    model = ClusterModel(dimensions=("cpu",), pools=(ServerPool("p", 2, (1.0,)),),
                         job_types=(JobType("t", (0.5,), 1.0),))
    engine: PlacementEngine = PLACEMENT_ENGINES["power_of_d"](model, None,
                                                               np.random.default_rng(3))
    family = PlacementAdapter(engine)
    before = family.to_state()
    assert family.follow({"kind": "arrival", "job_id": "a", "job_type": "t"},
                         {"decision": "placed", "server_id": model.server_ids[0]}) is False
    assert family.to_state() == before
