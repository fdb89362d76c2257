"""``headroom reproduce rms``: the RMS paper's Fig. 1b, Fig. 2, Fig. 3 and Fig. 4, scaled down.

Writes <out>/rms.md and PNG plots into <out>/rms/. ``quick=True`` shrinks every horizon so
the whole thing runs in seconds (tests); the committed doc is the full run.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from app.sim.rms_cli import run_policies  # noqa: E402

FIG3_POLICIES = ("rms", "rms_rf", "rms_bf", "rms_ad", "rms_rf_ad", "rms_bf_ad")
# Algorithm 2 (distributed queues): JSQ routing as in Fig. 4, and Remark 4's power-of-two.
DISTRIBUTED = ("rms_jsq", "rms_po2")


def _scale(quick: bool) -> dict[str, Any]:
    if quick:
        return {"fig1_T": 150.0, "fig1_seeds": (1,), "T": 20.0, "warm": 5.0, "seeds": (1,),
                "rates": (2.0, 10.0), "servers": (5, 10), "intensities": (0.8, 0.95),
                "fig3_servers": 10}
    return {"fig1_T": 4000.0, "fig1_seeds": (1, 2, 3), "T": 300.0, "warm": 50.0,
            "seeds": (1, 2, 3), "rates": (1.0, 3.0, 10.0, 30.0, 100.0),
            "servers": (10, 20, 30), "intensities": (0.8, 0.85, 0.9, 0.95), "fig3_servers": 20}


def _mean(xs: list[float]) -> float:
    return sum(xs) / len(xs)


def fig1(sc: dict[str, Any], out_dir: Path) -> dict[str, Any]:
    T = sc["fig1_T"]
    pols = ["best_fit_queue", "rms", "rms_rf_ad"]
    # Algorithm 2 joins the table (same jobs, same seeds), not the plot, which stays Fig. 1b.
    runs = {s: run_policies("bf-instability", [*pols, *DISTRIBUTED], T, s, sample_step=T / 200)
            for s in sc["fig1_seeds"]}
    # The oldest-first greedy needs its default selection rule, not the preset's.
    from app.sim.rms_sim import bf_instability_model, simulate

    model, lam, mu = bf_instability_model()
    fifo = {s: simulate(model, "best_fit_queue", lam, mu, T, s, {"order": "fifo"},
                        sample_step=T / 200) for s in sc["fig1_seeds"]}
    s0 = sc["fig1_seeds"][0]
    fig, ax = plt.subplots(figsize=(7, 4))
    labels = {"best_fit_queue": "Best-Fit (smallest job first)", "rms": "RMS",
              "rms_rf_ad": "RMS-RF-AD"}
    for p in pols:
        r = runs[s0][p]
        ax.plot(r.times, r.queue, label=labels[p])
    ax.plot(fifo[s0].times, fifo[s0].queue, label="Best-Fit (oldest first)", alpha=0.6)
    ax.set_xlabel("time (mean service = 1)")
    ax.set_ylabel("total queue size")
    ax.set_title("Fig. 1b: 10 servers, capacity 10, sizes 2 and 5, λ = (20.8, 10.4)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out_dir / "fig1b_bf_instability.png", dpi=110)
    plt.close(fig)

    def half_means(r) -> tuple[float, float]:
        n = len(r.queue) // 2
        return _mean(r.queue[:n]), _mean(r.queue[n:])

    table = {}
    labels.update({"rms_jsq": "RMS+JSQ (Algorithm 2)", "rms_po2": "RMS+po2 (Algorithm 2)"})
    for name, get in [*((labels[p], (lambda s, p=p: runs[s][p])) for p in pols),
                      ("Best-Fit (oldest first)", lambda s: fifo[s]),
                      *((labels[p], (lambda s, p=p: runs[s][p])) for p in DISTRIBUTED)]:
        rs = [get(s) for s in sc["fig1_seeds"]]
        halves = [half_means(r) for r in rs]
        table[name] = {"mean": _mean([r.mean_queue for r in rs]),
                       "first_half": _mean([h[0] for h in halves]),
                       "second_half": _mean([h[1] for h in halves]),
                       "final": _mean([r.final_queue for r in rs])}
    return {"T": T, "table": table}


def _ec2(policy: str, servers: int, intensity: float, rate: float, sc: dict[str, Any]) -> float:
    vals = []
    for s in sc["seeds"]:
        r = run_policies("ec2", [policy], sc["T"], s, sc["warm"], servers, intensity,
                         clock_rate=rate)[policy]
        vals.append(r.mean_queue)
    return _mean(vals)


def fig2(sc: dict[str, Any], out_dir: Path) -> dict[str, Any]:
    a = {L: {r: _ec2("rms", L, 0.9, r, sc) for r in sc["rates"]} for L in sc["servers"]}
    b = {z: {r: _ec2("rms", sc["fig3_servers"], z, r, sc) for r in sc["rates"]}
         for z in sc["intensities"]}
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for L, row in a.items():
        axes[0].plot(list(row), list(row.values()), marker="o", label=f"{L} servers")
    for z, row in b.items():
        axes[1].plot(list(row), list(row.values()), marker="o", label=f"intensity {z}")
    axes[0].set_title("(a) intensity 0.9")
    axes[1].set_title(f"(b) {sc['fig3_servers']} servers")
    for ax in axes:
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("clock rate per queue r_j")
        ax.set_ylabel("time-average total queue")
        ax.legend()
    fig.tight_layout()
    fig.savefig(out_dir / "fig2_clock_rate.png", dpi=110)
    plt.close(fig)
    return {"a": a, "b": b}


def fig3(sc: dict[str, Any], out_dir: Path) -> dict[str, Any]:
    L = sc["fig3_servers"]
    pols = (*FIG3_POLICIES, "best_fit_queue")
    # Sum of clock rates 30 (10 per queue, §VII-A.2) for every RMS variant.
    res = {p: {z: _ec2(p, L, z, 10.0, sc) for z in sc["intensities"]} for p in pols}
    fig, ax = plt.subplots(figsize=(7, 4))
    for p, row in res.items():
        ax.plot(list(row), list(row.values()), marker="o", label=p,
                linestyle="--" if p == "best_fit_queue" else "-")
    _finish_intensity_plot(fig, ax, f"Fig. 3: RMS variants, {L} servers, total clock rate 30",
                           out_dir / "fig3_variants.png")
    return res


def _finish_intensity_plot(fig: Any, ax: Any, title: str, path: Path) -> None:
    """Axes, title and file of a queue-against-intensity plot (Figs. 3 and 4)."""
    ax.set_yscale("log")
    ax.set_xlabel("traffic intensity ζ")
    ax.set_ylabel("time-average total queue")
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def fig4(sc: dict[str, Any], f3: dict[str, Any], out_dir: Path) -> dict[str, Any]:
    """Fig. 4 (§VII-A.2): centralized RMS against distributed queues in Fig. 3's setting. The
    total clock rate is 30 in both schemes with equal rates for all queues: r_j = 10 per
    type, so r_j^l = 10 / L per server queue. RMS's numbers are Fig. 3's (same runs)."""
    L = sc["fig3_servers"]
    res = {"rms": f3["rms"],
           **{p: {z: _ec2(p, L, z, 10.0, sc) for z in sc["intensities"]} for p in DISTRIBUTED}}
    fig, ax = plt.subplots(figsize=(7, 4))
    labels = {"rms": "RMS (centralized)", "rms_jsq": "RMS+JSQ", "rms_po2": "RMS+po2"}
    for p, row in res.items():
        ax.plot(list(row), list(row.values()), marker="o", label=labels[p])
    _finish_intensity_plot(
        fig, ax, f"Fig. 4: centralized vs distributed queues, {L} servers, total clock rate 30",
        out_dir / "fig4_distributed.png")
    return res


def reproduce(out: Path, quick: bool = False) -> Path:
    sc = _scale(quick)
    out.mkdir(parents=True, exist_ok=True)
    plots = out / "rms"
    plots.mkdir(exist_ok=True)
    t0 = time.time()
    f1 = fig1(sc, plots)
    f2 = fig2(sc, plots)
    f3 = fig3(sc, plots)
    f4 = fig4(sc, f3, plots)
    from app.sim.rms_reproduce_text import render

    doc = out / "rms.md"
    doc.write_text(render(sc, f1, f2, f3, f4, quick, time.time() - t0))
    return doc
