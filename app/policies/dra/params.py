"""DRA engine parameters and the reservation factor g(L) (paper §4; footnote 2).

- ``reservation``: ``{"b": 0.5}`` (default) for g(L) = ln(L)^(1+b) — the paper's example of a
  g(L) = ω(log L) that is o(L) — or ``{"slots": n}`` / a bare number n > 0 for a fixed number
  of reserved slots per job type. The API requires b > 0 (Theorem 3 needs ω(log L); b = 0 is
  only Θ(log L)); the engine still loads b = 0, so clusters declared before that rule replay.
  The paper does not say which b its §7 simulations used; b = 0.5 gives g = 3.5, 9.9, 18.2,
  28.0, 39.1 at L = 10, 100, 1,000, 10,000, 100,000. g(L) is floored at 1 slot: at L = 1,
  ln(L) = 0 would make Ŷ = Y = 0, GPA would deploy no slot and DRA would never admit anything.
- ``migrations``: what happens to the Reject Group (§4, §8).
  ``"on"`` (default; ``true``): after a departure from the Accept Group, one job of the same
  type migrates from RG_j into the freed slot.
  ``"off_no_drain"`` (``false``, the old spelling): never migrate, and the Reject Group stays
  DRA's (one index-1 server per configuration). Servers beyond GPA's targets keep accepting
  jobs, so the configuration does not converge to GPA's after a change in the mix.
  ``"off_drain"``: §8's suggestion — never migrate, and every rank-(J+1) server belongs to
  the Reject Group: it takes no new job, empties through its own departures, and CRA then
  reassigns it.
- ``preemption``: ``"off"`` (default; ``false``), ``"rebuild"`` (``true``: DRA+Preemption as
  §7.2 reads, the arriving job stays rejected) or ``"admit"`` (lower-priority jobs are
  preempted on one server to admit the arriving job). See ``DRAEngine``.
- ``gpa_refresh``: when GPA's input Ŷ = Y + g is refreshed. ``"every_event"`` (default, the
  paper); ``{"every_events": n}``: at the n-th arrival or departure since the last refresh;
  ``{"band": h}``, 0 <= h < 1: when some type's Y_j + g has moved more than h·g from the Ŷ_j
  in use (hysteresis). h < 1 because admissions only fill slots GPA deployed for Ŷ: a type
  whose slots are full has Y_j + g ≈ Ŷ_j + g, so a band of g or more would never let the
  targets grow. CRA still runs after every admission and departure against the Ŷ in use
  (reassigning empty servers moves no job); only new targets — which create Reject-Group
  servers and hence migrations — wait.
- ``migration_budget``: ``null`` (default) or ``{"rate": r, "per": "server" | "cluster",
  "burst": b, "clock": "wall" | "client"}``: a token bucket that refills at r migrations per
  time unit (times L with ``per: "server"``) up to b tokens, driven by the events' times
  (``at``: client clock, or seconds since the cluster's creation stamped by the service), so
  a replay makes the same decisions. A migration takes one token; without one it is skipped.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

DEFAULT_PARAMS: dict[str, Any] = {"reservation": {"b": 0.5}, "migrations": "on",
                                  "preemption": "off", "gpa_refresh": "every_event",
                                  "migration_budget": None}

MIGRATION_MODES = ("on", "off_no_drain", "off_drain")
PREEMPTION_MODES = ("off", "rebuild", "admit")
# The old boolean spellings, mapped to the names that say what they do.
_LEGACY = {"migrations": {True: "on", False: "off_no_drain"},
           "preemption": {True: "rebuild", False: "off"}}


@dataclass(frozen=True)
class Budget:
    rate: float  # tokens per time unit, for the whole cluster
    burst: float
    clock: str


@dataclass(frozen=True)
class DRAOptions:
    g: float
    migrations: str
    preemption: str
    refresh_every: int  # 1: every event (the paper)
    refresh_band: float | None
    budget: Budget | None


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


def _mode(params: dict[str, Any], name: str, modes: tuple[str, ...]) -> str:
    v = params[name]
    if isinstance(v, bool):
        return _LEGACY[name][v]
    if v not in modes:
        raise ValueError(f"dra {name} must be one of {list(modes)} (or true/false), got {v!r}")
    return v


def _refresh(spec: Any) -> tuple[int, float | None]:
    if spec == "every_event":
        return 1, None
    if isinstance(spec, dict) and set(spec) == {"every_events"}:
        n = spec["every_events"]
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"dra gpa_refresh.every_events must be an integer >= 1, got {n!r}")
        return n, None
    if isinstance(spec, dict) and set(spec) == {"band"}:
        h = _number(spec["band"], "gpa_refresh.band")
        if not 0 <= h < 1:
            raise ValueError("dra gpa_refresh.band must be >= 0 and < 1 (a fraction of g(L))")
        return 1, h
    raise ValueError('dra gpa_refresh must be "every_event", {"every_events": n} or '
                     f'{{"band": h}}, got {spec!r}')


def _budget(spec: Any, num_servers: int) -> Budget | None:
    if spec is None:
        return None
    if not isinstance(spec, dict) or not {"rate"} <= set(spec) <= {"rate", "per", "burst",
                                                                   "clock"}:
        raise ValueError('dra migration_budget must be null or {"rate": r, "per": '
                         f'"server"|"cluster", "burst": b, "clock": "wall"|"client"}}, got {spec!r}')
    rate = _number(spec["rate"], "migration_budget.rate")
    per = spec.get("per", "cluster")
    clock = spec.get("clock", "wall")
    if rate <= 0 or per not in ("server", "cluster") or clock not in ("wall", "client"):
        raise ValueError("dra migration_budget needs rate > 0, per in {server, cluster} and "
                         "clock in {wall, client}")
    total = rate * num_servers if per == "server" else rate
    burst = spec.get("burst")
    burst = max(1.0, total) if burst is None else _number(burst, "migration_budget.burst")
    if burst < 1:
        raise ValueError("dra migration_budget.burst must be >= 1 (one migration)")
    return Budget(total, burst, clock)


def parse_options(params: dict[str, Any], num_servers: int) -> DRAOptions:
    unknown = set(params) - set(DEFAULT_PARAMS)
    if unknown:
        raise ValueError(f"unknown dra parameters: {sorted(unknown)}; "
                         f"known: {sorted(DEFAULT_PARAMS)}")
    every, band = _refresh(params["gpa_refresh"])
    return DRAOptions(g=reservation_factor(params["reservation"], num_servers),
                      migrations=_mode(params, "migrations", MIGRATION_MODES),
                      preemption=_mode(params, "preemption", PREEMPTION_MODES),
                      refresh_every=every, refresh_band=band,
                      budget=_budget(params["migration_budget"], num_servers))
