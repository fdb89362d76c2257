"""The Alibaba cluster-trace-v2018 batch sample shipped by the ``spar`` package (one hour).

``sample_tasks.csv`` has one row per task: job arrival (s), job id, task name, task duration
(s), planned CPU (100 = one core), planned memory (% of a machine), instance count.
``sample_instances.csv`` has one row per instance: job arrival, job id, task name, instance
name, duration (s), mean CPU and memory used. Machines are 96 cores x 100 memory units. Both
files come inside the wheel; nothing is downloaded.

Each *instance* is one Headroom job: it runs on one machine and reserves its task's planned
CPU and memory (what a scheduler must find room for, not what it later used). It starts when
its task becomes ready — the job's arrival plus the latest finish of the task's parents, read
from the task name (``J5_2_3``: task 5 waits for tasks 2 and 3) — and holds its slot for its
own recorded duration. Instances of zero duration are dropped (they hold nothing).

Sizes are bucketed to a finite set of job types (DRA and RMS need one): each instance gets the
smallest declared type (least reward, i.e. least machine share) that covers both its CPU and
its memory, so a bucketed job never asks for less than the trace did. ``Trace.bucketing_cost``
says what the rounding adds (requested vs bucketed core- and memory-seconds).

Scaling: the full hour is ~3 million instances, about 1,100 machines' worth of planned CPU
on average. ``load(fraction=f)`` keeps each instance independently with probability f
(seeded), which thins the arrival rate without changing the mix, durations or burst shape;
pair it with a cluster of about ``f * 1,100`` machines for the same load per machine.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

MACHINE = (96.0, 100.0)  # cores, memory units (% of a machine)
DIMENSIONS = ("cpu", "memory")
HOUR = 3600.0
# The job types a trace is bucketed into, (cores, memory units). Planned CPU takes only the
# values 0.05-0.5, 1, 2..7 cores in the sample (0.5 and 1 core are 97 % of tasks); memory is
# continuous (median 0.3, 99th percentile 0.59, max 5.17 units). Four types, because DRA's
# engine enumerates configurations of up to 192 half-core slots per machine: building it took
# 2.7 s with these four, 36-40 s with five or six types and over 60 s with nine (measured).
DEFAULT_TYPES = ((0.5, 0.6), (1.0, 0.6), (1.0, 2.0), (8.0, 6.0))

_TASK_ID = re.compile(r"^[A-Za-z]+(\d+)((?:_\d+)*)$")


@dataclass(frozen=True)
class JobType:
    name: str
    cpu: float
    memory: float

    @property
    def reward(self) -> float:
        """Machine share of the type, CPU and memory weighted alike (96 cores = 100 units):
        DRA maximises reward, so a type's reward is what it occupies."""
        return round(self.cpu + self.memory * MACHINE[0] / MACHINE[1], 6)


@dataclass(frozen=True)
class Trace:
    """Arrivals in time order: ``times[i]`` (s since the hour's start), ``types[i]`` (an
    index into ``job_types``), ``durations[i]`` (s), and the requested sizes before
    bucketing."""

    job_types: tuple[JobType, ...]
    times: tuple[float, ...]
    types: tuple[int, ...]
    durations: tuple[float, ...]
    cpu: tuple[float, ...]
    memory: tuple[float, ...]
    fraction: float
    seed: int
    dropped_zero_duration: int
    uncovered: int = 0

    def __len__(self) -> int:
        return len(self.times)

    def head(self, n: int) -> Trace:
        """The first ``n`` arrivals (a small slice for tests and quick replays)."""
        return Trace(self.job_types, self.times[:n], self.types[:n], self.durations[:n],
                     self.cpu[:n], self.memory[:n], self.fraction, self.seed,
                     self.dropped_zero_duration, self.uncovered)

    def offered_load(self, servers: int) -> dict[str, float]:
        """Mean bucketed demand over the hour per unit of cluster capacity, per resource."""
        d = np.asarray(self.durations)
        ty = np.asarray(self.types)
        cpu = np.array([t.cpu for t in self.job_types])[ty]
        mem = np.array([t.memory for t in self.job_types])[ty]
        return {"cpu": float((cpu * d).sum() / (HOUR * servers * MACHINE[0])),
                "memory": float((mem * d).sum() / (HOUR * servers * MACHINE[1]))}

    def bucketing_cost(self) -> dict[str, float]:
        """Resource-seconds the trace requested and what the bucketed types reserve."""
        d = np.asarray(self.durations)
        ty = np.asarray(self.types)
        b_cpu = np.array([t.cpu for t in self.job_types])[ty]
        b_mem = np.array([t.memory for t in self.job_types])[ty]
        req_cpu = float((np.asarray(self.cpu) * d).sum())
        req_mem = float((np.asarray(self.memory) * d).sum())
        return {"requested_core_s": req_cpu, "bucketed_core_s": float((b_cpu * d).sum()),
                "requested_memory_s": req_mem, "bucketed_memory_s": float((b_mem * d).sum())}

    def mix(self) -> dict[str, int]:
        counts = np.bincount(np.asarray(self.types, dtype=int), minlength=len(self.job_types))
        return {t.name: int(c) for t, c in zip(self.job_types, counts)}

    def cluster_spec(self, name: str, servers: int, policy: dict[str, Any],
                     seed: int = 0) -> dict[str, Any]:
        """The API declaration of a cluster of ``servers`` Alibaba machines for this trace."""
        return {
            "name": name, "dimensions": list(DIMENSIONS),
            "server_pools": [{"name": "m", "count": servers,
                              "capacity": dict(zip(DIMENSIONS, MACHINE))}],
            "job_types": [{"name": t.name, "demand": {"cpu": t.cpu, "memory": t.memory},
                           "reward": t.reward} for t in self.job_types],
            "policy": policy, "seed": seed,
        }


def bucket(cpu: float, memory: float, types: tuple[JobType, ...]) -> int:
    """Index of the smallest type (least reward) covering (cpu, memory); -1 if none does."""
    best = -1
    for k, t in enumerate(types):
        if t.cpu >= cpu - 1e-12 and t.memory >= memory - 1e-12 and (
                best < 0 or t.reward < types[best].reward):
            best = k
    return best


def type_name(cpu: float, memory: float) -> str:
    return f"c{cpu:g}-m{memory:g}"


def _read(name: str, usecols: list[int], dtypes: dict[int, Any]) -> Any:
    import pandas as pd

    ref = resources.files("spar") / "data" / "samples" / name
    with resources.as_file(ref) as path:
        return pd.read_csv(path, header=None, usecols=usecols, dtype=dtypes, engine="c")


@lru_cache(maxsize=1)
def _tasks() -> dict[tuple[str, str], tuple[float, float, float]]:
    """(job, task) -> (ready time, planned cores, planned memory units)."""
    frame = _read("sample_tasks.csv", [0, 1, 2, 3, 4, 5],
                  {0: float, 1: str, 2: str, 3: float, 4: float, 5: float})
    rows: dict[str, dict[str, tuple[float, float, float]]] = {}
    arrival: dict[str, float] = {}
    for arr, job, task, dur, cpu, mem in frame.itertuples(index=False, name=None):
        rows.setdefault(job, {})[task] = (dur, cpu / 100.0, mem)
        arrival[job] = arr
    out: dict[tuple[str, str], tuple[float, float, float]] = {}
    for job, tasks in rows.items():
        ready = _ready_times(arrival[job], tasks)
        for task, (_, cpu, mem) in tasks.items():
            out[(job, task)] = (ready[task], cpu, mem)
    return out


def _ready_times(arrival: float, tasks: dict[str, tuple[float, float, float]]
                 ) -> dict[str, float]:
    """When each task of one job may start: after all its parents (named in the task name)
    finished. Names that do not parse, unknown parents and cycles add no wait."""
    by_id: dict[str, str] = {}
    parents: dict[str, list[str]] = {}
    for task in tasks:
        m = _TASK_ID.match(task)
        if m:
            by_id[m.group(1)] = task
            parents[task] = [p for p in m.group(2).split("_") if p]
        else:
            parents[task] = []
    ready: dict[str, float] = {}
    visiting: set[str] = set()

    def finish(task: str) -> float:
        return start(task) + tasks[task][0]

    def start(task: str) -> float:
        if task in ready:
            return ready[task]
        visiting.add(task)
        t = arrival
        for p in parents[task]:
            name = by_id.get(p)
            if name is not None and name not in visiting:
                t = max(t, finish(name))
        visiting.discard(task)
        ready[task] = t
        return t

    for task in tasks:
        start(task)
    return ready


@lru_cache(maxsize=1)
def _instances() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every instance's (job, task, duration), in file order."""
    frame = _read("sample_instances.csv", [1, 2, 4], {1: str, 2: str, 4: float})
    return (frame[1].to_numpy(), frame[2].to_numpy(), frame[4].to_numpy(dtype=float))


def load(fraction: float = 0.01, seed: int = 0, *, until: float = math.inf,
         types: tuple[tuple[float, float], ...] = DEFAULT_TYPES) -> Trace:
    """The trace thinned to ``fraction`` of its instances (seeded), arrivals before ``until``
    seconds, sizes bucketed to ``types`` ((cores, memory units) each). An instance no type
    covers is counted in ``Trace.uncovered`` and left out."""
    if not 0.0 < fraction <= 1.0:
        raise ValueError(f"fraction must be in (0, 1], got {fraction!r}")
    job_types = tuple(JobType(type_name(c, m), float(c), float(m)) for c, m in types)
    if len({t.name for t in job_types}) != len(job_types):
        raise ValueError("job types must be distinct")
    jobs, tasks, durations = _instances()
    keep = np.flatnonzero(np.random.default_rng(seed).random(len(jobs)) < fraction)
    info = _tasks()
    rows: list[tuple[float, int, float, float, float]] = []
    zero = uncovered = 0
    for i in keep.tolist():
        d = float(durations[i])
        if not d > 0:
            zero += 1
            continue
        t, cpu, mem = info[(jobs[i], tasks[i])]
        if t >= until:
            continue
        k = bucket(cpu, mem, job_types)
        if k < 0:
            uncovered += 1
            continue
        rows.append((t, k, d, cpu, mem))
    rows.sort(key=lambda r: r[0])  # stable: file order breaks ties, so a seed fixes the trace
    return Trace(job_types=job_types, times=tuple(r[0] for r in rows),
                 types=tuple(r[1] for r in rows), durations=tuple(r[2] for r in rows),
                 cpu=tuple(r[3] for r in rows), memory=tuple(r[4] for r in rows),
                 fraction=fraction, seed=seed, dropped_zero_duration=zero,
                 uncovered=uncovered)
