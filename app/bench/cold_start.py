"""Cold start: how long a fresh ``headroom serve`` takes to report ready, and what its first
moment decisions cost after that (the warm-up compiles the moment kernel before ``/readyz``
says ready; docs/operations.md, *Observe*).

    python -m app.bench.cold_start [--runs 3]

Each run starts a server on a fresh embedded database, once with an empty numba cache (as on
a fresh install) and once with the cache that run left behind, declares a second-moment
cluster and times its first two deployments. Prints one row per start and the load average.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import httpx

from app.bench.http import admin_key, start_server, stop_server

CLUSTER = {"name": "cold", "capacity_cores": 2000, "sla": 0.001,
           "policy": {"kind": "second_moment"}}


def one_start(workdir: Path, cache: Path, label: str) -> dict[str, float | str]:
    db = f"sqlite:///{workdir / f'{label}.db'}"
    started = time.perf_counter()
    proc, url = start_server(db, 1, env={"NUMBA_CACHE_DIR": str(cache)})
    ready = time.perf_counter() - started
    try:
        headers = {"Authorization": f"Bearer {admin_key(db)}"}
        with httpx.Client(base_url=url, headers=headers, timeout=120) as c:
            cid = c.post("/v1/clusters", json=CLUSTER).json()["id"]
            took = []
            for i in range(2):
                t = time.perf_counter()
                r = c.post(f"/v1/clusters/{cid}/deployments", json={
                    "event_id": f"e{i}", "deployment_id": f"d{i}", "cores": 4,
                    "at": float(i)})
                took.append(time.perf_counter() - t)
                r.raise_for_status()
    finally:
        stop_server(proc)
    return {"cache": label, "ready_s": ready, "first_ms": took[0] * 1000,
            "second_ms": took[1] * 1000}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    rows = []
    for run in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            work, cache = Path(tmp), Path(tmp) / "numba"
            for label in ("empty", "warm"):
                row = one_start(work, cache, f"{label}")
                rows.append(row)
                print(f"run {run + 1}/{args.runs}, {label} cache: ready in "
                      f"{row['ready_s']:.2f} s, first deployment {row['first_ms']:.0f} ms",
                      flush=True)
    print("\n| numba cache | start -> ready (median, min-max) | first deployment after ready "
          "| second |")
    print("|---|---|---|---|")
    for label in ("empty", "warm"):
        sel = [r for r in rows if r["cache"] == label]

        def spread(key: str, fmt: str) -> str:
            values = [float(r[key]) for r in sel]
            return (f"{statistics.median(values):{fmt}} ({min(values):{fmt}}-"
                    f"{max(values):{fmt}})")
        print(f"| {label} | {spread('ready_s', '.1f')} s | {spread('first_ms', '.0f')} ms "
              f"| {spread('second_ms', '.0f')} ms |")
    print(f"\nload average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} "
          f"{os.getloadavg()[2]:.2f}")


if __name__ == "__main__":
    main()
