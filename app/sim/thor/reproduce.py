"""THOR paper §V on the packaged traces: Tables I–III shape and Fig. 3 (``reproduce``).

Every number in the written thor.md comes from this run; the prose around the tables is in
``reproduce_thor_text.py`` and says nothing a rerun could contradict without the goal checks
changing with it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from app.policies.thor import ThorStream
from app.sim import reproduce_thor_text as text
from app.sim.thor_eval import POLICIES, evaluate, load_series

EPSILONS = (0.25, 0.20, 0.10, 0.05, 0.01)
SERIES = (("alibaba2018", "cpu"), ("alibaba2018", "memory"),
          ("google2019", "cpu"), ("google2019", "memory"))
QUICK_PERIODS = 400
FIG_EPSILON = 0.10
ZOOM = 576  # two days of 5-minute periods
ABLATIONS = {"thor, tail_factor=1": ("thor", {"thor": {"estimator": {"tail_factor": 1.0}}}),
             "percentile, margin=0": ("percentile", {"percentile": {"margin": 0.0}})}
LABELS = {"thor": "THOR", "ftl": "FTL", "percentile": "percentile (VPA-style)",
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
    rows = {"THOR, cap known (paper)": {"caps": {"r": {"mean": 100.0, "sigma": 10.0}}},
            "THOR, cap learnt (default)": None}
    lines = ["| | " + " | ".join(f"ε = {e:.0%}" for e in EPSILONS) + " |",
             "|---" * (len(EPSILONS) + 1) + "|"]
    for label, params in rows.items():
        cells = []
        for eps in EPSILONS:
            s = ThorStream([{"name": "r", "epsilon": eps}], params)
            v = 0
            for t in range(n):
                x = s.reservation()["r"] or 0.0
                v += s.observe(t, {"r": float(caps[t] if x < caps[t] else 50.0)}).violated["r"]
            cells.append(_pct(v / n))
        lines.append(f"| {label} violations % | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot(results, out_dir: Path, quick: bool) -> list[str]:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

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
    doc = [text.HEADER.format(quick=" (quick: first %d periods)" % QUICK_PERIODS
                              if quick else "")]
    doc.append(text.setup(defaults.params.to_dict(), defaults.derived(),
                          QUICK_PERIODS if quick else 0))
    miss = goals(results)
    doc.append(text.goals_section(miss, len(SERIES) * len(EPSILONS)))
    for (trace, resource), cells in results.items():
        n = next(iter(cells.values()))["periods"]
        doc.append(f"### {trace} / {resource} ({n} periods)\n\n{series_table(cells)}\n")
    doc.append(text.ADVERSARY.format(table=adversary_table(quick)))
    doc.append(text.PAPER)
    doc.append(text.FIGURE.format(*figures))
    doc.append(text.DIFFERENCES)
    path = out_dir / "thor.md"
    path.write_text("\n".join(doc))
    return path
