"""What a what-if reports of one side (the policy that ran, or the alternative), from the
events it applied and the answers it gave: decisions and reasons; per job type, arrivals and
admissions; the time-average utilisation of each dimension and reward rate of the jobs it held
(placement, queues); queue waits; scale-out failures against τ and utilisation (moments);
reservation cost and violations against ε (reservations). Time is the log's order (placement)
or the events' ``at`` (the others), as in jobs.py; a series of at most ``points`` samples of
utilisation over that time comes with it, for a plot."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping
from typing import Any

import numpy as np

from app.sim.whatif.jobs import JobModel

POINTS = 200


class Measures:
    def __init__(self, model: JobModel, spec: Mapping[str, Any], points: int = POINTS):
        self.model, self.spec = model, spec
        self.decisions: Counter[str] = Counter()
        self.reasons: Counter[str] = Counter()
        self.arrivals: Counter[str] = Counter()
        self.admitted: Counter[str] = Counter()
        self.running: dict[str, str] = {}  # job -> type, while it holds its place
        types = spec.get("job_types") or []
        self.demand = {t["name"]: t.get("demand", {}) for t in types}
        self.reward = {t["name"]: float(t.get("reward") or 0.0) for t in types}
        self.capacity: dict[str, float] = defaultdict(float)
        for pool in spec.get("server_pools") or []:
            for dim, v in pool.get("capacity", {}).items():
                self.capacity[dim] += float(v) * int(pool.get("count", 1))
        self.used: dict[str, float] = defaultdict(float)
        self.area: dict[str, float] = defaultdict(float)  # ∫ used dt per dimension, and reward
        self.start: float | None = None
        self.now: float | None = None
        self.waits: list[float] = []
        self.scale_outs = Counter()  # granted, denied
        self.moment_cores: float = 0.0
        self.reserved: dict[str, list[float]] = defaultdict(list)
        self.violated: dict[str, list[bool]] = defaultdict(list)
        self.series: list[tuple[float, float]] = []
        self.points = points

    # -- bookkeeping ----------------------------------------------------------------------
    def _advance(self, now: float) -> None:
        if self.now is None:
            self.start = self.now = now
            return
        dt = max(0.0, now - self.now)
        for dim, v in self.used.items():
            self.area[dim] += v * dt
        self.area["@reward"] += self._reward_rate() * dt
        self.area["@cores"] += self.moment_cores * dt
        self.now = max(self.now, now)

    def _reward_rate(self) -> float:
        return sum(self.reward.get(t, 0.0) for t in self.running.values())

    def _hold(self, job: str, kind: str) -> None:
        if job in self.running:
            return
        self.running[job] = kind
        for dim, v in self.demand.get(kind, {}).items():
            self.used[dim] += float(v)

    def _free(self, job: str) -> None:
        kind = self.running.pop(job, None)
        if kind is None:
            return
        for dim, v in self.demand.get(kind, {}).items():
            self.used[dim] -= float(v)

    def utilization_now(self) -> float:
        if self.model.name == "moments":
            cap = float(self.spec.get("capacity_cores") or 0)
            return self.moment_cores / cap if cap else 0.0
        shares = [self.used[d] / c for d, c in self.capacity.items() if c > 0]
        return float(np.mean(shares)) if shares else 0.0

    # -- one applied event ------------------------------------------------------------------
    def observe(self, request: Mapping[str, Any], answer: Mapping[str, Any], now: float,
                types: Mapping[str, str]) -> None:
        """``types``: every job's type, for jobs an answer started or ended."""
        self._advance(now)
        kind = request.get("kind", "")
        word = str(answer.get("decision"))
        self.decisions[f"{kind}:{word}"] += 1
        if answer.get("reason") is not None:
            self.reasons[str(answer["reason"])] += 1
        m = self.model
        job = request.get(m.id_field) if m.id_field else None
        if kind == m.opens and job is not None:
            jt = m.type_of(request)
            self.arrivals[jt] += 1
            if m.admitted(answer):
                self.admitted[jt] += 1
        opened = job if kind == m.opens and m.admitted(answer) else None
        for started, _at in m.starts(answer, opened, now):
            self._hold(started, types.get(started, ""))
        for s in answer.get("started") or ():
            if "queued_at" in s:
                self.waits.append(float(s["at"]) - float(s["queued_at"]))
        if m.name == "queues" and kind == m.opens and answer.get("decision") == "started":
            self.waits.append(0.0)
        if kind == m.closes and job is not None:
            self._free(job)
        for gone in m.ended(request, answer):
            self._free(gone)
        if m.name == "moments":
            self._moments(request, answer)
        if "reserved" in answer:
            for dim, v in answer["reserved"].items():
                self.reserved[dim].append(float(v))
            for dim, v in (answer.get("violated") or {}).items():
                self.violated[dim].append(bool(v))
        self._sample(now)

    def _moments(self, request: Mapping[str, Any], answer: Mapping[str, Any]) -> None:
        """The cluster's active cores: scale answers carry them; an admitted deployment adds
        its arrival size."""
        kind = request.get("kind")
        if kind == "scale_out":
            self.scale_outs["granted" if answer.get("decision") == "granted" else "denied"] += 1
        if "active_cores" in answer:
            self.moment_cores = float(answer["active_cores"])
        elif kind == "deployment" and answer.get("decision") == "admitted":
            self.moment_cores += float(request.get("cores") or 0)

    def _sample(self, now: float) -> None:
        if len(self.series) < 4 * self.points:
            self.series.append((now, self.utilization_now()))
        else:  # keep every other sample: a bounded series over the whole window
            self.series = self.series[::2]
            self.series.append((now, self.utilization_now()))

    # -- the summary ----------------------------------------------------------------------
    def summary(self) -> dict[str, Any]:
        span = (self.now or 0.0) - (self.start or 0.0)
        out: dict[str, Any] = {
            "decisions": dict(sorted(self.decisions.items())),
            "reasons": dict(sorted(self.reasons.items())),
            "time_span": span,
        }
        if self.model.opens is not None:
            out["per_type"] = {t: {"arrivals": n, "admitted": self.admitted[t],
                                   "acceptance": self.admitted[t] / n if n else None}
                               for t, n in sorted(self.arrivals.items())}
            n, k = sum(self.arrivals.values()), sum(self.admitted.values())
            out["acceptance"] = k / n if n else None
        if self.capacity:
            out["utilization"] = {d: (self.area[d] / span / c if span > 0 else None)
                                  for d, c in sorted(self.capacity.items()) if c > 0}
            out["reward_rate"] = self.area["@reward"] / span if span > 0 else None
        if self.waits:
            w = np.array(self.waits)
            out["queue_wait"] = {"started": len(w), "mean": float(w.mean()),
                                 "p50": float(np.quantile(w, 0.5)), "p90": float(np.quantile(w, 0.9))}
        if self.model.name == "moments":
            asked = sum(self.scale_outs.values())
            out["scale_outs"] = {"requested": asked, "denied": self.scale_outs["denied"],
                                 "failure_rate": self.scale_outs["denied"] / asked if asked else None,
                                 "sla": self.spec.get("sla")}
            cap = float(self.spec.get("capacity_cores") or 0)
            out["utilization"] = {"cores": self.area["@cores"] / span / cap
                                  if span > 0 and cap else None}
        if self.reserved:
            cost = {r["name"]: float(r.get("cost", 1.0)) for r in self.spec.get("resources") or []}
            eps = {r["name"]: float(r.get("epsilon", 0.0)) for r in self.spec.get("resources") or []}
            out["reservations"] = {
                dim: {"mean_reserved": float(np.mean(v)),
                      "violation_rate": float(np.mean(self.violated[dim])) if self.violated[dim] else None,
                      "epsilon": eps.get(dim)} for dim, v in sorted(self.reserved.items())}
            out["cost_per_period"] = float(sum(cost.get(d, 1.0) * np.mean(v)
                                               for d, v in self.reserved.items()))
        out["series"] = thin(self.series, self.points)
        return out


def thin(series: list[tuple[float, float]], points: int) -> list[list[float]]:
    if len(series) <= points:
        return [list(p) for p in series]
    idx = np.linspace(0, len(series) - 1, points).round().astype(int)
    return [list(series[i]) for i in idx]
