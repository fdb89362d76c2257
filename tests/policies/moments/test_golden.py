"""Moment clusters decide what they decided when golden/declarations.json was written
(golden/make.py): every kind, every policy option with and without its default, and stored
declarations from before an option, each driven through a seeded event sequence. Rebuilt from
its declaration, and from a snapshot taken half-way, each cluster must give the same answers
and the same view (numbers to 1e-9: other CPUs round sums' last bits otherwise), and the
snapshot exactly the state of the engine that never stopped; a new declaration must still be
stored as it was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.api.schemas.moments import MomentClusterCreate
from app.families.moments import declare
from app.policies.moments.family import MomentAdapter
from tests.policies.moments.golden.make import apply, close

CASES = json.loads((Path(__file__).parent / "golden" / "declarations.json").read_text())["cases"]
IDS = [c["name"] for c in CASES]


def test_the_golden_cases_cover_every_kind_and_old_declarations() -> None:
    kinds = {c["spec"]["policy"]["kind"] for c in CASES}
    assert kinds == set(MomentAdapter.kinds)
    old = [c for c in CASES if c["request"] is None]
    assert {k for c in old for k in ("cautious_growth", "overflow_sd", "learn_prior")
            if k not in c["spec"]["policy"]}


@pytest.mark.parametrize("case", [c for c in CASES if c["request"] is not None], ids=lambda c: c["name"])
def test_a_new_declaration_is_stored_as_before(case: dict) -> None:
    assert declare(MomentClusterCreate(**case["request"])) == case["spec"]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_a_declaration_replays_its_answers_and_view(case: dict) -> None:
    family = MomentAdapter.build(case["spec"])
    for i, (event, answer) in enumerate(zip(case["events"], case["answers"], strict=True)):
        got = apply(family, event)
        assert close(got, answer), (i, event, got, answer)
    assert close(family.describe(), case["view"])


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_a_snapshot_half_way_replays_the_rest(case: dict) -> None:
    """Exactly, on this machine: the restored engine is the one that never stopped."""
    family = MomentAdapter.build(case["spec"])
    mid = case["mid"]
    for event in case["events"][:mid]:
        apply(family, event)
    restored = MomentAdapter.from_state(case["spec"], json.loads(json.dumps(family.to_state())))
    assert restored.to_state() == family.to_state()
    for event, answer in zip(case["events"][mid:], case["answers"][mid:], strict=True):
        got = apply(restored, event)
        assert got == apply(family, event) and close(got, answer)
    assert restored.to_state() == family.to_state()
    assert restored.describe() == family.describe() and close(restored.describe(), case["view"])
