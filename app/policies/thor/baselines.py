"""Baselines on the same stream interface: follow-the-leader, a VPA-style percentile
recommender and the static hindsight oracle (paper §V; VPA for the recommender).

All three use one definition of "the ε-feasible reservation of a sample": the smallest value
x of the sample with #{λ > x} ≤ ⌊ε n⌋, i.e. the (m+1)-th largest value, m = ⌊ε n⌋.
"""

from __future__ import annotations

import math
from bisect import insort
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from app.policies.thor.stream import (
    ReservationError, ReservationStream, ResourceSpec, check_number)


def feasible_quantile(sorted_values: Sequence[float], epsilon: float) -> float:
    """Smallest x in the sample with at most ⌊ε n⌋ values above it (sample sorted)."""
    n = len(sorted_values)
    m = math.floor(epsilon * n + 1e-9)  # the 1e-9 absorbs 0.29*100 = 28.999...
    return float(sorted_values[max(n - 1 - m, 0)])


def _no_params(kind: str, params: Mapping[str, Any] | None) -> None:
    if params:
        raise ReservationError("params", f"{kind} takes no parameters")


class FollowTheLeader(ReservationStream):
    """FTL: reserve what would have been the best static feasible reservation for all past
    demand, i.e. the ε-feasible quantile of λ^1..λ^{t−1} (paper §V, [7]). Keeps every past
    value (sorted): state grows with the stream, which is FTL's known cost."""

    kind = "ftl"

    def __init__(self, resources: Sequence[ResourceSpec | Mapping[str, Any]],
                 params: Mapping[str, Any] | None = None):
        super().__init__(resources)
        _no_params(self.kind, params)
        self._past: list[list[float]] = [[] for _ in self.resources]

    def _advance(self, values):
        nxt = []
        for past, lam, s in zip(self._past, values, self.resources):
            insort(past, lam)
            nxt.append(feasible_quantile(past, s.epsilon))
        return nxt, None, None

    def params_dict(self) -> dict[str, Any]:
        return {}

    def _policy_state(self) -> Any:
        return {"past": [list(p) for p in self._past]}

    def _load_policy_state(self, state: Any) -> None:
        self._past = [[float(v) for v in p] for p in state["past"]]


class StaticOracle(ReservationStream):
    """The best fixed reservation in hindsight (paper §II, x*): the ε-feasible quantile of
    the whole series. Evaluation only — it needs the future; build it with ``fit``."""

    kind = "static_oracle"

    def __init__(self, resources: Sequence[ResourceSpec | Mapping[str, Any]],
                 params: Mapping[str, Any] | None = None):
        super().__init__(resources)
        fixed = dict((params or {}).get("reservation") or {})
        if set(fixed) != set(self.names):
            raise ReservationError("params.reservation", "needs one value per resource")
        self._fixed = [check_number(fixed[r], f"params.reservation.{r}") for r in self.names]
        self._x = list(self._fixed)

    @classmethod
    def fit(cls, resources: Sequence[ResourceSpec | Mapping[str, Any]],
            series: Mapping[str, Sequence[float]]) -> StaticOracle:
        specs = [r if isinstance(r, ResourceSpec) else ResourceSpec.from_dict(r)
                 for r in resources]
        fixed = {s.name: feasible_quantile(sorted(float(v) for v in series[s.name]),
                                           s.epsilon) for s in specs}
        return cls(specs, {"reservation": fixed})

    def _advance(self, values):
        return list(self._fixed), None, None

    def params_dict(self) -> dict[str, Any]:
        return {"reservation": dict(zip(self.names, self._fixed))}

    def _policy_state(self) -> Any:
        return None

    def _load_policy_state(self, state: Any) -> None:
        pass


@dataclass(frozen=True)
class PercentileParams:
    """Kubernetes VPA recommender defaults (pkg/recommender): buckets of 0.01 growing by 5%,
    24 h half-life (288 periods of 5 min), +15% safety margin. VPA targets the 90th
    percentile; ``percentile=None`` targets 1 − ε so it aims at the same budget as THOR."""

    percentile: float | None = None
    margin: float = 0.15
    half_life: float = 288.0
    first_bucket: float = 0.01
    bucket_ratio: float = 1.05
    max_value: float = 1000.0

    def __post_init__(self) -> None:
        if self.percentile is not None:
            check_number(self.percentile, "params.percentile", lo=0.0, hi=1.0, lo_open=True)
        check_number(self.margin, "params.margin", hi=10.0)
        check_number(self.half_life, "params.half_life", lo=0.0, hi=1e9, lo_open=True)
        check_number(self.first_bucket, "params.first_bucket", lo=0.0, lo_open=True)
        check_number(self.bucket_ratio, "params.bucket_ratio", lo=1.0, hi=10.0, lo_open=True)
        check_number(self.max_value, "params.max_value", lo=self.first_bucket, lo_open=True)
        if self.buckets() > 100_000:
            raise ReservationError("params.max_value", "too many buckets")

    def buckets(self) -> int:
        r = self.bucket_ratio
        return int(math.ceil(math.log(self.max_value * (r - 1) / self.first_bucket + 1)
                             / math.log(r))) + 1

    def bucket_start(self, k: int) -> float:
        r = self.bucket_ratio
        return self.first_bucket * (r ** k - 1) / (r - 1)

    def find_bucket(self, value: float) -> int:
        r = self.bucket_ratio
        if value < self.first_bucket:
            return 0
        k = int(math.floor(math.log(value * (r - 1) / self.first_bucket + 1) / math.log(r)))
        return min(k, self.buckets() - 1)


class PercentileRecommender(ReservationStream):
    """VPA-style: an exponentially decaying histogram of past demand (exponential buckets);
    reserve (1 + margin) × the end of the bucket holding the target percentile. Weights grow
    as 2^(age/half_life) and are rescaled now and then, as VPA does, so adding is O(1)."""

    kind = "percentile"
    _RESCALE_EXP = 60.0  # rescale before weights leave comfortable float range

    def __init__(self, resources: Sequence[ResourceSpec | Mapping[str, Any]],
                 params: Mapping[str, Any] | PercentileParams | None = None):
        super().__init__(resources)
        if isinstance(params, PercentileParams):
            self.params = params
        else:
            d = dict(params or {})
            unknown = set(d) - set(PercentileParams.__dataclass_fields__)
            if unknown:
                raise ReservationError("params", f"unknown keys {sorted(unknown)}")
            self.params = PercentileParams(**d)
        nb = self.params.buckets()
        self._w = [[0.0] * nb for _ in self.resources]
        self._total = [0.0] * len(self.resources)
        self._age = 0.0  # periods since the weight reference point

    def _advance(self, values):
        p = self.params
        weight = 2.0 ** (self._age / p.half_life)
        nxt = []
        for i, (lam, s) in enumerate(zip(values, self.resources)):
            w = self._w[i]
            w[p.find_bucket(lam)] += weight
            self._total[i] += weight
            target = p.percentile if p.percentile is not None else 1.0 - s.epsilon
            nxt.append((1.0 + p.margin) * self._percentile(w, self._total[i], target))
        self._age += 1.0
        if self._age / p.half_life > self._RESCALE_EXP:
            scale = 2.0 ** (-self._age / p.half_life)
            self._w = [[v * scale for v in w] for w in self._w]
            self._total = [t * scale for t in self._total]
            self._age = 0.0
        return nxt, None, None

    def _percentile(self, w: list[float], total: float, target: float) -> float:
        threshold = target * total
        acc = 0.0
        k = 0
        for j, v in enumerate(w):
            if v > 0.0:
                k = j  # a rounding shortfall at target 1 still ends on the last sample
                acc += v
                if acc >= threshold:
                    break
        last = len(w) - 1
        return self.params.bucket_start(k + 1 if k < last else k)  # VPA: the bucket's end

    def params_dict(self) -> dict[str, Any]:
        return asdict(self.params)

    def _policy_state(self) -> Any:
        return {"weights": [{str(k): v for k, v in enumerate(w) if v} for w in self._w],
                "total": list(self._total), "age": self._age}

    def _load_policy_state(self, state: Any) -> None:
        nb = self.params.buckets()
        self._w = []
        for d in state["weights"]:
            w = [0.0] * nb
            for k, v in d.items():
                w[int(k)] = float(v)
            self._w.append(w)
        self._total = [float(t) for t in state["total"]]
        self._age = float(state["age"])
