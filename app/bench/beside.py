"""Decisions measured beside a background job (the calibration and what-if benchmarks): a
driver process sending a moment cluster's events open-loop, phases of answered latencies, and
the CPU of the server's process tree (the job's child included) from /proc."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import random
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from app.bench.rawhttp import RawConnection

# The cluster the driver sends events to: in the table, so it decides at once.
DRIVEN = {"capacity_cores": 2000, "sla": 1e-4, "policy": {"kind": "second_moment"}}
POPULATION = 200  # live deployments the driver keeps the driven cluster near
HOURS_PER_REQUEST = 0.01  # the driver's clock: `at` moves on this much per request
WINDOW = 5.0  # seconds per entry of a phase's p99_ms_by_window
CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


# -- CPU from /proc ------------------------------------------------------------------------

@dataclass(frozen=True)
class ProcStat:
    pid: int
    ppid: int
    cpu_s: float  # utime + stime
    nice: int
    cmdline: str


def _stat(pid: int) -> ProcStat | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            text = f.read()
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmdline = f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:  # gone meanwhile
        return None
    rest = text[text.rindex(")") + 2:].split()  # fields 3.. (comm may hold spaces)
    if rest[0] == "Z":  # exited, not yet reaped: its times are about to vanish with it
        return None
    return ProcStat(pid, int(rest[1]), (int(rest[11]) + int(rest[12])) / CLK_TCK,
                    int(rest[16]), cmdline)


def process_tree(root: int) -> list[ProcStat]:
    """``root`` and every process descended from it, as /proc shows them now."""
    stats = [s for p in os.listdir("/proc") if p.isdigit() and (s := _stat(int(p)))]
    children: dict[int, list[ProcStat]] = {}
    for s in stats:
        children.setdefault(s.ppid, []).append(s)
    out = [s for s in stats if s.pid == root]
    for s in out:  # grows as it goes: breadth first
        out += children.get(s.pid, [])
    return out


@dataclass(frozen=True)
class CpuSample:
    """CPU seconds so far: each calibration child's (with its own children), the rest of the
    server's processes, and the machine's busy time in core-seconds (/proc/stat)."""

    children: dict[int, float]
    child_nice: tuple[int, ...]
    server_s: float
    machine_busy_s: float

    @staticmethod
    def take(server_pid: int, child: str) -> CpuSample:
        """``child``: the module the background children run."""
        tree = process_tree(server_pid)
        roots = {s.pid for s in tree if child in s.cmdline}
        under = {s.pid: s.ppid for s in tree}

        def child_of(pid: int) -> int | None:
            while pid in under:
                if pid in roots:
                    return pid
                pid = under[pid]
            return None

        children: dict[int, float] = dict.fromkeys(roots, 0.0)
        server = 0.0
        for s in tree:
            root = child_of(s.pid)
            if root is None:
                server += s.cpu_s
            else:
                children[root] += s.cpu_s
        with open("/proc/stat") as f:
            user, nice, system, _idle, _iowait, irq, softirq = \
                (int(x) for x in f.readline().split()[1:8])
        busy = user + nice + system + irq + softirq  # steal is the hypervisor's, not ours
        return CpuSample(children, tuple(s.nice for s in tree if s.pid in roots), server,
                         busy / CLK_TCK)


def children_cpu(before: CpuSample, after: CpuSample) -> float:
    """CPU seconds the calibration children spent between the samples (one started meanwhile
    counts from 0; one that ended meanwhile is lost with its last interval)."""
    return sum(cpu - before.children.get(pid, 0.0) for pid, cpu in after.children.items())


# -- the driver, in a process of its own ------------------------------------------------------

class Orchestrator:
    """The requests of one orchestrator of the driven cluster: deployments (1-8 cores),
    1-core scale-outs of live ones, and shutdowns that keep it near ``population`` live."""

    def __init__(self, cid: str, seed: int, population: int = POPULATION):
        self.base = f"/v1/clusters/{cid}/deployments"
        self.rng = random.Random(seed)
        self.population = population
        self.live: list[str] = []
        self.n = 0
        self.at = 0.0

    def tick(self) -> tuple[str, float]:
        self.n += 1
        self.at = round(self.at + HOURS_PER_REQUEST, 6)
        return f"e{self.n}", self.at

    def next(self) -> tuple[str, str, dict[str, Any] | None, str]:
        """(method, path, body, kind) of the next request, with a fresh event id and `at`."""
        eid, at = self.tick()
        u = self.rng.random()
        if self.live and u < 0.25 * min(1.0, len(self.live) / self.population):
            dep = self.live.pop(self.rng.randrange(len(self.live)))
            return "DELETE", f"{self.base}/{dep}?at={at}&event_id={eid}", None, "shutdown"
        if self.live and u < 0.75:
            dep = self.rng.choice(self.live)
            return "POST", f"{self.base}/{dep}/scale-outs", {
                "event_id": eid, "cores": 1, "at": at}, "scale_out"
        return "POST", self.base, {"event_id": eid, "deployment_id": f"d{self.n}",
                                   "cores": self.rng.randint(1, 8), "at": at}, "deployment"

    def again(self, method: str, path: str, body: dict[str, Any] | None
              ) -> tuple[str, dict[str, Any] | None]:
        """The same request with a later `at` and a new event id: for an answer
        time_went_backwards (a later request of this driver reached the cluster first)."""
        eid, at = self.tick()
        if body is None:
            return path.split("?")[0] + f"?at={at}&event_id={eid}", None
        return path, {**body, "event_id": eid, "at": at}

    def record(self, kind: str, body: dict[str, Any] | None, answer: Any) -> None:
        if kind == "deployment" and isinstance(answer, dict) \
                and answer.get("decision") == "admitted":
            self.live.append(body["deployment_id"])  # type: ignore[index]


# A sample: (monotonic time sent, latency ms or None when not sent, outcome, retried).
Sample = tuple[float, float | None, str, bool]


async def _drive(host: str, port: int, headers: dict[str, str], cid: str, rate: float,
                 outstanding: int, seed: int, stop: Any, out: Any) -> None:
    """Requests at ``rate`` per second on a fixed schedule whatever the answers, on up to
    ``outstanding`` connections; a send due while all are busy is a sample ``not sent``.
    Samples go to ``out`` in chunks, four times a second."""
    orch = Orchestrator(cid, seed)
    idle: list[RawConnection] = []
    tasks: set[asyncio.Task[None]] = set()
    chunk: list[Sample] = []

    async def one(conn: RawConnection, sent: float) -> None:
        method, path, body, kind = orch.next()
        retried = False
        try:
            status, answer = await conn.request(method, path, body)
            if status == 409 and isinstance(answer, dict) \
                    and answer.get("code") == "time_went_backwards":
                retried = True
                path, body = orch.again(method, path, body)
                status, answer = await conn.request(method, path, body)
        except (ConnectionError, OSError, asyncio.IncompleteReadError):
            await conn.close()
            chunk.append((sent, (time.monotonic() - sent) * 1000, "connection error", retried))
            return
        finally:
            idle.append(conn)
        latency = (time.monotonic() - sent) * 1000
        if status in (200, 201):
            orch.record(kind, body, answer)
            chunk.append((sent, latency, "ok", retried))
        else:
            code = answer.get("code") if isinstance(answer, dict) else None
            chunk.append((sent, latency, f"{status} {code}" if code else str(status), retried))

    due = flushed = time.monotonic()
    while not stop.is_set():
        now = time.monotonic()
        if now < due:
            await asyncio.sleep(due - now)
        sent, due = due, due + 1.0 / rate
        if now - flushed >= 0.25:
            out.put(chunk)
            chunk, flushed = [], now
        if len(tasks) >= outstanding:
            chunk.append((sent, None, "not sent", False))
            continue
        conn = idle.pop() if idle else RawConnection(host, port, headers)
        task = asyncio.create_task(one(conn, time.monotonic()))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
    await asyncio.gather(*tasks)
    out.put(chunk)
    for conn in idle:
        await conn.close()


def driver_process(stop: Any, out: Any, host: str, port: int, headers: dict[str, str],
                    cid: str, rate: float, outstanding: int, seed: int) -> None:
    asyncio.run(_drive(host, port, headers, cid, rate, outstanding, seed, stop, out))
    out.put(None)


# -- phases ------------------------------------------------------------------------------

@dataclass
class Phase:
    round: int
    name: str  # quiet | calibrating
    start: float = 0.0  # monotonic
    end: float = 0.0
    child_cpu_s: float = 0.0
    child_nice: tuple[int, ...] = ()
    child_alive_at_end: bool = False
    server_cpu_s: float = 0.0
    machine_busy_s: float = 0.0
    load1: float = 0.0
    samples: list[Sample] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        seconds = self.end - self.start
        lat = np.array([s[1] for s in self.samples if s[1] is not None] or [0.0])
        ok = sum(1 for s in self.samples if s[2] == "ok")
        errors: dict[str, int] = {}
        for s in self.samples:
            if s[2] != "ok":
                errors[s[2]] = errors.get(s[2], 0) + 1
        return {
            "round": self.round, "phase": self.name, "seconds": round(seconds, 2),
            "requests": len(self.samples), "answered": ok,
            "decisions_per_s": round(ok / seconds, 1) if seconds else 0.0,
            "p50_ms": round(float(np.percentile(lat, 50)), 2),
            "p99_ms": round(float(np.percentile(lat, 99)), 2),
            "errors": sum(errors.values()), "error_codes": errors,
            "retried": sum(1 for s in self.samples if s[3]),
            "child_cpu_share": round(self.child_cpu_s / seconds, 3) if seconds else 0.0,
            "child_nice": list(self.child_nice), "child_alive_at_end": self.child_alive_at_end,
            "server_cpu_share": round(self.server_cpu_s / seconds, 3) if seconds else 0.0,
            "machine_busy_cores": round(self.machine_busy_s / seconds, 2) if seconds else 0.0,
            "load1": round(self.load1, 2),
            "p99_ms_by_window": self.windows(WINDOW),
        }

    def windows(self, width: float) -> list[float]:
        """p99 (ms) of the requests sent in each ``width``-second window of the phase: where
        in the phase the slow answers were."""
        out = []
        t = self.start
        while t < self.end:
            lat = [s[1] for s in self.samples if t <= s[0] < t + width and s[1] is not None]
            out.append(round(float(np.percentile(lat, 99)), 1) if lat else 0.0)
            t += width
        return out


class Samples:
    """The driver's samples as they arrive, read by a thread of this process."""

    def __init__(self, source: Any):
        self.source = source
        self.items: list[Sample] = []
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        while (chunk := self.source.get()) is not None:
            with self.lock:
                self.items += chunk

    def answered(self) -> bool:
        with self.lock:
            return any(s[2] == "ok" for s in self.items)

    def between(self, start: float, end: float) -> list[Sample]:
        with self.lock:
            return [s for s in self.items if start <= s[0] < end]


def wait_for(predicate: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} within {seconds:g} s")
        time.sleep(0.1)


def measure(phase: Phase, server_pid: int, seconds: float | None, child: str,
            until: Callable[[], bool] | None = None, limit: float = 600.0) -> None:
    """Measure ``phase`` over ``seconds``, or (None) until ``until()`` holds, at most
    ``limit`` seconds."""
    before = CpuSample.take(server_pid, child)
    phase.start = time.monotonic()
    peak: dict[int, float] = {}  # each child's CPU when last seen alive
    nice: tuple[int, ...] = ()
    if seconds is not None:
        time.sleep(seconds)
    else:
        assert until is not None
        while not until() and time.monotonic() - phase.start < limit:
            seen = CpuSample.take(server_pid, child)
            for pid, cpu in seen.children.items():
                peak[pid] = max(cpu, peak.get(pid, 0.0))
            nice = seen.child_nice or nice
            time.sleep(0.25)
    after = CpuSample.take(server_pid, child)
    # A child that ended with the phase is gone from the last sample: count it as last seen.
    after = dataclasses.replace(after, children={**peak, **after.children},
                                child_nice=after.child_nice or nice)
    phase.end = time.monotonic()
    phase.load1 = os.getloadavg()[0]
    phase.child_cpu_s = children_cpu(before, after)
    phase.child_nice = after.child_nice
    phase.child_alive_at_end = bool(after.children)
    phase.server_cpu_s = after.server_s - before.server_s
    phase.machine_busy_s = after.machine_busy_s - before.machine_busy_s


def progress(phase: Phase, samples: Samples) -> None:
    phase.samples = samples.between(phase.start, phase.end)
    s = phase.summary()
    print(f"  round {phase.round} {phase.name:11} {s['decisions_per_s']:6.1f} decisions/s  "
          f"p50 {s['p50_ms']:7.2f} ms  p99 {s['p99_ms']:7.2f} ms  errors {s['errors']}  "
          f"child CPU {s['child_cpu_share']:.2f}  server CPU {s['server_cpu_share']:.2f}  "
          f"load {s['load1']:.2f}", file=sys.stderr, flush=True)



def print_phases(phases: list[dict[str, Any]]) -> None:
    print(f"{'round':>5} {'phase':11} {'dec/s':>7} {'p50 ms':>8} {'p99 ms':>8} {'x quiet':>7} "
          f"{'errors':>6} {'child CPU':>9} {'server CPU':>10} {'busy cores':>10} {'load':>5}")
    for p in phases:
        ratio = "" if p.get("p99_vs_quiet") is None else f"{p['p99_vs_quiet']:.2f}"
        print(f"{p['round']:5d} {p['phase']:11} {p['decisions_per_s']:7.1f} {p['p50_ms']:8.2f} "
              f"{p['p99_ms']:8.2f} {ratio:>7} "
              f"{p['errors']:6d} {p['child_cpu_share']:9.2f} {p['server_cpu_share']:10.2f} "
              f"{p['machine_busy_cores']:10.2f} {p['load1']:5.2f}"
              + (f"  {p['error_codes']}" if p["error_codes"] else ""))


def plot(path: Path, out: dict[str, Any]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    phases = out["phases"]
    x = list(range(len(phases)))
    labels = [f"{p['round']} {p['phase']}" for p in phases]
    colours = ["tab:blue" if p["phase"] == "quiet" else "tab:orange" for p in phases]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(max(7, len(phases) * 1.1), 6),
                                      sharex=True)
    top.bar(x, [p["p99_ms"] for p in phases], color=colours)
    top.set_ylabel("decision p99 (ms)")
    child = out.get("child", "calibration")
    top.set_title(f"{out['rate']:g} requests/s: quiet (blue), {child} running (orange)")
    width = 0.4
    bottom.bar([i - width / 2 for i in x], [p["child_cpu_share"] for p in phases], width,
               label=f"{child} child", color="tab:orange")
    bottom.bar([i + width / 2 for i in x], [p["server_cpu_share"] for p in phases], width,
               label="server process", color="tab:gray")
    bottom.set_ylabel("CPU share (1 = one core)")
    bottom.set_xticks(x, labels, rotation=30, ha="right")
    bottom.legend()
    for ax in (top, bottom):
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3, axis="y")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
