"""The quota limits the tenancy state machines check after each step (placement, queued and
moment clusters alike), recomputed from the tenants as declared rather than read from
``Quotas``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.policies.tenancy import EPS


def assert_grown_within_limits(tenants: Mapping[str, Mapping[str, Any]],
                               usage: Mapping[str, float], before: Mapping[str, float],
                               dim: str) -> None:
    """Every tenant whose usage of ``dim`` grew from ``before`` to ``usage`` is within its
    nominal quota (no cohort) or nominal + borrowing limit, and its cohort's draws stay
    within the pool its tenants lend."""
    for name, u in usage.items():
        if u <= before.get(name, 0.0) + EPS:
            continue  # nothing more taken (preemption of its own jobs may have made room)
        t = tenants.get(name)
        assert t is not None, f"removed tenant {name} was admitted"
        nominal = t["nominal"][dim]
        if t["cohort"] is None:
            assert u <= nominal + EPS, (name, u, nominal)
            continue
        if t.get("borrowing_limit") is not None:
            assert u <= nominal + t["borrowing_limit"][dim] + EPS, (name, u)
        members = [x for x in tenants.values() if x["cohort"] == t["cohort"]]
        own = {x["name"]: x["nominal"][dim] - (x["lending_limit"][dim] if x.get("lending_limit")
                                               else x["nominal"][dim]) for x in members}
        pool = sum(x["nominal"][dim] - own[x["name"]] for x in members)
        drawn = sum(max(0.0, usage.get(x["name"], 0.0) - own[x["name"]]) for x in members)
        assert drawn <= pool + EPS, (drawn, pool)
