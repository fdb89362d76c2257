"""The toy engine as the service drives it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self

from app.policies.protocol import Answer, Event, Gauges, PolicyAdapter, Spec
from tests.plugins.toy.engine import TOY_KINDS, TokenPool


class ToyAdapter(PolicyAdapter[TokenPool]):
    kinds = tuple(TOY_KINDS)
    event_kinds = frozenset({"take", "give"})

    @classmethod
    def build(cls, spec: Spec) -> Self:
        return cls(TokenPool(spec["capacity"], TOY_KINDS[spec["policy"]["kind"]]))

    @classmethod
    def from_state(cls, spec: Spec, state: Mapping[str, Any]) -> Self:
        return cls(TokenPool.from_state(dict(state)))

    def apply(self, event: Event) -> Answer:
        act = self.engine.take if event["kind"] == "take" else self.engine.give
        return Answer.of(act(event["holder"], event["tokens"]))

    def describe(self) -> dict[str, Any]:
        return {"policy": "toy_partial" if self.engine.partial else "toy_counter",
                "capacity": self.engine.capacity, "used": self.engine.used,
                "holders": len(self.engine.held)}

    def to_state(self) -> dict[str, Any]:
        return self.engine.to_state()

    def gauges(self, answer: Mapping[str, Any]) -> Gauges:
        return {"toy_free_tokens": answer["free"]}  # not a gauge Headroom defines: dropped
