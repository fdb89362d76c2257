"""What a simulation measures, and how warm-up is excluded.

The simulator keeps, per job type, the number of jobs Y_j(t) and the integral of Y_j over
time (updated only when Y_j changes, so an event costs O(1) whatever J is). Everything
time-averaged follows from those integrals: reward per server Σ_j u_j Y_j / L, mean jobs,
and utilization per resource Σ_j d_j Y_j / (cluster capacity), because used resources are
linear in Y.

Warm-up: events before ``warmup`` run exactly like the others; the recorder takes a snapshot
of every integral and counter at t = warmup and the summary reports differences over
[warmup, end), so nothing observed before warm-up enters any reported figure. The reward
time series covers the whole run (warm-up included: it shows the convergence).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from app.policies.model import ClusterModel

INF = math.inf


def _ratio(a: float, b: float) -> float | None:
    return a / b if b else None


@dataclass
class SimResult:
    """Figures over the measurement window [warmup, end). Per-type values are keyed by name."""

    servers: int
    warmup: float
    end: float
    reward_per_server: float | None
    mean_jobs: dict[str, float | None]
    utilization: dict[str, float | None]
    arrivals: dict[str, int]
    accepted: dict[str, int]
    preempted: dict[str, int]
    migrations: int
    departures: int
    events: int  # arrivals + departures in the window
    events_total: int  # including warm-up
    jobs_at_end: int
    series_t: list[float] = field(default_factory=list)  # bin midpoints over [0, end)
    series_reward: list[float] = field(default_factory=list)  # mean reward per server per bin
    sample_step: float = 0.0

    @property
    def acceptance_rate(self) -> float | None:
        return _ratio(sum(self.accepted.values()), sum(self.arrivals.values()))

    @property
    def acceptance_by_type(self) -> dict[str, float | None]:
        return {n: _ratio(self.accepted[n], a) for n, a in self.arrivals.items()}

    @property
    def rejected(self) -> dict[str, int]:
        return {n: a - self.accepted[n] for n, a in self.arrivals.items()}

    def to_dict(self, series: bool = False) -> dict[str, Any]:
        out = {
            "reward_per_server": self.reward_per_server,
            "acceptance_rate": self.acceptance_rate,
            "acceptance_by_type": self.acceptance_by_type,
            "migrations": self.migrations,
            "migrations_per_departure": _ratio(self.migrations, self.departures),
            "preemptions": sum(self.preempted.values()),
            "preempted_by_type": self.preempted,
            "rejected": sum(self.rejected.values()),
            "rejected_by_type": self.rejected,
            "arrivals": sum(self.arrivals.values()),
            "departures": self.departures,
            "mean_jobs": self.mean_jobs,
            "utilization": self.utilization,
            "events": self.events,
            "events_total": self.events_total,
            "jobs_at_end": self.jobs_at_end,
            "window": [self.warmup, self.end],
        }
        if series:
            out["series"] = {"step": self.sample_step, "t": self.series_t,
                             "reward_per_server": self.series_reward}
        return out


class Recorder:
    """Integrals, counters, warm-up snapshot and the reward time series.

    The simulator's hot loop updates ``Y``, ``area``, ``last``, ``arrivals``, ``accepted``
    and ``preempted`` in place (plain lists: cheaper than method calls per event) and calls
    ``cross(t, ...)`` only when an event reaches ``mark``: the next sample boundary, the
    warm-up instant or the end.
    """

    def __init__(self, model: ClusterModel, warmup: float, end: float, sample_step: float):
        J = model.num_types
        self.model = model
        self.rewards = [t.reward for t in model.job_types]
        self.Y = [0] * J
        self.area = [0.0] * J
        self.last = [0.0] * J
        self.arrivals = [0] * J
        self.accepted = [0] * J
        self.preempted = [0] * J
        self.warmup, self.end, self.step = warmup, end, sample_step
        self._samples = 1
        self.next_sample = sample_step  # k·step, multiplied rather than summed: no drift
        self.warm: dict[str, Any] | None = None
        self.series_t: list[float] = []
        self.series_reward: list[float] = []
        self._prev_sample_t = 0.0
        self._prev_reward_area = 0.0
        self.mark = self._next_mark()

    def _next_mark(self) -> float:
        return min(self.next_sample, self.warmup if self.warm is None else INF, self.end)

    def _flush(self, t: float) -> None:
        Y, area, last = self.Y, self.area, self.last
        for j in range(len(Y)):
            area[j] += Y[j] * (t - last[j])
            last[j] = t

    def _sample(self, t: float) -> None:
        self._flush(t)
        reward_area = sum(u * a for u, a in zip(self.rewards, self.area))
        dt = t - self._prev_sample_t
        if dt > 0:
            self.series_t.append(0.5 * (t + self._prev_sample_t))
            self.series_reward.append((reward_area - self._prev_reward_area)
                                      / dt / self.model.num_servers)
        self._prev_sample_t, self._prev_reward_area = t, reward_area

    def _snapshot(self, migrations: int, departures: int, events: int) -> dict[str, Any]:
        return {"area": list(self.area), "arrivals": list(self.arrivals),
                "accepted": list(self.accepted), "preempted": list(self.preempted),
                "migrations": migrations, "departures": departures, "events": events}

    def cross(self, t: float, migrations: int, departures: int, events: int) -> bool:
        """Handle every mark <= t (in order: sample, warm-up, end). False once at the end."""
        while t >= self.mark:
            m = self.mark
            if m == self.next_sample:
                self._sample(m)
                self._samples += 1
                self.next_sample = self._samples * self.step
            if self.warm is None and m == self.warmup:
                self._flush(m)
                self.warm = self._snapshot(migrations, departures, events)
            if m == self.end:
                return False
            self.mark = self._next_mark()
        return True

    def finish(self, t_end: float, migrations: int, departures: int, events: int
               ) -> SimResult:
        """Close the window at ``t_end`` (the run's end, or the last event if it stopped on an
        event budget) and summarise it."""
        if self.warm is None:  # stopped before warm-up ended: an empty window
            self._flush(t_end)
            self.warm = self._snapshot(migrations, departures, events)
            start = t_end
        else:
            start = self.warmup
        if t_end - self._prev_sample_t > 1e-9 * self.step:  # no sliver of a last bin
            self._sample(t_end)
        self._flush(t_end)
        w = self.warm
        model = self.model
        names = [t.name for t in model.job_types]
        window = t_end - start
        mean = [(a - a0) / window if window > 0 else None for a, a0 in zip(self.area, w["area"])]
        reward = (sum(u * y for u, y in zip(self.rewards, mean)) / model.num_servers
                  if window > 0 else None)
        cap = [sum(p.count * p.capacity[d] for p in model.pools)
               for d in range(len(model.dimensions))]
        util = {dim: (sum(t.demand[d] * y for t, y in zip(model.job_types, mean)) / cap[d]
                      if window > 0 and cap[d] > 0 else None)
                for d, dim in enumerate(model.dimensions)}

        def diff(key: str) -> dict[str, int]:
            return {n: a - a0 for n, a, a0 in zip(names, getattr(self, key), w[key])}

        return SimResult(
            servers=model.num_servers, warmup=start, end=t_end, reward_per_server=reward,
            mean_jobs=dict(zip(names, mean)), utilization=util, arrivals=diff("arrivals"),
            accepted=diff("accepted"), preempted=diff("preempted"),
            migrations=migrations - w["migrations"], departures=departures - w["departures"],
            events=events - w["events"], events_total=events, jobs_at_end=sum(self.Y),
            series_t=self.series_t, series_reward=self.series_reward, sample_step=self.step)
