"""DRA engine parameters and the reservation factor g(L) (paper §4; footnote 2).

- ``reservation``: ``{"b": 0.5}`` (default) for g(L) = ln(L)^(1+b), any b >= 0 — the paper's
  example of a g(L) = ω(log L) that is o(L) — or ``{"slots": n}`` / a bare number n > 0 for a
  fixed number of reserved slots per job type. The paper does not say which b its §7
  simulations used; b = 0.5 gives g = 3.5, 9.9, 18.2, 28.0, 39.1 at L = 10, 100, 1,000,
  10,000, 100,000, within footnote 2's "small compared with L (< L/100)" from L ~ 2,000 on.
  g(L) is floored at 1 slot: at L = 1, ln(L) = 0 would make Ŷ = Y = 0, GPA would deploy no
  slot and DRA would never admit anything.
- ``migrations`` (default true): false never migrates after a departure (§8). The Reject Group
  is unchanged: its servers then empty only through their own departures.
- ``preemption`` (default false): DRA+Preemption of §7.2, see ``DRAEngine``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

DEFAULT_PARAMS: dict[str, Any] = {"reservation": {"b": 0.5}, "migrations": True,
                                  "preemption": False}


@dataclass(frozen=True)
class DRAOptions:
    g: float
    migrations: bool
    preemption: bool


def _number(v: Any, what: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise ValueError(f"dra {what} must be a finite number, got {v!r}")
    return float(v)


def reservation_factor(spec: Any, num_servers: int) -> float:
    if isinstance(spec, dict) and set(spec) == {"b"}:
        b = _number(spec["b"], "reservation.b")
        if b < 0:
            raise ValueError("dra reservation.b must be >= 0")
        return max(1.0, math.log(max(num_servers, 1)) ** (1.0 + b))
    if isinstance(spec, dict) and set(spec) == {"slots"}:
        spec = spec["slots"]
    if isinstance(spec, dict):
        raise ValueError('dra reservation must be {"b": number} or {"slots": number}, '
                         f"got keys {sorted(spec)}")
    slots = _number(spec, "reservation.slots")
    if slots <= 0:
        raise ValueError("dra reservation.slots must be > 0")
    return slots


def parse_options(params: dict[str, Any], num_servers: int) -> DRAOptions:
    unknown = set(params) - set(DEFAULT_PARAMS)
    if unknown:
        raise ValueError(f"unknown dra parameters: {sorted(unknown)}; "
                         f"known: {sorted(DEFAULT_PARAMS)}")
    for flag in ("migrations", "preemption"):
        if not isinstance(params[flag], bool):
            raise ValueError(f"dra {flag} must be true or false, got {params[flag]!r}")
    return DRAOptions(g=reservation_factor(params["reservation"], num_servers),
                      migrations=params["migrations"], preemption=params["preemption"])
