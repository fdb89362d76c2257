"""The operator controls of DRA (issue #15) measured in simulation, for
``headroom reproduce dra``: what each migration control costs in reward, how the two
no-migration modes recover after a change in the workload mix, and how DRA compares with
best-fit on the paper's worst-case preset (and what its reserved slots buy).

Every run uses the §7.1 traffic (Poisson arrivals at ρ_j·α·L, exponential service of mean 1)
and common random numbers: one seed per experiment, the same stream for every policy.
Nothing here is tuned on the figures it reports: the budgets, periods and bands are round
values chosen before the runs.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from app.policies.registry import PLACEMENT_ENGINES
from app.sim.dra.bounds import global_greedy, optimal
from app.sim.dra.metrics import SimResult
from app.sim.dra.presets import Instance, paper_worst_case
from app.sim.dra.simulator import run_policy, simulate
from app.sim.dra.workload import MixChange, poisson_for_instance
from app.sim.plots import pyplot


@dataclass(frozen=True)
class ControlsScale:
    servers: int
    duration: float
    warmup: float
    alpha: float
    compare_alphas: tuple[float, ...]
    mix_servers: int
    mix_at: float
    mix_end: float


FULL = ControlsScale(servers=200, duration=30.0, warmup=10.0, alpha=2.3,
                     compare_alphas=(1.5, 2.3, 4.0), mix_servers=200, mix_at=15.0, mix_end=40.0)
QUICK = ControlsScale(servers=20, duration=4.0, warmup=1.0, alpha=2.3, compare_alphas=(2.3,),
                      mix_servers=20, mix_at=2.0, mix_end=5.0)

# Migration controls, in the order they are plotted. Budgets are per server per time unit
# (one time unit = one mean service time).
CONTROLS: dict[str, dict[str, Any]] = {
    "every event (paper)": {},
    "GPA every 200 events": {"gpa_refresh": {"every_events": 200}},
    "GPA every 1000 events": {"gpa_refresh": {"every_events": 1000}},
    "band 0.5·g": {"gpa_refresh": {"band": 0.5}},
    "band 0.9·g": {"gpa_refresh": {"band": 0.9}},
    "budget 2/server": {"migration_budget": {"rate": 2.0, "per": "server", "clock": "client"}},
    "budget 1/server": {"migration_budget": {"rate": 1.0, "per": "server", "clock": "client"}},
    "budget 0.3/server": {"migration_budget": {"rate": 0.3, "per": "server", "clock": "client"}},
    "budget 0.1/server": {"migration_budget": {"rate": 0.1, "per": "server", "clock": "client"}},
    "off_no_drain": {"migrations": "off_no_drain"},
    "off_drain (§8)": {"migrations": "off_drain"},
}
MIX_POLICIES: dict[str, tuple[str, dict[str, Any]]] = {
    "DRA (migrations on)": ("dra", {}),
    "DRA off_no_drain (old false)": ("dra", {"migrations": "off_no_drain"}),
    "DRA off_drain (§8)": ("dra", {"migrations": "off_drain"}),
    "best-fit": ("best_fit", {}),
}


def _say(msg: str) -> None:
    print(f"[reproduce dra controls] {msg}", file=sys.stderr, flush=True)


def migration_sweep(scale: ControlsScale, out: Path, seed: int = 11) -> list[dict[str, Any]]:
    """Reward against migrations per server per time unit, one point per control."""
    inst = paper_worst_case(scale.alpha)
    window = (scale.duration - scale.warmup) * scale.servers
    rows = []
    for label, params in CONTROLS.items():
        res = run_policy("dra", params, inst, scale.servers, seed, scale.duration, scale.warmup)
        rows.append({"control": label, "reward": res.reward_per_server,
                     "migration_rate": res.migrations / window,
                     "per_departure": res.migrations / res.departures if res.departures else 0.0,
                     "acceptance": res.acceptance_rate})
        _say(f"{label}: reward {res.reward_per_server:.1f}, "
             f"{res.migrations / window:.2f} migrations/server/unit")
    greedy = global_greedy(inst)
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8, 5))
    for r in rows:
        ax.scatter(r["migration_rate"], r["reward"] / greedy, s=30)
        ax.annotate(r["control"], (r["migration_rate"], r["reward"] / greedy), fontsize=7,
                    xytext=(4, 3), textcoords="offset points")
    ax.set_xlabel("migrations per server per mean service time")
    ax.set_ylabel("reward / global greedy")
    ax.set_title(f"DRA's migration controls: paper worst case, α = {scale.alpha:g}, "
                 f"L = {scale.servers}")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out / "fig6_reward_vs_migrations.png", dpi=110)
    plt.close(fig)
    return rows


def shifted_mix(inst: Instance) -> Instance:
    """The same types with ρ in reverse order: the common small VM becomes rare and the
    large one common."""
    return replace(inst, name=inst.name + "-reversed", rho=tuple(reversed(inst.rho)))


def _mix_run(kind: str, params: dict[str, Any], before: Instance, after: Instance,
             scale: ControlsScale, seed: int) -> SimResult:
    L = scale.mix_servers
    w_seed, a_seed, e_seed = np.random.SeedSequence(seed).spawn(3)
    workload = MixChange(poisson_for_instance(before, L, np.random.default_rng(w_seed)),
                         poisson_for_instance(after, L, np.random.default_rng(a_seed)),
                         scale.mix_at)
    engine = PLACEMENT_ENGINES[kind](before.model(L), params or None,
                                     np.random.default_rng(e_seed))
    return simulate(engine, workload, scale.mix_end, warmup=scale.mix_at,
                    sample_step=0.5)


def mix_change(scale: ControlsScale, out: Path, seed: int = 12) -> dict[str, Any]:
    """Reward relative to the new mix's global greedy, in windows after the change."""
    before = paper_worst_case(scale.alpha)
    after = shifted_mix(before)
    greedy = global_greedy(after)
    span = scale.mix_end - scale.mix_at
    edges = [0.0, span / 5, span * 2 / 5, span]  # e.g. 0-5, 5-10, 10-25 after the change
    rows = []
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(9, 5))
    for label, (kind, params) in MIX_POLICIES.items():
        res = _mix_run(kind, params, before, after, scale, seed)
        t = np.asarray(res.series_t) - scale.mix_at
        y = np.asarray(res.series_reward) / greedy
        windows = [float(y[(t >= a) & (t < b)].mean()) for a, b in zip(edges, edges[1:])]
        rare = min(range(len(after.rho)), key=lambda j: after.rho[j])
        rows.append({"policy": label, "windows": windows,
                     "rare_type": after.type_names[rare],
                     "rare_acceptance": res.acceptance_by_type[after.type_names[rare]]})
        ax.plot(t, y, label=label, lw=1.2)
        _say(f"mix change {label}: " + ", ".join(f"{w:.3f}" for w in windows))
    ax.axvline(0, color="gray", lw=1)
    ax.axhline(1, color="black", ls=":", lw=1)
    ax.set_xlabel("time since the mix changed (mean service times)")
    ax.set_ylabel("reward / new mix's global greedy")
    ax.set_title(f"After a mix change (ρ reversed), α = {scale.alpha:g}, "
                 f"L = {scale.mix_servers}")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out / "fig7_mix_change.png", dpi=110)
    plt.close(fig)
    return {"edges": edges, "rows": rows, "greedy": greedy}


def best_fit_comparison(scale: ControlsScale, seed: int = 13) -> list[dict[str, Any]]:
    """DRA and best-fit on the paper's worst-case preset, against greedy and the LP optimum,
    with the acceptance of each type."""
    rows = []
    for alpha in scale.compare_alphas:
        inst = paper_worst_case(alpha)
        opt, greedy = optimal(inst), global_greedy(inst)
        for kind in ("dra", "best_fit"):
            res = run_policy(kind, {}, inst, scale.servers, seed, scale.duration, scale.warmup)
            rows.append({"alpha": alpha, "policy": kind, "reward": res.reward_per_server,
                         "greedy": greedy, "optimal": opt,
                         "acceptance": res.acceptance_by_type})
            _say(f"α={alpha:g} {kind}: reward {res.reward_per_server:.1f} "
                 f"(optimal {opt:.1f})")
    return rows


def run(quick: bool, out: Path) -> dict[str, Any]:
    scale = QUICK if quick else FULL
    return {"scale": scale, "sweep": migration_sweep(scale, out),
            "mix": mix_change(scale, out), "compare": best_fit_comparison(scale)}
