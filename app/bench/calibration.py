"""A calibration beside the decision path (issue #56): what a moment calibration running in the
background takes from the decisions of the process that runs it.

`headroom serve --workers 1` on Postgres, HEADROOM_CALIBRATION_WORKERS=1. One moment cluster
in the table (2,000 cores, τ = 1e-4, second moment: its threshold is decided at once) is
driven open-loop at ``--rate`` requests/s (deployments, scale-outs of live ones, shutdowns,
``at`` increasing) from a process of its own, so the driver's CPU is not in the measuring
process. The run alternates phases: ``quiet`` (no calibration) and ``calibrating``: a second
moment cluster outside the table (1,000 cores, τ = 1e-3, an arrival rate of its own each
round, so each round is a new calibration) is declared, the phase is measured while its child
(`python -m app.sim.moments.background`, nice 19) runs, and the cluster is deleted at the
end, which cancels the calibration. Per phase: requests answered per second, p50/p99 at the
client, errors, the CPU share of the calibration child and of the server process (user +
system time from /proc/PID/stat over the phase's wall time; 1.0 is one core), the cores the
whole machine kept busy, and the load average; each calibrating phase's p99 over the quiet
phase's before it.

    python -m app.bench.calibration --database-url postgresql+psycopg://postgres@127.0.0.1:5432/DB \\
        [--rate 100] [--duration 30] [--rounds 3] [--json PATH] [--plot PATH]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import httpx

from app.bench.beside import (
    DRIVEN,
    CpuSample,
    Phase,
    Samples,
    driver_process,
    measure,
    plot,
    print_phases,
    progress,
    wait_for,
)
from app.bench.http import admin_key, start_server, stop_server, write_json
from app.policies.moments.recipe import default_arrival_rate

CHILD = "app.sim.moments.background"  # the calibration child's module (app/service/calibrator.py)
# The declaration outside the table each calibrating phase makes.
CALIBRATED_CORES, CALIBRATED_SLA = 1000, 1e-3

def run(args: argparse.Namespace) -> dict[str, Any]:
    env = {"HEADROOM_CALIBRATION_WORKERS": "1"}
    if args.lives:
        env["HEADROOM_CALIBRATION_LIVES"] = str(args.lives)
    proc, url = start_server(args.database_url, 1, env=env)
    try:
        return _run(args, proc.pid, url)
    finally:
        stop_server(proc)


def _run(args: argparse.Namespace, server_pid: int, url: str) -> dict[str, Any]:
    host, port = url.removeprefix("http://").split(":")
    headers = {"Authorization": f"Bearer {admin_key(args.database_url)}"}
    tag = uuid.uuid4().hex[:8]
    api = httpx.Client(base_url=url, headers=headers, timeout=60)
    r = api.post("/v1/clusters", json={"name": f"calibration-bench-{tag}", **DRIVEN})
    r.raise_for_status()
    driven = r.json()
    if driven["policy"]["derivation"].get("status") == "calibrating":
        raise SystemExit("the driven declaration is no longer in the table: it must decide "
                         "at once")

    def child_running() -> bool:
        return bool(CpuSample.take(server_pid, CHILD).children)

    wait_for(lambda: not child_running(), 60, "a calibration from before this run did not end")
    context = mp.get_context("spawn")
    stop, out = context.Event(), context.Queue()
    driver = context.Process(target=driver_process, daemon=True, args=(
        stop, out, host, int(port), headers, driven["id"], args.rate, args.outstanding,
        args.seed))
    driver.start()
    samples = Samples(out)
    print(f"calibration bench: {url}, 1 worker, 1 calibration worker; driving "
          f"{driven['id']} at {args.rate:g} requests/s; {args.rounds} rounds of quiet and "
          f"calibrating phases of {args.duration:g} s", file=sys.stderr, flush=True)
    phases: list[Phase] = []
    calibrations: list[dict[str, Any]] = []
    try:
        # From the first answer: the driver's start (a spawned interpreter) and the engine's
        # first decisions (compiled code loaded) are no phase's.
        wait_for(samples.answered, 120, "the driver got no answer")
        time.sleep(args.warm_up)
        for n in range(1, args.rounds + 1):
            quiet = Phase(n, "quiet")
            measure(quiet, server_pid, args.duration, CHILD)
            phases.append(quiet)
            rate = default_arrival_rate(CALIBRATED_CORES) * (1 + n / 100)
            r = api.post("/v1/clusters", json={
                "name": f"calibration-bench-{tag}-{n}", "capacity_cores": CALIBRATED_CORES,
                "sla": CALIBRATED_SLA, "policy": {"kind": "second_moment",
                                                  "arrival_rate": rate}})
            r.raise_for_status()
            declared = r.json()
            if declared["policy"]["derivation"].get("status") != "calibrating":
                raise SystemExit("the calibrating declaration was answered at once (a "
                                 "calibration this database finished): use a fresh database")
            calibrations.append({"round": n, "arrival_rate": rate,
                                 "key": declared["policy"]["derivation"]["calibration"]["key"]})
            wait_for(child_running, 120, "no calibration child started")
            progress(quiet, samples)  # its last answers have arrived meanwhile
            busy = Phase(n, "calibrating")
            measure(busy, server_pid, args.duration, CHILD)
            phases.append(busy)
            api.delete(f"/v1/clusters/{declared['id']}").raise_for_status()
            wait_for(lambda: not child_running(), 120, "the cancelled calibration's child did "
                                                    "not end")
            progress(busy, samples)
    finally:
        stop.set()
        driver.join(timeout=60)
        samples.thread.join(timeout=10)
        api.delete(f"/v1/clusters/{driven['id']}")
        api.close()
    for phase in phases:
        phase.samples = samples.between(phase.start, phase.end)
    rows = [p.summary() for p in phases]
    for quiet, busy in zip(rows[::2], rows[1::2]):
        busy["p99_vs_quiet"] = round(busy["p99_ms"] / quiet["p99_ms"], 2) \
            if quiet["p99_ms"] else None
    return {"workers": 1, "calibration_workers": 1, "calibration_lives": args.lives,
            "rate": args.rate, "duration": args.duration, "rounds": args.rounds,
            "outstanding": args.outstanding, "cpus": os.cpu_count(),
            "driven": {"id": driven["id"], **DRIVEN,
                       "threshold": driven["policy"]["threshold"]},
            "calibrating": {"capacity_cores": CALIBRATED_CORES, "sla": CALIBRATED_SLA,
                            "kind": "second_moment", "rounds": calibrations},
            "phases": rows}


def print_table(out: dict[str, Any]) -> None:
    print(f"1 worker, 1 calibration worker, lives {out['calibration_lives'] or 'default'}; "
          f"{out['rate']:g} requests/s to a {out['driven']['capacity_cores']}-core moment "
          f"cluster; {out['cpus']} CPUs")
    print_phases(out["phases"])


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--database-url", required=True, help="Postgres, a fresh database")
    ap.add_argument("--rate", type=float, default=100, help="requests/s to the driven cluster")
    ap.add_argument("--duration", type=float, default=30, help="seconds per phase")
    ap.add_argument("--rounds", type=int, default=3, help="pairs of quiet and calibrating")
    ap.add_argument("--warm-up", type=float, default=10,
                    help="seconds of driving after its first answer, before the first phase")
    ap.add_argument("--outstanding", type=int, default=64,
                    help="most requests awaiting an answer; a send due beyond is not sent")
    ap.add_argument("--lives", type=int, default=None,
                    help="HEADROOM_CALIBRATION_LIVES for the server (default: the service's)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", type=Path, help="write the results here as JSON")
    ap.add_argument("--plot", type=Path, help="write a PNG of p99 and CPU shares per phase")
    args = ap.parse_args(argv)
    out = run(args)
    print_table(out)
    if args.json:
        write_json(args.json, out)
    if args.plot:
        plot(args.plot, out)


if __name__ == "__main__":
    main()
