"""Replay a window of a cluster's decision log under another policy, beside the policy that ran.

Each side is a fresh engine built from the cluster's declaration (the alternative's with its
policy replaced), fed the window's logged events in log order. Where the alternative meets an
event the log no longer defines, the replay decides as ``ASSUMPTIONS`` says and counts it:

- a job the alternative admits and the log's policy refused has no logged end: its lifetime is
  drawn from the logged lifetimes of its type (of any type where its own has none), with the
  run's seed; it ends that long after it starts;
- a job the alternative refuses (or ends: a preemption) has its later events dropped;
- a job the alternative starts at another time than the log (queues) keeps its logged
  lifetime: its end moves with its start;
- events about jobs that opened before the window are dropped (both sides start empty);
- moment deployments only the alternative admitted hold their arrival size (the log has no
  scale-out for them) until their drawn end.

Under the policy that ran, on the whole log, none of this is needed and every answer is the
logged one (``reproduces_log``): that is what makes the alternative's figures comparable. The
lifetimes drawn are the only randomness, so several seeds give an interval where they entered.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from app.policies.errors import PolicyError
from app.policies.protocol import PolicyAdapter
from app.sim.whatif.jobs import JobModel, Lives, Logged, clock_of, logged_lives
from app.sim.whatif.measures import Measures

ASSUMPTIONS = {
    "lifetime_drawn": "a job only this policy admitted has no logged end: its lifetime was "
                      "drawn from the logged lifetimes of its type (of all types where its own "
                      "had none)",
    "never_ends": "a job only this policy admitted, with no logged lifetime to draw from, held "
                  "its place to the window's end",
    "lifetime_moved": "a job this policy started at another time than the log kept its logged "
                      "lifetime: its end moved with its start",
    "no_logged_end": "a job this policy started at another time, with no logged end in the "
                     "window, held its place to the window's end",
    "dropped": "an event about a job this policy refused or had ended was dropped",
    "before_window": "an event about a job that opened before the window was dropped",
    "refused": "an event this policy refused as invalid (a 4xx under it) was dropped",
    "held_at_arrival_size": "a deployment only this policy admitted has no logged scale-out: it "
                            "held its arrival size",
}


@dataclass
class SideResult:
    answers: list[Mapping[str, Any] | None]  # per logged row: this side's answer, or None
    assumptions: Counter[str]
    summary: dict[str, Any]
    refusals: Counter[str] = field(default_factory=Counter)


class Side:
    """One engine fed the window, with the counterfactual bookkeeping of module docstring."""

    def __init__(self, adapter: PolicyAdapter[Any], model: JobModel, spec: Mapping[str, Any],
                 lives: Lives, rng: np.random.Generator,
                 known: Mapping[str, float] | None = None):
        """``known``: lifetimes the log does not show but the caller knows (a trace replay's
        own durations, for checking the replay against the simulator): a job only this
        side admits takes its own from there instead of a drawn one."""
        self.adapter, self.model, self.lives, self.rng = adapter, model, lives, rng
        self.known = known
        self.measures = Measures(model, spec)
        self.heap: list[tuple[float, int, str]] = []  # (end, order, job) of scheduled ends
        self.started: dict[str, float] = {}  # job -> when this side started it
        self.alive: set[str] = set()  # started and not ended
        self.waiting: set[str] = set()  # admitted, not started (queues)
        self.pending: dict[str, float] = {}  # job -> lifetime to apply at its start
        self.moved: set[str] = set()  # jobs whose logged end is replaced by a scheduled one
        self.dropped: set[str] = set()
        self.only_here: set[str] = set()  # admitted here, refused in the log
        self.counts: Counter[str] = Counter()
        self.refusals: Counter[str] = Counter()
        self.types = {job: life.type for job, life in lives.jobs.items()}
        self.now = -np.inf
        self._order = 0

    # -- applying -------------------------------------------------------------------------
    def _apply(self, event: Mapping[str, Any], now: float) -> Mapping[str, Any] | None:
        try:
            answer = self.adapter.apply(event).to_dict()
        except PolicyError as exc:
            self.counts["refused"] += 1
            self.refusals[exc.code] += 1
            return None
        m = self.model
        job = event.get(m.id_field) if m.id_field else None
        if event.get("kind") == m.opens and job is not None:
            if m.admitted(answer):
                self.waiting.add(job)
            else:
                self.dropped.add(job)
        opened = job if event.get("kind") == m.opens and m.admitted(answer) else None
        for started, at in m.starts(answer, opened, now):
            self._on_start(started, at)
        if event.get("kind") == m.closes and job is not None:
            self.alive.discard(job)
        for gone in m.ended(event, answer):
            self.alive.discard(gone)
            self.dropped.add(gone)
        self.measures.observe(event, answer, now, self.types)
        return answer

    def _on_start(self, job: str, at: float) -> None:
        self.waiting.discard(job)
        self.alive.add(job)
        self.started[job] = at
        if job in self.pending:
            self._schedule(job, at + self.pending.pop(job))
            return
        life = self.lives.jobs.get(job)
        if life is None or not life.admitted or life.started == at:
            # The logged end applies as it is, or (refused in the log) _only_here draws one.
            return
        if life.length is not None:
            self._schedule(job, at + life.length)
            self.counts["lifetime_moved"] += 1
        else:
            self.counts["no_logged_end"] += 1
        self.moved.add(job)

    def _schedule(self, job: str, end: float) -> None:
        self._order += 1
        heapq.heappush(self.heap, (end, self._order, job))

    def _draw(self, kind: str) -> float | None:
        pool = self.lives.lengths(kind) or self.lives.lengths()
        return float(self.rng.choice(pool)) if pool else None

    def _flush(self, until: float, row: Logged) -> None:
        """Apply the scheduled ends due by ``until``, before ``row``."""
        m = self.model
        while self.heap and self.heap[0][0] <= until:
            end, _, job = heapq.heappop(self.heap)
            if job not in self.alive:
                continue
            event: dict[str, Any] = {"kind": m.closes, m.id_field: job}
            if m.clock == "at":
                event["at"] = max(end, self.now)
            elif "at" in row.request:  # a placement cluster that keeps time: the next event's
                event["at"] = row.request["at"]
            self._apply(event, max(end, self.now) if m.clock == "at" else end)

    # -- one logged row ---------------------------------------------------------------------
    def feed(self, row: Logged) -> Mapping[str, Any] | None:
        m, r = self.model, row.request
        now = clock_of(m, row)
        self._flush(now, row)
        self.now = max(self.now, now)
        kind = r.get("kind")
        job = r.get(m.id_field) if m.id_field else None
        if job is None or m.id_field is None:
            return self._apply(r, now)
        if job not in self.lives.jobs:
            self.counts["before_window"] += 1
            return None
        if kind == m.opens:
            answer = self._apply(r, now)
            if answer is not None and m.admitted(answer) and not m.admitted(row.response):
                self._only_here(job)
            return answer
        if job in self.dropped:
            self.counts["dropped"] += 1
            return None
        if kind == m.closes:
            if job in self.moved:
                return None  # its end is scheduled from this side's start
            if job in self.waiting:  # the log ran it; here it has not started yet
                length = self.lives.jobs[job].length
                if length is not None:
                    self.pending[job] = length
                    self.counts["lifetime_moved"] += 1
                self.moved.add(job)
                return None
        return self._apply(r, now)

    def _only_here(self, job: str) -> None:
        self.only_here.add(job)
        if self.model.name == "moments":
            self.counts["held_at_arrival_size"] += 1
        length = self.known[job] if self.known is not None else \
            self._draw(self.lives.jobs[job].type)
        if length is None:
            self.counts["never_ends"] += 1
            return
        self.counts["lifetime_drawn"] += 1
        if job in self.alive:
            self._schedule(job, self.started[job] + length)
        else:
            self.pending[job] = length

    def finish(self) -> None:
        """Scheduled ends past the window's last event do not happen: the window ends first."""
        self.heap.clear()


def run_side(build: Callable[[], PolicyAdapter[Any]], model: JobModel, spec: Mapping[str, Any],
             rows: Sequence[Logged], lives: Lives, seed: int,
             on_row: Callable[[int], None] | None = None,
             known: Mapping[str, float] | None = None) -> SideResult:
    side = Side(build(), model, spec, lives, np.random.default_rng(seed), known)
    answers = []
    for i, row in enumerate(rows):
        answers.append(side.feed(row))
        if on_row is not None:
            on_row(i)
    side.finish()
    return SideResult(answers, side.counts, side.measures.summary(), side.refusals)


def _word(answer: Mapping[str, Any] | None) -> str | None:
    return None if answer is None else answer.get("decision")


def differences(rows: Sequence[Logged], a: Sequence[Mapping[str, Any] | None],
                b: Sequence[Mapping[str, Any] | None], first: int) -> dict[str, Any]:
    """The logged events the two sides decided differently (another decision word, or one
    side dropped the event; policies of one family word their reasons and details each their
    own way): how many, and the first ``first`` of them with both answers (None: dropped)."""
    out, count = [], 0
    for row, x, y in zip(rows, a, b, strict=True):
        if _word(x) == _word(y):
            continue
        count += 1
        if len(out) < first:
            out.append({"seq": row.seq, "event_id": row.event_id, "event": dict(row.request),
                        "logged": dict(row.response), "policy": x, "alternative": y})
    return {"count": count, "first": out}


def interval(values: Iterable[float | None]) -> dict[str, Any] | None:
    """Mean and the range over seeds (where a figure depended on the lifetimes drawn)."""
    xs = [v for v in values if v is not None]
    if not xs:
        return None
    return {"mean": float(np.mean(xs)), "min": float(min(xs)), "max": float(max(xs)),
            "seeds": len(xs)}


HEADLINE = (("acceptance",), ("reward_rate",), ("scale_outs", "failure_rate"),
            ("cost_per_period",))


def _at(summary: Mapping[str, Any], path: tuple[str, ...]) -> float | None:
    cur: Any = summary
    for key in path:
        if not isinstance(cur, Mapping) or key not in cur:
            return None
        cur = cur[key]
    return cur if isinstance(cur, (int, float)) else None


def ticker(total: int, progress: Callable[[int, int], None] | None) -> Callable[[int], None]:
    """A per-row callback that reports ``progress(done, total)`` every thousand rows."""
    done = [0]

    def tick(_i: int) -> None:
        done[0] += 1
        if progress is not None and done[0] % 1000 == 0:
            progress(done[0], total)
    return tick


def seeded(build: Callable[[], PolicyAdapter[Any]], model: JobModel, spec: Mapping[str, Any],
           rows: Sequence[Logged], lives: Lives, seeds: Sequence[int],
           tick: Callable[[int], None] | None = None,
           tick_rest: Callable[[int], None] | None = None) -> list[SideResult]:
    """One policy's replays: under the first seed (counted by ``tick``), and under the others
    (``tick_rest``) only if it drew lifetimes, the one random thing in a replay; else every
    seed gives the same run."""
    first = run_side(build, model, spec, rows, lives, seeds[0], tick)
    if not first.assumptions.get("lifetime_drawn"):
        return [first]
    return [first] + [run_side(build, model, spec, rows, lives, s, tick_rest)
                      for s in seeds[1:]]


def what_if(build_policy: Callable[[], PolicyAdapter[Any]],
            build_alternative: Callable[[], PolicyAdapter[Any]], model: JobModel,
            spec: Mapping[str, Any], rows: Sequence[Logged], seeds: Sequence[int] = (0,),
            first: int = 20, whole_log: bool = True,
            progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """The what-if of ``rows`` (a window of the log, in order): the policy that ran replayed
    (``reproduces_log``: every answer the logged one, which holds on a whole log), the
    alternative under each seed, their summaries, the assumptions each made and how many
    events they touched, and the decisions that differ (first seed) with both answers."""
    lives = logged_lives(model, rows)
    # At most: the seeds after the first run only where lifetimes were drawn.
    tick = ticker(len(rows) * (1 + len(seeds)), progress)
    base = run_side(build_policy, model, spec, rows, lives, seeds[0], tick)
    alts = seeded(build_alternative, model, spec, rows, lives, seeds, tick, tick)
    logged = [dict(r.response) for r in rows]
    mismatch = sum(1 for x, y in zip(base.answers, logged) if x != y)
    # Only drawn lifetimes are random: without any, every seed gives the same run.
    drew = any(a.assumptions.get("lifetime_drawn") for a in alts)
    headline = {"/".join(p): interval(_at(a.summary, p) for a in alts) for p in HEADLINE
                if _at(alts[0].summary, p) is not None}
    out = {
        "events": len(rows),
        "first_seq": rows[0].seq if rows else None,
        "last_seq": rows[-1].seq if rows else None,
        "seeds": list(seeds),
        "random": drew,
        "policy": {"summary": base.summary, "assumptions": _named(base.assumptions),
                   "refusals": dict(base.refusals),
                   "reproduces_log": mismatch == 0, "answers_not_logged": mismatch,
                   "whole_log": whole_log},
        "alternative": {"summary": alts[0].summary,
                        "assumptions": _named(alts[0].assumptions),
                        "refusals": dict(alts[0].refusals),
                        "over_seeds": headline if drew else None},
        "differences": differences(rows, base.answers, alts[0].answers, first),
        "lifetimes": {"jobs": len(lives.jobs), "with_logged_lifetime": len(lives.lengths()),
                      "clock": model.clock},
    }
    return out


def _named(counts: Mapping[str, int]) -> list[dict[str, Any]]:
    return [{"assumption": k, "events": n, "meaning": ASSUMPTIONS[k]}
            for k, n in sorted(counts.items()) if n]
