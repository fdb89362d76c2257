"""Reward-per-server-over-time plot for ``headroom simulate dra --plot`` (matplotlib, Agg)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from app.sim.dra.metrics import SimResult
from app.sim.plots import pyplot


def plot_rewards(path: str | Path, results: Mapping[str, SimResult], *, greedy: float | None,
                 optimal: float | None, warmup: float, title: str) -> None:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(9, 5))
    for label, res in results.items():
        ax.plot(res.series_t, res.series_reward, label=label, linewidth=1.2)
    if optimal is not None:
        ax.axhline(optimal, color="black", linestyle="--", linewidth=1,
                   label=f"optimal U* = {optimal:.1f}")
    if greedy is not None:
        ax.axhline(greedy, color="gray", linestyle=":", linewidth=1.5,
                   label=f"global greedy U(g) = {greedy:.1f}")
    if warmup > 0:
        ax.axvline(warmup, color="lightgray", linewidth=1)
        ax.annotate("end of warm-up", (warmup, 0.02), xycoords=("data", "axes fraction"),
                    rotation=90, fontsize=8, color="gray", ha="right")
    ax.set_xlabel("time (mean service times)")
    ax.set_ylabel("reward per server")
    ax.set_title(title)
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
