"""The alternatives the policy advisor tries on a cluster, and the objectives it can rank them
by. The API checks an advice request against these before it queues a run, and the advisor
(app/sim/whatif/advisor.py) replays them, so both read one list."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.policies.moments.policies import POLICIES
from app.policies.registry import PLACEMENT_ENGINES
from app.policies.rms import GREEDY
from app.policies.thor import RESERVATION_POLICIES

# objective -> (families it applies to, "higher" or "lower" is better)
OBJECTIVES: dict[str, tuple[tuple[str, ...], str]] = {
    "reward_rate": (("placement", "queues"), "higher"),
    "acceptance": (("placement",), "higher"),
    "queue_wait": (("queues",), "lower"),
    "utilization": (("placement", "queues", "moments"), "higher"),
    "cost_per_period": (("reservations",), "lower"),
}
DEFAULT_OBJECTIVE = {"placement": "reward_rate", "queues": "queue_wait",
                     "moments": "utilization", "reservations": "cost_per_period"}

# Keys of a queue policy that say how the service keeps time, not how the policy decides: a
# candidate keeps the cluster's.
QUEUE_CLOCK_KEYS = ("clock", "time_unit_seconds", "finished_history")


def candidates(family: str, current: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The policies the advisor tries on a cluster of ``family`` whose policy is ``current``
    (which is not among them: the advisor replays it anyway): each kind at its defaults and a
    few values of its main parameter."""
    kinds = {"placement": tuple(PLACEMENT_ENGINES), "queues": ("rms", *GREEDY),
             "moments": POLICIES, "reservations": tuple(RESERVATION_POLICIES)}[family]
    # Each kind at its defaults, then the main parameter of those that have one.
    grid: list[dict[str, Any]] = [{"kind": k} for k in kinds]
    grid += {"placement": [{"kind": "power_of_d", "d": 2}, {"kind": "power_of_d", "d": 10},
                           {"kind": "dra", "reservation": {"b": 0.25}},
                           {"kind": "dra", "reservation": {"b": 1.0}}],
             "queues": [{"kind": "rms", "sampling": "bf"},
                        *({"kind": k, "order": "small_first"} for k in GREEDY)],
             }.get(family, [])
    keep = ({k: current[k] for k in QUEUE_CLOCK_KEYS if k in current}
            if family == "queues" else {})
    return [p for p in ({**policy, **keep} for policy in grid)
            if not _same(p, current)]


def _same(candidate: Mapping[str, Any], stored: Mapping[str, Any]) -> bool:
    """Whether a candidate is the stored policy: the stored one carries its defaults (and a
    derivation), the candidate only what it sets, so a candidate that sets a parameter the
    stored policy holds at another value, or does not hold, is another policy."""
    return candidate.get("kind") == stored.get("kind") and all(
        stored.get(k) == v for k, v in candidate.items())
