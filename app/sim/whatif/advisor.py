"""The policy advisor: every kind of a cluster's family (and a small grid of each one's main
parameters) replayed over one window of its log, ranked by the objective the user names.

Each candidate is a what-if alternative (replay.py), so the same counterfactual rules apply
and are counted per candidate; the policy that ran is replayed once, exactly, and every
candidate's figure is set against it. A candidate that drew no lifetimes is deterministic, so
it runs under the first seed only; one that drew runs under every seed and its figure comes
with the range over them.

Objectives (``OBJECTIVES`` in app/policies/alternatives.py, beside the candidates), each read
off a side's summary (measures.py):
- ``reward_rate`` (placement, queues; higher is better) and ``acceptance`` (placement),
  optionally under ``max_rejection``: a candidate whose rejected share of arrivals exceeds it
  ranks after every one that keeps it;
- ``queue_wait`` (queues; the mean wait of the jobs started; lower is better);
- ``utilization`` (placement, queues, moments; the mean over dimensions): on a moment cluster
  only a candidate whose scale-out failure rate stays at most the cluster's τ keeps it;
- ``cost_per_period`` (reservations; lower): only a candidate whose violation rate stays at
  most ε on every resource keeps it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from app.families.registry import REGISTRY
from app.policies.alternatives import OBJECTIVES
from app.policies.protocol import PolicyAdapter
from app.sim.dispatch import dispatch
from app.sim.whatif.jobs import MODELS, JobModel, Lives, Logged, logged_lives
from app.sim.whatif.replay import SideResult, interval, run_side, seeded, ticker


def label(policy: Mapping[str, Any]) -> str:
    """A candidate's short name: its kind and the parameters the advisor set."""
    def text(v: Any) -> str:
        return f"{v:g}" if isinstance(v, float) else str(v)
    parts = [str(policy.get("kind"))]
    for key in ("d", "reservation", "sampling", "order", "threshold"):
        v = policy.get(key)
        if isinstance(v, Mapping):  # DRA's reservation: {"b": 0.5} or {"slots": n}
            parts += [f"{k}={text(x)}" for k, x in v.items()]
        elif v is not None:
            parts.append(f"{key}={text(v)}")
    return " ".join(parts)


@dataclass(frozen=True)
class Candidate:
    policy: Mapping[str, Any]
    spec: Mapping[str, Any]  # its declaration (the cluster's, with this policy)


def build(spec: Mapping[str, Any]) -> PolicyAdapter[Any]:
    return REGISTRY.family_for(spec["policy"]["kind"]).adapter.build(spec)


def score(objective: str, summary: Mapping[str, Any]) -> float | None:
    if objective == "queue_wait":
        wait = summary.get("queue_wait") or {}
        return wait.get("mean")
    if objective == "utilization":
        shares = [v for v in (summary.get("utilization") or {}).values() if v is not None]
        return float(np.mean(shares)) if shares else None
    value = summary.get(objective)
    return float(value) if isinstance(value, (int, float)) else None


def keeps(objective: str, constraint: Mapping[str, Any], summary: Mapping[str, Any]) -> bool:
    """Whether a side's summary keeps the objective's constraint (module docstring)."""
    if "max_rejection" in constraint:
        acc = summary.get("acceptance")
        return acc is None or 1.0 - acc <= constraint["max_rejection"]
    if "failure_rate_at_most" in constraint:
        rate = (summary.get("scale_outs") or {}).get("failure_rate")
        return rate is None or rate <= constraint["failure_rate_at_most"]
    if constraint.get("violation_rate_at_most_epsilon"):
        return all(r.get("violation_rate") is None or r.get("epsilon") is None
                   or r["violation_rate"] <= r["epsilon"]
                   for r in (summary.get("reservations") or {}).values())
    return True


def constraint_of(family: str, objective: str, spec: Mapping[str, Any],
                  max_rejection: float | None) -> dict[str, Any] | None:
    if max_rejection is not None and objective in ("reward_rate", "acceptance", "utilization") \
            and family == "placement":
        return {"max_rejection": max_rejection}
    if family == "moments":
        return {"failure_rate_at_most": float(spec["sla"])}
    if family == "reservations":
        return {"violation_rate_at_most_epsilon": True}
    return None


def advise(spec: Mapping[str, Any], options: Sequence[Candidate], model: JobModel,
           rows: Sequence[Logged], objective: str, seeds: Sequence[int] = (0,),
           max_rejection: float | None = None, skipped: Sequence[Mapping[str, Any]] = (),
           progress: Callable[[int, int], None] | None = None,
           scheduler: str | None = None) -> dict[str, Any]:
    """The candidates ``options`` ranked by ``objective`` over ``rows``, with the policy that
    ran (declared in ``spec``) among them as the reference; ``skipped``: candidates the caller
    could not declare, with why. The candidates replay one after another here, or on the
    workers of the Dask cluster at ``scheduler`` (app/sim/dispatch.py): the same figures
    either way."""
    better = OBJECTIVES[objective][1]
    constraint = constraint_of(model.name, objective, spec, max_rejection)
    lives = logged_lives(model, rows)
    tick = ticker(len(rows) * (1 + len(options)), progress)
    current = Candidate(spec["policy"], spec)
    base = run_side(lambda: build(spec), model, spec, rows, lives, seeds[0], tick)
    base_score = score(objective, base.summary)
    if scheduler is None:
        results = (candidate_runs((o.spec, model.name, rows, lives, seeds), tick)
                   for o in options)
    else:
        results = _reported(dispatch(candidate_runs, [(o.spec, model.name, rows, lives, seeds)
                                                      for o in options], scheduler=scheduler),
                            len(rows), len(rows) * (1 + len(options)), progress)
    ranked = []
    for option, runs in zip((current, *options), _with_base(base, results), strict=True):
        is_current = option is current
        mean = interval(score(objective, r.summary) for r in runs)
        drew = len(runs) > 1
        value = None if mean is None else mean["mean"]
        ranked.append({
            "label": label(option.policy), "policy": dict(option.policy), "score": value,
            "interval": mean if drew else None,
            "meets_constraint": constraint is None or keeps(objective, constraint,
                                                            runs[0].summary),
            "change": _change(value, base_score),
            "is_current": is_current,
            "assumptions": {k: n for k, n in sorted(runs[0].assumptions.items()) if n},
            "summary": runs[0].summary})
    sign = 1.0 if better == "higher" else -1.0
    ranked.sort(key=lambda c: (not c["meets_constraint"], c["score"] is None,
                               -sign * (c["score"] or 0.0), not c["is_current"]))
    for i, c in enumerate(ranked, 1):
        c["rank"] = i
    return {"objective": objective, "better": better, "constraint": constraint,
            "ranking": ranked, "skipped": list(skipped),
            "statement": statement(objective, better, ranked, rows)}


def _reported(results: Iterable[list[SideResult]], rows: int, total: int,
              progress: Callable[[int, int], None] | None) -> Iterator[list[SideResult]]:
    """Progress once a candidate's runs are back (a remote replay reports nothing itself)."""
    for done, runs in enumerate(results, 2):
        if progress is not None:
            progress(done * rows, total)
        yield runs


def _with_base(base: SideResult, results: Iterable[list[SideResult]]
               ) -> Iterator[list[SideResult]]:
    yield [base]
    yield from results


def candidate_runs(job: tuple[Mapping[str, Any], str, Sequence[Logged], Lives, Sequence[int]],
                   tick: Callable[[int], None] | None = None) -> list[SideResult]:
    """One candidate's replays (``job``: its declaration, the family's job model by name, the
    window's rows and lives, the seeds): under the first seed, and under the others only if
    it drew lifetimes (else every seed gives the same run). A plain function of plain data,
    so a Dask worker can run it."""
    spec, model_name, rows, lives, seeds = job
    return seeded(lambda: build(spec), MODELS[model_name], spec, rows, lives, seeds, tick)


def _change(value: float | None, base: float | None) -> float | None:
    if value is None or base is None or base == 0:
        return None
    return (value - base) / abs(base)


NOUN = {"reward_rate": "reward rate", "acceptance": "acceptance", "queue_wait": "mean queue wait",
        "utilization": "utilisation", "cost_per_period": "reservation cost per period"}


def statement(objective: str, better: str, ranked: Sequence[Mapping[str, Any]],
              rows: Sequence[Logged]) -> str:
    """The advice in one sentence, as a person would say it."""
    if not rows:
        return "The window holds no logged events: there is nothing to compare."
    span = f"On events {rows[0].seq:,}–{rows[-1].seq:,} ({len(rows):,} events)"
    current = next(c for c in ranked if c["is_current"])
    best = ranked[0]
    noun = NOUN[objective]
    if best["is_current"] or best["change"] is None:
        kept = "" if current["meets_constraint"] else " (though it breaks the constraint)"
        return (f"{span}, no candidate would have done better on {noun} than {current['label']}, "
                f"the policy that ran{kept}.")
    change = best["change"]
    rng = ""
    if best["interval"] is not None:
        lo = _change(best["interval"]["min"], current["score"])
        hi = _change(best["interval"]["max"], current["score"])
        if lo is not None and hi is not None:
            lo, hi = sorted((lo, hi))
            rng = f" (from {lo:+.1%} to {hi:+.1%} over {best['interval']['seeds']} seeds)"
    tail = ""
    acc_best, acc_now = best["summary"].get("acceptance"), current["summary"].get("acceptance")
    if objective != "acceptance" and acc_best is not None and acc_now is not None:
        tail = f", rejecting {1 - acc_best:.1%} of arrivals against {1 - acc_now:.1%}"
    return (f"{span}, {best['label']} would have had {change:+.1%} {noun}{rng} against "
            f"{current['label']}, the policy that ran{tail}.")
