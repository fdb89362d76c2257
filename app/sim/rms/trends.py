"""Fig. 1b over long horizons: is each policy's queue level, climbing, or oscillating?

``reproduce`` compares half-means over a few thousand time units, which cannot tell a slow
oscillation from growth. Here every policy of the Fig. 1b preset runs for T >= 20,000 on
several seeds and is summarised by *window means* (the time-average queue over consecutive
windows of ``T / windows``) and the least-squares *slope* of the window means over the second
half of the run (jobs per 1,000 time units): an unstable policy's queue grows linearly, so its
slope stays positive; a stable one's slope is near zero however much it oscillates.

Each (run, seed) is cached as JSON under ``<out>/runs/``, so an interrupted batch resumes and
several processes can share the work (``--jobs``). ``python -m app.sim.rms.trends --help``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from app.policies.rms import GREEDY
from app.policies.rms.core import QueueScheduler
from app.sim.progress import TextProgress
from app.sim.rms.simulator import preset_setup, server_configurations, simulate

# label -> (policy, parameters over the preset's). The greedy preset is smallest-job-first.
RUNS: dict[str, tuple[str, dict[str, Any]]] = {
    "Best-Fit (smallest first)": ("best_fit_queue", {}),
    "Best-Fit (oldest first)": ("best_fit_queue", {"order": "fifo"}),
    "RMS": ("rms", {}),
    "RMS-RF-AD": ("rms_rf_ad", {}),
    "RMS+JSQ (Algorithm 2)": ("rms_jsq", {}),
    "RMS+po2 (Algorithm 2)": ("rms_po2", {}),
    "RMS, r_j = 100": ("rms", {"clock_rate": 100.0}),
}
SAMPLE_STEP = 10.0


def run_one(label: str, seed: int, T: float, progress: bool = False) -> dict[str, Any]:
    """One run of the Fig. 1b preset: the sampled total queue, the per-type time-average
    queue and the share of servers in each configuration over the second half."""
    policy, extra = RUNS[label]
    model, lam, mu, defaults = preset_setup("bf-instability")
    params = {**defaults["greedy" if policy in GREEDY else "rms"], **extra}
    by_type = np.zeros(model.num_types)
    census: Counter[tuple[int, ...]] = Counter()
    n_probe = 0

    def probe(t: float, eng: QueueScheduler) -> None:
        nonlocal n_probe
        if t < T / 2:
            return
        n_probe += 1
        by_type[:] += eng.queue_lengths()
        census.update(server_configurations(eng))

    bar = TextProgress(f"{label} seed {seed}") if progress else None
    r = simulate(model, policy, lam, mu, T, seed, params, sample_step=SAMPLE_STEP, probe=probe,
                 progress=bar)
    servers = model.num_servers * max(n_probe, 1)
    return {"label": label, "policy": policy, "params": params, "seed": seed, "T": T,
            "sample_step": SAMPLE_STEP, "queue": r.queue, "mean_queue": r.mean_queue,
            "final_queue": r.final_queue,
            "second_half_queue_by_type": (by_type / max(n_probe, 1)).tolist(),
            "second_half_configurations": {",".join(map(str, k)): v / servers
                                           for k, v in sorted(census.items())}}


def window_means(queue: list[int], windows: int) -> list[float]:
    """Means of ``windows`` consecutive equal slices of the sampled queue."""
    return [float(np.mean(c)) for c in np.array_split(np.asarray(queue, float), windows)]


def slope(queue: list[int], step: float, windows: int, first: int | None = None) -> float:
    """Least-squares slope (jobs per 1,000 time units) of the window means from window
    ``first`` on (default: the second half of the run), against the windows' mid-times."""
    means = window_means(queue, windows)
    width = len(queue) * step / windows
    mids = (np.arange(windows) + 0.5) * width
    first = windows // 2 if first is None else first
    return float(np.polyfit(mids[first:], means[first:], 1)[0] * 1000)


def _path(out: Path, label: str, seed: int, T: float) -> Path:
    key = "".join(c if c.isalnum() else "_" for c in label).strip("_").lower()
    return out / "runs" / f"{key}_s{seed}_T{T:g}.json"


def _job(args: tuple[str, int, float, str]) -> str:
    label, seed, T, out = args
    path = _path(Path(out), label, seed, T)
    if not path.exists():
        res = run_one(label, seed, T, progress=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(res))
        tmp.replace(path)
    print(f"done: {label} seed {seed} T={T:g}", file=sys.stderr, flush=True)
    return str(path)


def _cached(out: Path, label: str, seed: int, T: float | None) -> Path | None:
    """The cached run of (label, seed) at T, or with T None the longest one cached."""
    if T is not None:
        path = _path(out, label, seed, T)
        return path if path.exists() else None
    stem = _path(out, label, seed, 1.0).name.rsplit("_T", 1)[0]
    found = sorted(out.glob(f"runs/{stem}_T*.json"),
                   key=lambda p: float(p.stem.rsplit("_T", 1)[1]))
    return found[-1] if found else None


def summarise(out: Path, labels: list[str], seeds: list[int], T: float | None, windows: int
              ) -> dict[str, Any]:
    table: dict[str, Any] = {}
    for label in labels:
        paths = [p for s in seeds if (p := _cached(out, label, s, T)) is not None]
        runs = [json.loads(p.read_text()) for p in paths]
        if not runs:
            continue
        table[label] = {
            "seeds": [r["seed"] for r in runs],
            "T": [r["T"] for r in runs],
            "window_means": [window_means(r["queue"], windows) for r in runs],
            "slopes_per_1000": [slope(r["queue"], r["sample_step"], windows) for r in runs],
            "mean_queue": [r["mean_queue"] for r in runs],
            "final_queue": [r["final_queue"] for r in runs],
            "second_half_queue_by_type": [r["second_half_queue_by_type"] for r in runs],
            "second_half_configurations": [r["second_half_configurations"] for r in runs],
        }
    return {"T": T, "windows": windows, "table": table}


def plot(summary: dict[str, Any], path: Path) -> None:
    from app.sim.plots import pyplot

    plt = pyplot()
    windows = summary["windows"]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for i, (label, row) in enumerate(summary["table"].items()):
        color = f"C{i}"
        for k, (wm, T) in enumerate(zip(row["window_means"], row["T"])):
            ax.plot((np.arange(windows) + 0.5) * T / windows, wm, color=color,
                    alpha=0.9 if k == 0 else 0.45,
                    label=f"{label} ({len(row['seeds'])} seeds)" if k == 0 else None)
    ax.set_yscale("symlog", linthresh=100)
    ax.set_xlabel("time (mean service = 1)")
    ax.set_ylabel(f"window mean of total queue ({windows} windows per run)")
    ax.set_title("Fig. 1b preset: window means of the total queue, one line per seed")
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def render(summary: dict[str, Any], plot_name: str | None) -> str:
    """trends.md: the numbers of every run in the summary, no interpretation (rms.md has it)."""
    windows = summary["windows"]
    lines = ["# Fig. 1b preset over long horizons (`python -m app.sim.rms.trends`)", "",
             (f"Window means over {windows} equal windows of each run; slope = "
               "least-squares slope of the second half's window means, jobs per 1,000 time "
              "units; queue per type and configurations (share of server-time, dummies "
              "included) averaged over samples every "
              f"{SAMPLE_STEP:g} time units of the second half. Preset: 10 servers of capacity "
              "10, sizes 2 and 5, λ = (20.8, 10.4), μ = 1; RMS r_j = 20, ε = 0.05, b = 0; "
              "greedy smallest-job-first unless named."), ""]
    if plot_name:
        lines += [f"![window means]({plot_name})", ""]
    lines += [("| run | seed | T | window means (min–max) | last window | slope / 1,000 | "
               "2nd-half queue per type | top configurations (share) |"),
              "|---|---:|---:|---:|---:|---:|---|---|"]
    for label, row in summary["table"].items():
        for i, seed in enumerate(row["seeds"]):
            wm = row["window_means"][i]
            per_type = ", ".join(f"{x:,.0f}" for x in row["second_half_queue_by_type"][i])
            confs = sorted(row["second_half_configurations"][i].items(), key=lambda kv: -kv[1])
            top = ", ".join(f"({k}) {v:.2f}" for k, v in confs[:3])
            lines.append(f"| {label} | {seed} | {row['T'][i]:,.0f} | {min(wm):,.0f}–{max(wm):,.0f} | {wm[-1]:,.0f} | "
                         f"{row['slopes_per_1000'][i]:+,.0f} | {per_type} | {top} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m app.sim.rms.trends", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-T", type=float, default=40_000.0, help="horizon (time units)")
    p.add_argument("--summarise-only", action="store_true",
                   help="run nothing: summarise and plot the longest cached run of each "
                        "(run, seed)")
    p.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    p.add_argument("--runs", nargs="+", choices=list(RUNS), default=list(RUNS),
                   metavar="LABEL", help=f"some of: {', '.join(RUNS)}")
    p.add_argument("--windows", type=int, default=20, help="window means per run")
    p.add_argument("--jobs", type=int, default=1, help="processes")
    p.add_argument("--out", type=Path, default=Path("docs/reproduction/rms"))
    p.add_argument("--plot", default="fig1b_trends.png", help="file name under --out")
    a = p.parse_args(argv)
    (a.out / "runs").mkdir(parents=True, exist_ok=True)
    jobs = [(label, s, a.T, str(a.out)) for label in a.runs for s in a.seeds]
    if a.summarise_only:
        jobs = []
    if a.jobs > 1:
        with ProcessPoolExecutor(a.jobs) as pool:
            list(pool.map(_job, jobs))
    else:
        for j in jobs:
            _job(j)
    summary = summarise(a.out, a.runs, a.seeds, None if a.summarise_only else a.T, a.windows)
    if a.plot:  # "" skips it (a batch of single runs summarises once at the end)
        (a.out / "fig1b_trends.json").write_text(json.dumps(summary, indent=1))
        plot(summary, a.out / a.plot)
        (a.out / "trends.md").write_text(render(summary, a.plot))
    for label, row in summary["table"].items():
        wm = row["window_means"]
        print(f"{label:<28} slopes/1000 {[f'{x:.1f}' for x in row['slopes_per_1000']]} "
              f"window means {min(map(min, wm)):,.0f}-{max(map(max, wm)):,.0f}")
    return 0


if __name__ == "__main__":

    raise SystemExit(main())
