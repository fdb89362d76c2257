"""The toy's pure engine: tokens taken and given back, each holder's count kept."""

from __future__ import annotations

from typing import Any

from app.errors import ErrorCode, define
from app.policies.errors import PolicyError

# The toy's own code, added to the table before its class names it.
define(ErrorCode("toy_unknown_holder", 404, "No such holder",
                 "The toy pool holds no tokens for this holder."))


class UnknownHolder(PolicyError):
    code = "toy_unknown_holder"


class TokenPool:
    def __init__(self, capacity: int, partial: bool):
        self.capacity, self.partial = capacity, partial
        self.held: dict[str, int] = {}

    @property
    def used(self) -> int:
        return sum(self.held.values())

    def take(self, holder: str, tokens: int) -> dict[str, Any]:
        free = self.capacity - self.used
        granted = tokens if tokens <= free else (free if self.partial else 0)
        if granted:
            self.held[holder] = self.held.get(holder, 0) + granted
        return {"decision": "granted" if granted else "refused", "granted": granted,
                "free": self.capacity - self.used,
                "reason": "fits" if granted == tokens else "not_enough_tokens"}

    def give(self, holder: str, tokens: int) -> dict[str, Any]:
        if holder not in self.held:
            raise UnknownHolder(f"{holder!r} holds no tokens")
        returned = min(tokens, self.held[holder])
        self.held[holder] -= returned
        if not self.held[holder]:
            del self.held[holder]
        return {"decision": "returned", "granted": -returned, "free": self.capacity - self.used,
                "reason": "returned"}

    def to_state(self) -> dict[str, Any]:
        return {"capacity": self.capacity, "partial": self.partial, "held": dict(self.held)}

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> TokenPool:
        pool = cls(state["capacity"], state["partial"])
        pool.held = dict(state["held"])
        return pool


# The toy's kinds, listed once: whether each grants part of a request.
TOY_KINDS = {"toy_counter": False, "toy_partial": True}
