"""docs/reproduction/alibaba.md's figures: policies on the Alibaba 2018 batch trace.

Run with ``python -m app.sim.trace.reproduce [--seeds N] [--out DIR]``. Seed s thins the trace
(a different 1 % sample of instances) and seeds the engine (power-of-d, RMS), so the spread
over seeds covers both the sample and the policies' own randomness.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from app.sim.plots import pyplot
from app.sim.trace.alibaba import load
from app.sim.trace.runner import run_placement, run_queue

PLACEMENT = ("first_fit", "best_fit", "power_of_d", "dra")
QUEUES = ("best_fit_queue", "rms")
FRACTION = 0.01
SERVERS = (4, 6, 8)
QUEUE_SERVERS = 6


def run(seeds: int) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    for s in range(seeds):
        trace = load(FRACTION, seed=s)
        for L in SERVERS:
            for kind in PLACEMENT:
                t0 = time.perf_counter()
                res = run_placement(kind, trace, L, seed=s).summary(3600.0)
                rows.append({"seed": s, "servers": L, "policy": kind,
                             "offered_cpu": trace.offered_load(L)["cpu"],
                             "seconds": time.perf_counter() - t0, **res})
                print(f"seed {s} L={L} {kind}: {res['acceptance']:.4f}", file=sys.stderr)
        for kind in QUEUES:
            res = run_queue(kind, trace, QUEUE_SERVERS, seed=s)
            rows.append({"seed": s, "servers": QUEUE_SERVERS, **res})
            print(f"seed {s} {kind}: wait {res['mean_wait_s']:.1f}", file=sys.stderr)
        if s == 0:
            meta = {"instances": len(trace), "mix": trace.mix(),
                    "bucketing": trace.bucketing_cost(),
                    "dropped_zero_duration": trace.dropped_zero_duration,
                    "job_types": [[t.name, t.cpu, t.memory, t.reward] for t in trace.job_types]}
    return {"fraction": FRACTION, "seeds": seeds, "meta": meta, "rows": rows}


def _ci(values: list[float]) -> tuple[float, float]:
    """Mean and the half-width of a 95 % t interval over seeds."""
    from scipy import stats

    a = np.asarray(values, dtype=float)
    if len(a) < 2:
        return float(a.mean()), 0.0
    return float(a.mean()), float(stats.t.ppf(0.975, len(a) - 1) * a.std(ddof=1) / np.sqrt(len(a)))


def plot(data: dict[str, Any], out: Path) -> None:
    plt = pyplot()
    rows = data["rows"]
    fig, axes = plt.subplots(1, 3, figsize=(13, 4))
    for metric, ax, label in (("acceptance", axes[0], "acceptance (instances placed)"),
                              ("reward_share", axes[1], "reward share placed"),
                              ("cpu", axes[2], "CPU utilisation")):
        for kind in PLACEMENT:
            means, errs = [], []
            for L in SERVERS:
                vals = [(r["utilisation"]["cpu"] if metric == "cpu" else r[metric])
                        for r in rows if r["policy"] == kind and r["servers"] == L]
                m, h = _ci(vals)
                means.append(m)
                errs.append(h)
            ax.errorbar(SERVERS, means, yerr=errs, marker="o", capsize=3, label=kind)
        ax.set_xlabel("machines (96 cores x 100 memory units)")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle(f"Alibaba 2018 batch trace, {data['fraction']:.0%} of instances, "
                 f"{data['seeds']} seeds (95 % intervals)")
    fig.tight_layout()
    fig.savefig(out / "placement.png", dpi=110)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(6, 4))
    names = list(QUEUES)
    for k, stat in enumerate(("mean_wait_s", "p99_wait_s")):
        vals = [_ci([r[stat] for r in rows if r["policy"] == q]) for q in names]
        ax.bar(np.arange(len(names)) + 0.4 * k, [v[0] for v in vals], 0.4,
               yerr=[v[1] for v in vals], capsize=3, label=stat.replace("_s", " (s)"))
    ax.set_xticks(np.arange(len(names)) + 0.2, names)
    ax.set_ylabel("waiting time (s)")
    ax.set_title(f"queued policies, {QUEUE_SERVERS} machines")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "queues.png", dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--seeds", type=int, default=5)
    p.add_argument("--out", default="docs/reproduction/alibaba")
    args = p.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    data = run(args.seeds)
    (out / "results.json").write_text(json.dumps(data, indent=1))
    plot(data, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
