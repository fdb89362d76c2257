"""The one contract between the service and a policy family's engine.

Each family (placement, queues, moment admission, reservation streams) has one adapter class
in its own package that implements ``PolicyAdapter`` around its pure engine (``adapter.engine``,
which only the adapter touches), so the service drives all of them the same way:

- ``build(spec)`` / ``from_state(spec, state)``: everything the engine needs comes from the
  stored declaration (policy parameters, seed, clock mode, SLA...); nothing is set on an
  engine from outside afterwards;
- ``apply(event)`` decides and returns a typed ``Decision`` (``to_dict()`` is what the log
  keeps and the API answers; the service never edits it);
- ``dry_run(event)`` decides without mutating anything (random state included), or raises
  ``NoDryRun``;
- ``describe()`` and ``to_state()``: the state view and the snapshot;
- ``gauges(answer)``: its per-cluster metrics after a decision.

What some families offer beyond this (servers, jobs, deployments, a clock) are the
capabilities in ``capabilities.py``, which an adapter inherits.

Refusals are ``PolicyError``s (``app/policies/errors.py``) raised before anything changed.
"""

from __future__ import annotations

import heapq
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Protocol, Self, TypeVar

from app.policies.errors import NoDryRun


class Decision(Protocol):
    """What an event decided: ``to_dict()["decision"]`` is the word the log indexes."""

    def to_dict(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Answer:
    """A decision of an engine whose answers are plain records (queues, moment admission):
    ``decision`` is the word, ``fields`` the rest as the engine reported it."""

    decision: str
    fields: Mapping[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"decision": self.decision, **self.fields}

    @classmethod
    def of(cls, record: Mapping[str, Any]) -> Answer:
        return cls(record["decision"], {k: v for k, v in record.items() if k != "decision"})


Event = Mapping[str, Any]
Spec = Mapping[str, Any]
EngineT = TypeVar("EngineT")
# Per-cluster gauges by name (``app/metrics.py``): a value, or values by resource.
Gauges = Mapping[str, float | Mapping[str, float]]


def first_ids(ids: Iterable[str], after: str | None, limit: int) -> list[str]:
    """The ``limit`` smallest job ids greater than ``after``, in order: one pass and a small
    heap, not a sort of every id, since a page is read under the cluster's lock."""
    return heapq.nsmallest(limit, ids if after is None else (i for i in ids if i > after))


class PolicyAdapter(ABC, Generic[EngineT]):
    """A family's pure engine (``self.engine``) as the service drives it."""

    # Policy kinds this family serves, by the name a declaration gives in ``policy.kind``:
    # taken from the engine package's own registry, so the kinds are listed once.
    kinds: ClassVar[tuple[str, ...]]
    # The events ``apply`` takes (their ``kind``).
    event_kinds: ClassVar[frozenset[str]]

    def __init__(self, engine: EngineT):
        self.engine = engine

    @classmethod
    @abstractmethod
    def build(cls, spec: Spec) -> Self:
        """A fresh engine for a declaration; refuses a bad one with a ``PolicyError`` or a
        ``ValueError`` naming what is wrong."""

    @classmethod
    @abstractmethod
    def from_state(cls, spec: Spec, state: Mapping[str, Any]) -> Self:
        """The engine ``to_state()`` saved, making exactly the same future decisions."""

    @abstractmethod
    def apply(self, event: Event) -> Decision:
        """Decide ``event`` and change the state accordingly (refusals change nothing)."""

    def follow(self, event: Event, answer: Mapping[str, Any]) -> bool:
        """Make the change the logged ``answer`` to ``event`` made, without deciding again, and
        return True; or change nothing and return False when this family cannot (its answers
        do not determine the whole change: random draws, internal clocks). Catch-up uses it
        for events it does not verify (docs/architecture.md); a logged answer the state
        cannot take (a job placed where it does not fit) raises ``ValueError``."""
        return False

    def dry_run(self, event: Event) -> Decision:
        """What ``apply`` would decide, changing nothing."""
        raise NoDryRun(f"{event.get('kind')} events cannot be dry-run")

    @abstractmethod
    def describe(self) -> dict[str, Any]:
        """The state view (``GET .../state``)."""

    @abstractmethod
    def to_state(self) -> dict[str, Any]:
        """JSON-able state for a snapshot."""

    def gauges(self, answer: Mapping[str, Any]) -> Gauges:
        """The cluster's gauges after a committed decision whose answer was ``answer``; only
        those whose value is known (none by default)."""
        return {}
