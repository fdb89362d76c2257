"""A what-if beside the decision path (issue #57): how long a what-if of a 100,000-event log
takes, and what it takes from the decisions of the process that computes it.

`headroom serve --workers 1` on Postgres with HEADROOM_WHAT_IF_WORKERS=1. First a placement
cluster (first_fit, 100 servers, the HTTP benchmark's six VM types) is given ``--events``
logged events through batches of 100 (arrivals, and departures of placed jobs that keep it
about ``--population`` full). Then the moment cluster the calibration benchmark drives too
(app/bench/beside.py) is driven open-loop at ``--rate`` requests/s from a process of its
own, and the run alternates phases: ``quiet`` (``--duration`` s, nothing in the background)
and ``what-if`` (a what-if of the whole placement log under best_fit with ``--seeds`` seeds,
from its start until it is done). Per phase: requests answered per second, p50/p99 at the
driver, the what-if child's and the server's CPU share, the load average; per what-if, its
wall time in the child and the events it replayed per second; each what-if phase's p99 over
the quiet phase's before it.

    python -m app.bench.whatif --database-url postgresql+psycopg://postgres@127.0.0.1:5432/DB \\
        [--events 100000] [--rate 100] [--duration 30] [--rounds 3] [--json PATH] [--plot PATH]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import random
import sys
import time
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx

from app.bench import beside
from app.bench.http import admin_key, start_server, stop_server, write_json
from app.bench.workload import VM_TYPES, cluster_spec

CHILD = "app.sim.whatif.background"  # the what-if child's module (app/service/whatifs.py)
BATCH = 100


def fill(api: httpx.Client, cid: str, events: int, population: int, seed: int) -> float:
    """``events`` logged events in batches: arrivals, and departures of placed jobs with a
    probability that keeps about ``population`` placed. Returns the seconds it took."""
    rng, live, n, t0 = random.Random(seed), [], 0, time.monotonic()
    while n < events:
        batch, arrivals = [], {}
        for _ in range(min(BATCH, events - n)):
            n += 1
            if live and rng.random() < 0.5 * min(1.0, len(live) / population):
                batch.append({"kind": "departure", "event_id": f"e{n}",
                              "job_id": live.pop(rng.randrange(len(live)))})
            else:
                batch.append({"kind": "arrival", "event_id": f"e{n}", "job_id": f"j{n}",
                              "job_type": rng.choice(VM_TYPES)[0]})
                arrivals[f"e{n}"] = f"j{n}"
        r = api.post(f"/v1/clusters/{cid}/events:batch", json={"events": batch})
        r.raise_for_status()
        for item in r.json()["results"]:
            job = arrivals.get(item.get("event_id"))
            if job is not None and item.get("decision") == "placed":
                live.append(job)
        if n % 10_000 < BATCH:
            print(f"  logged {n:,} of {events:,} events", file=sys.stderr, flush=True)
    return time.monotonic() - t0


def run(args: argparse.Namespace) -> dict[str, Any]:
    proc, url = start_server(args.database_url, 1, env={"HEADROOM_WHAT_IF_WORKERS": "1"})
    try:
        return _run(args, proc.pid, url)
    finally:
        stop_server(proc)


def _seconds(run: dict[str, Any]) -> float | None:
    if not run.get("started_at") or not run.get("finished_at"):
        return None
    return (datetime.fromisoformat(run["finished_at"])
            - datetime.fromisoformat(run["started_at"])).total_seconds()


def _run(args: argparse.Namespace, server_pid: int, url: str) -> dict[str, Any]:
    host, port = url.removeprefix("http://").split(":")
    headers = {"Authorization": f"Bearer {admin_key(args.database_url)}"}
    tag = uuid.uuid4().hex[:8]
    api = httpx.Client(base_url=url, headers=headers, timeout=120)
    r = api.post("/v1/clusters", json=cluster_spec(f"what-if-bench-{tag}", args.servers,
                                                   {"kind": "first_fit"}))
    r.raise_for_status()
    logged = r.json()["id"]
    print(f"what-if bench: {url}, 1 worker, 1 what-if worker; logging {args.events:,} events",
          file=sys.stderr, flush=True)
    fill_s = fill(api, logged, args.events, args.population, args.seed)
    r = api.post("/v1/clusters", json={"name": f"what-if-bench-driven-{tag}", **beside.DRIVEN})
    r.raise_for_status()
    driven = r.json()

    def child_running() -> bool:
        return bool(beside.CpuSample.take(server_pid, CHILD).children)

    context = mp.get_context("spawn")
    stop, out = context.Event(), context.Queue()
    driver = context.Process(target=beside.driver_process, daemon=True, args=(
        stop, out, host, int(port), headers, driven["id"], args.rate, args.outstanding,
        args.seed))
    driver.start()
    samples = beside.Samples(out)
    phases: list[beside.Phase] = []
    runs: list[dict[str, Any]] = []
    try:
        beside.wait_for(samples.answered, 120, "the driver got no answer")
        time.sleep(args.warm_up)
        for n in range(1, args.rounds + 1):
            quiet = beside.Phase(n, "quiet")
            beside.measure(quiet, server_pid, args.duration, CHILD)
            phases.append(quiet)
            beside.progress(quiet, samples)
            r = api.post(f"/v1/clusters/{logged}/what-if", json={
                "policy": {"kind": "best_fit"}, "seeds": list(range(args.seeds)),
                "differences": 20})
            r.raise_for_status()
            location = r.headers["location"]
            busy = beside.Phase(n, "what-if")

            def done(location: str = location) -> bool:
                return api.get(location).json()["status"] in ("done", "failed", "cancelled")
            beside.measure(busy, server_pid, None, CHILD, until=done, limit=args.limit)
            phases.append(busy)
            beside.progress(busy, samples)
            finished = api.get(location).json()
            runs.append({"round": n, "status": finished["status"],
                         "seconds": _seconds(finished),
                         "events": finished["progress"]["events_total"],
                         "sides": 1 + (len((finished["result"] or {}).get("seeds") or [])
                                       if (finished["result"] or {}).get("random") else 1)})
            print(f"  round {n} what-if {finished['status']} in {runs[-1]['seconds']} s",
                  file=sys.stderr, flush=True)
            beside.wait_for(lambda: not child_running(), 60, "the what-if child did not end")
    finally:
        stop.set()
        driver.join(timeout=60)
        samples.thread.join(timeout=10)
        api.delete(f"/v1/clusters/{driven['id']}")
        api.delete(f"/v1/clusters/{logged}")
        api.close()
    for phase in phases:
        phase.samples = samples.between(phase.start, phase.end)
    rows = [p.summary() for p in phases]
    for quiet, busy in zip(rows[::2], rows[1::2], strict=False):
        busy["p99_vs_quiet"] = round(busy["p99_ms"] / quiet["p99_ms"], 2) \
            if quiet["p99_ms"] else None
    for r in runs:
        r["events_per_s"] = round(r["events"] * r["sides"] / r["seconds"], 0) \
            if r["seconds"] else None
    return {"workers": 1, "what_if_workers": 1, "events": args.events, "servers": args.servers,
            "fill_seconds": round(fill_s, 1), "rate": args.rate, "duration": args.duration,
            "rounds": args.rounds, "seeds": args.seeds, "cpus": os.cpu_count(),
            "load_before": args.load_before, "runs": runs, "phases": rows}


def print_table(out: dict[str, Any]) -> None:
    print(f"{out['events']:,} logged events (first_fit, {out['servers']} servers) replayed "
          f"under best_fit with {out['seeds']} seeds; 1 worker, 1 what-if worker; "
          f"{out['rate']:g} requests/s to a moment cluster; {out['cpus']} CPUs; load before "
          f"{out['load_before']:.2f}")
    for r in out["runs"]:
        print(f"  round {r['round']}: {r['status']} in {r['seconds']:.1f} s, "
              f"{r['sides']} sides, {r['events_per_s']:,.0f} events/s")
    beside.print_phases(out["phases"])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m app.bench.whatif", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--database-url", required=True, help="a Postgres database of its own")
    p.add_argument("--events", type=int, default=100_000, help="events logged first")
    p.add_argument("--servers", type=int, default=100, help="servers of the logged cluster")
    p.add_argument("--population", type=int, default=2000,
                   help="placed jobs the log keeps about")
    p.add_argument("--seeds", type=int, default=1,
                   help="seeds of the what-if (more only matter where lifetimes are drawn)")
    p.add_argument("--rate", type=float, default=100.0, help="driven requests per second")
    p.add_argument("--outstanding", type=int, default=16, help="the driver's connections")
    p.add_argument("--duration", type=float, default=30.0, help="seconds per quiet phase")
    p.add_argument("--limit", type=float, default=600.0,
                   help="the longest a what-if phase may last (seconds)")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--warm-up", type=float, default=3.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", type=Path, help="write the result here")
    p.add_argument("--plot", type=Path, help="draw the phases' p99 and CPU shares here")
    args = p.parse_args(argv)
    args.load_before = os.getloadavg()[0]
    out = run(args)
    print_table(out)
    if args.json:
        write_json(args.json, out)
    if args.plot:
        beside.plot(args.plot, {**out, "child": "what-if"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
