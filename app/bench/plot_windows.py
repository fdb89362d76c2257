"""Plot decisions/s per window from `headroom bench http --json` outputs (whether throughput
stays flat as the log grows): one line per run, one panel per mode.

    .venv/bin/python -m app.bench.plot_windows docs/benchmarks/batch_decisions_per_window.png \
        "one worker, 16 clients=docs/benchmarks/batch_decisions_per_window.json"
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def plot(path: Path, runs: dict[str, dict]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    modes = sorted({r["mode"] for out in runs.values() for r in out["results"]})
    fig, axes = plt.subplots(1, len(modes), figsize=(6 * len(modes), 4), squeeze=False)
    for ax, mode in zip(axes[0], modes):
        for label, out in runs.items():
            for r in out["results"]:
                if r["mode"] == mode and r["window_decisions_per_s"]:
                    rates, w = r["window_decisions_per_s"], r["window_s"]
                    ax.plot([w * (i + 1) for i in range(len(rates))], rates, marker="o",
                            label=f"{label} (last/first {rates[-1] / rates[0]:.2f})")
        ax.set_title(f"{mode}: decisions/s per window")
        ax.set_xlabel("seconds into the run (end of window)")
        ax.set_ylabel("decisions/s")
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("output", type=Path, help="the PNG to write")
    ap.add_argument("runs", nargs="+", help="LABEL=FILE.json, a `headroom bench http --json`")
    args = ap.parse_args()
    runs = {}
    for item in args.runs:
        label, _, file = item.partition("=")
        runs[label] = json.loads(Path(file).read_text())
    plot(args.output, runs)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
