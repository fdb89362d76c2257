"""What every reservation policy (THOR and its baselines) shares: one stream of periods.

A stream reserves I resources period after period (paper §II): before period t it holds a
reservation x^t; ``observe(t, λ^t)`` reports the demand of period t, which is judged against
x^t (violation ⇔ λ > x), and returns the reservation for the next period. Engines are pure:
no clock, no I/O, no random state, so the same observations give the same decisions.

Contract the service relies on (same as the placement engines'):
- ``observe`` validates everything first and raises ``ReservationError`` (a ``ValueError``
  naming the offending field) before mutating anything;
- ``to_state``/``from_state`` round-trip through JSON-able data, and the restored stream makes
  exactly the same future decisions (floats survive ``json`` exactly).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from app.policies.thor.errors import ReservationError

STATE_VERSION = 1
MAX_VALUE = 1e18  # beyond this squares stop being safe in float arithmetic; no real demand is




def check_number(value: Any, name: str, *, lo: float = 0.0, hi: float = MAX_VALUE,
                 lo_open: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ReservationError(name, f"must be a number, got {type(value).__name__}")
    v = float(value)
    if not math.isfinite(v):
        raise ReservationError(name, "must be finite")
    if v < lo or (lo_open and v == lo) or v > hi:
        low = "(" if lo_open else "["
        raise ReservationError(name, f"must be in {low}{lo:g}, {hi:g}], got {v!r}")
    return v


@dataclass(frozen=True)
class ResourceSpec:
    """One reserved resource: its name, cost c_i per unit and violation budget ε_i."""

    name: str
    cost: float = 1.0
    epsilon: float = 0.1
    initial: float | None = None  # x^0; None: nothing reserved before the first period

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ReservationError("resources.name", "must be a non-empty string")
        check_number(self.cost, f"resources.{self.name}.cost", lo=0.0, lo_open=True)
        # Below 1e-6 a violation budget means nothing over any realistic number of periods,
        # and quantile functions lose precision (scipy refuses ε = 5e-324 outright).
        check_number(self.epsilon, f"resources.{self.name}.epsilon", lo=1e-6, hi=1.0)
        if self.epsilon >= 1.0:
            raise ReservationError(f"resources.{self.name}.epsilon", "must be below 1")
        if self.initial is not None:
            check_number(self.initial, f"resources.{self.name}.initial")

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "cost": float(self.cost), "epsilon": float(self.epsilon),
                "initial": None if self.initial is None else float(self.initial)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ResourceSpec:
        unknown = set(d) - {"name", "cost", "epsilon", "initial"}
        if unknown:
            raise ReservationError("resources", f"unknown keys {sorted(unknown)}")
        return cls(**dict(d))


@dataclass
class ReservationDecision:
    """What one ``observe`` did. Dicts are keyed by resource name."""

    period: int
    reserved: dict[str, float]          # x^t, the reservation the demand was judged against
    demand: dict[str, float]            # λ^t
    violated: dict[str, bool]           # λ^t > x^t
    next_reservation: dict[str, float]  # x^{t+1}
    violation_rate: dict[str, float]    # violations / periods so far, this one included
    queue: dict[str, float] = field(default_factory=dict)  # THOR's Q_i(t+1); empty otherwise
    details: dict[str, dict[str, float]] = field(default_factory=dict)  # numbers behind it

    def to_dict(self) -> dict[str, Any]:
        return {"period": self.period, "reserved": self.reserved, "demand": self.demand,
                "violated": self.violated, "next_reservation": self.next_reservation,
                "violation_rate": self.violation_rate, "queue": self.queue,
                "details": self.details}


def parse_resources(resources: Sequence[ResourceSpec | Mapping[str, Any]]
                    ) -> tuple[ResourceSpec, ...]:
    specs = tuple(r if isinstance(r, ResourceSpec) else ResourceSpec.from_dict(r)
                  for r in resources)
    if not specs:
        raise ReservationError("resources", "at least one resource is needed")
    names = [s.name for s in specs]
    if len(set(names)) != len(names):
        raise ReservationError("resources", f"duplicate resource names in {names}")
    return specs


class ReservationStream(ABC):
    """Bookkeeping shared by every policy: validation, periods, violation counts, state."""

    kind: ClassVar[str]

    def __init__(self, resources: Sequence[ResourceSpec | Mapping[str, Any]]):
        self.resources = parse_resources(resources)
        self.names = tuple(s.name for s in self.resources)
        self.last_period: int | None = None
        self.periods = 0
        self.violations = [0] * len(self.resources)
        # Σ_t c_i x_i^t: what the reservations held so far cost, per resource.
        self.spent = [0.0] * len(self.resources)
        # x in force for the next period; None until something has been reserved.
        self._x: list[float | None] = [s.initial for s in self.resources]

    # -- the decision -------------------------------------------------------------------------
    def observe(self, period: int, demand: Mapping[str, Any]) -> ReservationDecision:
        values = self._validate(period, demand)
        reserved = [0.0 if x is None else x for x in self._x]
        violated = [lam > x for lam, x in zip(values, reserved)]
        nxt, queue, details = self._advance(values)
        self.last_period = period
        self.periods += 1
        for i, v in enumerate(violated):
            if v:
                self.violations[i] += 1
            self.spent[i] += self.resources[i].cost * reserved[i]
        self._x = list(nxt)
        names = self.names
        n = self.periods
        return ReservationDecision(
            period=period, reserved=dict(zip(names, reserved)), demand=dict(zip(names, values)),
            violated=dict(zip(names, violated)), next_reservation=dict(zip(names, nxt)),
            violation_rate={r: self.violations[i] / n for i, r in enumerate(names)},
            queue={} if queue is None else dict(zip(names, queue)),
            details={} if details is None else dict(zip(names, details)))

    def reservation(self) -> dict[str, float | None]:
        """The reservation in force for the next period (None: nothing reserved yet)."""
        return dict(zip(self.names, self._x))

    def describe(self) -> dict[str, Any]:
        """Per resource: the reservation in force, violations so far against ε, cost so far."""
        n = self.periods
        queue = getattr(self, "_q", None)
        return {
            "policy": self.kind, "periods": n, "last_period": self.last_period,
            "resources": [{
                "name": s.name, "cost": s.cost, "epsilon": s.epsilon,
                "reservation": self._x[i],
                "violations": self.violations[i],
                "violation_rate": self.violations[i] / n if n else None,
                "within_epsilon": (self.violations[i] / n <= s.epsilon) if n else None,
                "cost_so_far": self.spent[i],
                **({"queue": queue[i]} if queue is not None else {}),
            } for i, s in enumerate(self.resources)],
            "cost_so_far": sum(self.spent),
        }

    def _validate(self, period: Any, demand: Any) -> list[float]:
        if isinstance(period, bool) or not isinstance(period, int):
            raise ReservationError("period", "must be an integer")
        if period < 0:
            raise ReservationError("period", "must be >= 0")
        if self.last_period is not None and period <= self.last_period:
            raise ReservationError("period", f"must be after the last observed period "
                                             f"{self.last_period}, got {period}")
        if not isinstance(demand, Mapping):
            raise ReservationError("demand", "must be an object keyed by resource name")
        missing = [r for r in self.names if r not in demand]
        if missing:
            raise ReservationError(f"demand.{missing[0]}", "missing")
        if len(demand) != len(self.names):
            extra = sorted(str(k) for k in demand if k not in self.names)
            raise ReservationError(f"demand.{extra[0]}", "not a resource of this stream")
        return [check_number(demand[r], f"demand.{r}") for r in self.names]

    @abstractmethod
    def _advance(self, values: list[float]) -> tuple[
            list[float], list[float] | None, list[dict[str, float]] | None]:
        """Learn from validated demand; return (next reservation, queue, details).
        Must not raise: everything was validated."""

    # -- state --------------------------------------------------------------------------------
    @abstractmethod
    def params_dict(self) -> dict[str, Any]:
        ...

    @abstractmethod
    def _policy_state(self) -> Any:
        ...

    @abstractmethod
    def _load_policy_state(self, state: Any) -> None:
        ...

    def to_state(self) -> dict[str, Any]:
        return {"kind": self.kind, "version": STATE_VERSION,
                "resources": [s.to_dict() for s in self.resources],
                "params": self.params_dict(), "last_period": self.last_period,
                "periods": self.periods, "violations": list(self.violations),
                "spent": list(self.spent),
                "reservation": list(self._x), "policy": self._policy_state()}

    @classmethod
    def from_state(cls, state: Mapping[str, Any]) -> ReservationStream:
        if state.get("kind") != cls.kind:
            raise ReservationError("state.kind", f"expected {cls.kind!r}, got "
                                                 f"{state.get('kind')!r}")
        if state.get("version") != STATE_VERSION:
            raise ReservationError("state.version", f"unsupported {state.get('version')!r}")
        try:
            stream = cls(state["resources"], state["params"])  # type: ignore[call-arg]
            last = state["last_period"]
            stream.last_period = None if last is None else int(last)
            stream.periods = int(state["periods"])
            stream.violations = [int(v) for v in state["violations"]]
            stream.spent = [float(v) for v in state.get("spent", [0.0] * len(stream.names))]
            stream._x = [None if x is None else float(x) for x in state["reservation"]]
            if len(stream._x) != len(stream.names) or len(stream.violations) != len(stream._x):
                raise ValueError("one entry per resource expected")
            stream._load_policy_state(state["policy"])
        except ReservationError:
            raise
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise ReservationError("state", f"malformed {cls.kind} state: {exc!r}") from None
        return stream
