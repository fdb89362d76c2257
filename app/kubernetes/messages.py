"""Headroom's reasons and numbers as one line of text, as the Kubernetes side shows them (a
node's filter failure, a Workload's admission check message)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

LIMITS = {"nominal": "its nominal quota", "borrowing_limit": "its borrowing limit",
          "cohort": "what its cohort has left to lend"}


def vector(v: Mapping[str, Any] | None) -> str:
    """``cpu=2, memory=8``: whole numbers without a fraction."""
    def num(x: Any) -> str:
        return f"{x:g}" if isinstance(x, float) else str(x)
    return ", ".join(f"{k}={num(x)}" for k, x in (v or {}).items()) or "nothing"


def quota(q: Mapping[str, Any]) -> str:
    """A quota_exceeded refusal's ``details.quota``."""
    text = (f"tenant {q.get('tenant')} would exceed {LIMITS.get(q.get('limit'), q.get('limit'))}"
            f" by {vector(q.get('short'))} (usage {vector(q.get('usage'))}, nominal "
            f"{vector(q.get('nominal'))}, borrowed {vector(q.get('borrowed'))}")
    borrowers = q.get("borrowers") or []
    if borrowers:
        text += "; the cohort's borrowers: " + "; ".join(
            f"{b.get('tenant')} {vector(b.get('borrowed'))}" for b in borrowers)
    return text + ")"


def reason(answer: Mapping[str, Any]) -> str:
    """Headroom's reason and the numbers behind it. Every refusal of the same cause gets the
    same text, so kube-scheduler's event counts them as one."""
    details = answer.get("details") or {}
    if answer.get("reason") == "quota_exceeded" and isinstance(details.get("quota"), Mapping):
        return f"quota_exceeded: {quota(details['quota'])}"
    numbers = ", ".join(f"{k}={v}" for k, v in details.items())
    return f"{answer.get('reason')}" + (f" ({numbers})" if numbers else "")
