"""Reservation policies: THOR (no-regret reservation with violation guarantees), its
baselines and quantile tracking (the default: realised violations fed back, ``tracking.py``),
one object per reservation stream (see ``stream.py`` for the contract)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.policies.thor.baselines import (
    FollowTheLeader, PercentileRecommender, StaticOracle, feasible_quantile)
from app.policies.thor.engine import ThorParams, ThorStream
from app.policies.thor.estimator import CapParams
from app.policies.thor.stream import (
    ReservationDecision, ReservationError, ReservationStream, ResourceSpec)
from app.policies.thor.tracking import QuantileTrackingStream, TrackingParams

# Online policies a service can run. The static oracle needs the whole future: evaluation only.
RESERVATION_POLICIES: dict[str, type[ReservationStream]] = {
    "quantile_tracking": QuantileTrackingStream, "thor": ThorStream, "ftl": FollowTheLeader,
    "percentile": PercentileRecommender}
# What a new stream runs when its declaration names no policy: the one whose realised
# violation rate is held at ε whatever the demand (issue #14).
DEFAULT_POLICY = QuantileTrackingStream.kind
ALL_STREAM_KINDS: dict[str, type[ReservationStream]] = {
    **RESERVATION_POLICIES, "static_oracle": StaticOracle}


def make_stream(kind: str, resources: Sequence[ResourceSpec | Mapping[str, Any]],
                params: Mapping[str, Any] | None = None) -> ReservationStream:
    if kind not in RESERVATION_POLICIES:
        raise ReservationError("policy", f"unknown reservation policy {kind!r}; known: "
                                         f"{', '.join(RESERVATION_POLICIES)}")
    return RESERVATION_POLICIES[kind](resources, params)


def stream_from_state(state: Mapping[str, Any]) -> ReservationStream:
    kind = state.get("kind") if isinstance(state, Mapping) else None
    if kind not in ALL_STREAM_KINDS:
        raise ReservationError("state.kind", f"unknown {kind!r}")
    return ALL_STREAM_KINDS[kind].from_state(state)


__all__ = [
    "CapParams", "DEFAULT_POLICY", "FollowTheLeader", "PercentileRecommender", "QuantileTrackingStream", "RESERVATION_POLICIES",
    "ReservationDecision", "ReservationError", "ReservationStream", "ResourceSpec",
    "StaticOracle", "ThorParams", "ThorStream", "TrackingParams", "feasible_quantile", "make_stream",
    "stream_from_state"]
