"""Realised violations against ε (issue #14): the default policy (quantile tracking), THOR
(κ = 1.6) and a plain forecast quantile on generated series and on the packaged traces.

The step η of quantile tracking is fixed by ``calibrate`` on generated series whose seeds
(``CALIBRATION_SEEDS``) are never used for a reported number (``REPORT_SEED``), and the
packaged traces are not looked at by it at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from app.policies.thor import DEFAULT_POLICY, CapParams
from app.policies.thor.envelope import upper_quantile
from app.policies.thor.estimator import CapEstimator
from app.policies.thor.tracking import DEFAULT_STEP
from app.sim.plots import pyplot
from app.sim.thor.simulator import evaluate, load_series
from app.sim.thor.synthetic import GENERATORS, series

EPSILONS = (0.01, 0.05)
REAL = (("alibaba2018", "cpu"), ("alibaba2018", "memory"),
        ("google2019", "cpu"), ("google2019", "memory"))
REPORT_SEED = 7
REPORT_PERIODS = 6000
QUICK_PERIODS = 600
CALIBRATION_SEEDS = (1000, 1001, 1002)
CALIBRATION_PERIODS = 3000
STEP_GRID = (0.1, 0.25, 0.5, 1.0, 2.0)
# The calibration's acceptance rule: realised ≤ (1 + this) ε in every calibration cell.
CALIBRATION_SLACK = 0.25
LABELS = {DEFAULT_POLICY: "quantile tracking (default)", "thor": "THOR (κ = 1.6)",
          "plain_quantile": "plain quantile μ + z κσ"}


def plain_quantile(values: Sequence[float], epsilon: float,
                   tail_factor: float = 1.6) -> np.ndarray:
    """The reservations of μ_t + z_ε κ σ_t from THOR's cap estimator, with no queue and no
    feedback: what THOR's cap alone would reserve (period 0: nothing)."""
    est = CapEstimator(CapParams(tail_factor=tail_factor))
    z = upper_quantile(epsilon)
    out = np.zeros(len(values))
    for t, lam in enumerate(values[:-1]):
        mu, sig = est.update(float(lam))
        out[t + 1] = max(0.0, mu + z * sig)
    return out


def cell(values: np.ndarray, epsilon: float, step: float | None = None) -> dict[str, Any]:
    """Realised rate, cost / oracle (and, for the default, its stated bound) per policy."""
    params = {} if step is None else {DEFAULT_POLICY: {"step": step}}
    res = evaluate(values, epsilon, policies=(DEFAULT_POLICY, "thor", "static_oracle"),
                   params=params)
    out = {k: v for k, v in res["policies"].items() if k != "static_oracle"}
    oracle = res["policies"]["static_oracle"]["cost"]
    x = plain_quantile(values, epsilon)
    out["plain_quantile"] = {"violation_rate": float(np.mean(values > x)),
                             "relative_cost": float(x.sum() / oracle)}
    return out


def calibrate(quick: bool = False) -> tuple[float, dict[float, dict[str, float]]]:
    """The cheapest η on ``STEP_GRID`` whose realised rate stays within (1 + slack) ε on every
    calibration series and ε; returns it with, per η, the worst rate / ε and mean cost."""
    n = QUICK_PERIODS // 2 if quick else CALIBRATION_PERIODS
    seeds = CALIBRATION_SEEDS[:1] if quick else CALIBRATION_SEEDS
    data = [series(name, seed, n) for name in GENERATORS for seed in seeds]
    table: dict[float, dict[str, float]] = {}
    for step in STEP_GRID:
        worst, costs = 0.0, []
        for eps in EPSILONS:
            for values in data:
                r = evaluate(values, eps, policies=(DEFAULT_POLICY, "static_oracle"),
                             params={DEFAULT_POLICY: {"step": step}})["policies"]
                worst = max(worst, r[DEFAULT_POLICY]["violation_rate"] / eps)
                costs.append(r[DEFAULT_POLICY]["relative_cost"])
        table[step] = {"worst_rate_over_eps": worst, "mean_relative_cost": float(np.mean(costs))}
    ok = [s for s in STEP_GRID if table[s]["worst_rate_over_eps"] <= 1 + CALIBRATION_SLACK]
    chosen = min(ok, key=lambda s: table[s]["mean_relative_cost"]) if ok else max(STEP_GRID)
    return chosen, table


def run_all(quick: bool = False) -> dict[str, dict[float, dict[str, Any]]]:
    n = QUICK_PERIODS if quick else REPORT_PERIODS
    data = {name: series(name, REPORT_SEED, n) for name in GENERATORS}
    for trace, resource in REAL:
        values = load_series(trace, resource)
        data[f"{trace}/{resource}"] = values[:n] if quick else values
    return {name: {eps: {"periods": len(v), **cell(v, eps)} for eps in EPSILONS}
            for name, v in data.items()}


def table(results: dict[str, dict[float, dict[str, Any]]]) -> str:
    head = ["series", "ε", "T"]
    for k in LABELS:
        head += [f"{LABELS[k]}: violations %", "cost / oracle"]
    lines = ["| " + " | ".join(head) + " | stated ceiling % |", "|---" * (len(head) + 1) + "|"]
    for name, cells in results.items():
        for eps, c in cells.items():
            row = [name, f"{eps:.0%}", str(c["periods"])]
            for k in LABELS:
                row += [f"{100 * c[k]['violation_rate']:.2f}", f"{c[k]['relative_cost']:.3f}"]
            row.append(f"{100 * c[DEFAULT_POLICY]['violation_rate_bound']:.2f}")
            lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def plot(results, out_dir: Path, quick: bool) -> str:
    plt = pyplot()
    names = list(results)
    fig, axes = plt.subplots(2, len(EPSILONS), figsize=(14, 7), sharex=True)
    y = np.arange(len(names))
    for j, eps in enumerate(EPSILONS):
        for k, (kind, label) in enumerate(LABELS.items()):
            rate = [results[n][eps][kind]["violation_rate"] / eps for n in names]
            cost = [results[n][eps][kind]["relative_cost"] for n in names]
            axes[0, j].bar(y + (k - 1) * 0.27, rate, 0.27, label=label)
            axes[1, j].bar(y + (k - 1) * 0.27, cost, 0.27, label=label)
        axes[0, j].axhline(1.0, color="k", lw=0.8)
        axes[1, j].axhline(1.0, color="k", lw=0.8)
        axes[0, j].set_title(f"ε = {eps:.0%}: realised violations / ε", fontsize=10)
        axes[1, j].set_title(f"ε = {eps:.0%}: cost / hindsight oracle", fontsize=10)
        axes[0, j].set_yscale("log")
        axes[1, j].set_ylim(0.4, 1.6)
        axes[1, j].set_xticks(y, names, rotation=60, ha="right", fontsize=8)
    axes[0, 0].legend(fontsize=8)
    fig.tight_layout()
    name = "thor/realized_epsilon.png"
    fig.savefig(out_dir / name, dpi=60 if quick else 90)
    plt.close(fig)
    return name


def section(out_dir: Path, quick: bool = False) -> str:
    """The "Realised ε" section of thor.md, with its figure written into ``out_dir``."""
    chosen, cal = calibrate(quick)
    results = run_all(quick)
    figure = plot(results, out_dir, quick)
    cal_rows = "\n".join(f"| {s:g} | {v['worst_rate_over_eps']:.3f} | "
                         f"{v['mean_relative_cost']:.3f} |" for s, v in cal.items())
    over = [f"{n} ε={e:.0%}" for n, cs in results.items() for e, c in cs.items()
            if c[DEFAULT_POLICY]["violation_rate"]
            > e + c[DEFAULT_POLICY]["violation_rate_bound"]]
    return REALIZED.format(
        chosen=chosen, default=DEFAULT_STEP, cal=cal_rows, table=table(results),
        figure=figure, seeds=CALIBRATION_SEEDS, cal_n=CALIBRATION_PERIODS,
        seed=REPORT_SEED, n=QUICK_PERIODS if quick else REPORT_PERIODS,
        slack=CALIBRATION_SLACK, grid=", ".join(f"{s:g}" for s in STEP_GRID),
        over="none" if not over else ", ".join(over))


REALIZED = """## Realised ε: the default policy (issue #14)

THOR's queue holds the *model's* violation probability at ε; realised violations meet ε only
where κ = 1.6 happens to cap the demand's tail. New streams therefore default to **quantile
tracking** (`quantile_tracking`, `app/policies/thor/tracking.py`), which feeds realised
violations back into the offset of the same one-step forecast:
x_t = max(0, μ_t + σ_t q_t), q_{{t+1}} = q_t + η (1{{λ_t > x_t}} − ε) — the quantile-tracking
form of adaptive conformal inference, on normalised scores s_t = (λ_t − μ_t)/σ_t.

**What is guaranteed (realised, long-run, for every demand sequence, no probability model).**
Summing the update, Σ_t (err_t − ε) = (q_{{T+1}} − q_1)/η over the periods that moved q. q
rises only after a violation, i.e. when s_t > q_t, so q_{{T+1}} ≤ max(q_1, max_t s_t +
η(1 − ε)); it falls only after a covered period with x_t > 0 (s_t ≤ q_t), so q_{{T+1}} ≥
min(q_1, min_t s_t − ηε). With U periods before any forecast existed (1 when no initial
reservation is declared) and F periods frozen (nothing reserved, nothing demanded):

- realised − ε ≤ [((max_t s_t − q_1)^+ + η(1 − ε))/η + U] / T
- ε − realised ≤ [((q_1 − min_t s_t)^+ + ηε)/η + ε(U + F)] / T

This is ACI's argument (Gibbs & Candès 2021, Prop. 4.1: |mean err − ε| ≤ (max(α_1, 1 − α_1)
+ γ)/(γT)) moved from the level α to the score offset q: ACI's level is kept in [−γ, 1 + γ]
because α ≤ 0 means an infinite prediction set, which a reservation cannot be, so here the
range of q is bounded by the largest normalised score seen instead. No finite policy can do
without such a data term (demand that always exceeds whatever is reserved defeats all of
them). The term vanishes as T grows whenever max_t s_t = o(T), which holds for any demand
whose one-step errors have a finite mean. Assumptions: none on the demand; σ_t > 0 (the
estimator's floors make it so). The stream reports the upper bound live
(`state.resources[].guarantee.violation_rate_at_most`). Cost is not part of it: the
constraints are per resource, so the cheapest feasible reservation of a resource does not
depend on its price — `cost` only scores the stream (`cost_so_far`), for every policy except
THOR with an explicit `params.V`.

**Choice of η, never on reported data.** `calibrate()` runs every generator of
`app/sim/thor/synthetic.py` with seeds {seeds}, {cal_n} periods each, at ε = 1% and 5%, for
η ∈ {{{grid}}}, and takes the cheapest η (mean cost / oracle) whose realised rate stays within
(1 + {slack}) ε in every calibration cell. Larger η corrects a misfit faster (the excess term
falls as 1/η) but jitters the offset more (cost). This run chose η = {chosen}; the shipped
default is η = {default}.

| η | worst realised / ε | mean cost / oracle |
|---|---|---|
{cal}

**Results** (seed {seed}, {n} periods per generated series; the packaged traces in full).
Series: i.i.d. Gaussian and daily-cycle AR(1) Gaussian (well-behaved), i.i.d. bursts of +8σ
at rates 1%–25% (ε to 5ε for both budgets), five regimes of level and spread, Pareto(2.5) and
Student-t(3) noise, a tripling trend, flash crowds (2–4× ramps decaying over ~30 periods).
THOR and the plain quantile run with the shipped κ = 1.6; "stated ceiling" is ε plus the
default policy's own bound for that run. Cells where the default exceeded its ceiling: {over}.

Reading the table. The default sits *at* ε, a few hundredths of a point above it in most
cells: the excess is (q_{{T+1}} − q_1)/(ηT) + U/T, a transient that shrinks as 1/T (the
forced first period alone is 1/T), not a drift. It spends the budget rather than keeping a
margin: a user who needs ≤ ε over a known horizon declares ε minus the ceiling's data term.
Where THOR and the plain quantile over-cover (Gaussian, trends, regimes, the real traces)
the default reserves less than both; where their Gaussian cap under-covers (bursts at 3–5%
against ε = 1%, Pareto tails) they break ε two- to three-fold and are cheaper only for that
reason — the default pays what holding ε costs there. Cost / oracle below 1 means the
static hindsight oracle is a poor reservation for a non-stationary series, not that the
online policy beats the best feasible one.

{table}

![realised violations and cost per series](./{figure})

Reproduce: `headroom reproduce thor` (this section: `app/sim/thor/realized.py`).
"""
