"""Ceiling benchmark (issue #19): in one run, on one machine, the two reference services of
``app.bench.ceiling_apps`` and Headroom, each under the same load generator, so that every
Headroom figure is also a ratio to

- the *fixed* answer: the same HTTP stack returning a constant, no database (the ceiling), and
- the *naive* durable service: row lock, INSERT, UPDATE, COMMIT per request (the baseline).

Single events (arrivals and departures, ``--clients`` concurrent clients, one cluster), and for
Headroom also batches of ``--batch`` events. Every server runs ``--workers`` uvicorn workers;
with more than one, Headroom's single events are measured with one worker too. With
``--placement-venv``, OpenStack Placement under the same load (``app.bench.placement``).

    .venv/bin/python -m app.bench.ceiling --database-url postgresql+psycopg://... \\
        [--clients 16] [--duration 20] [--batch 100] [--workers 2] [--placement-venv DIR] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import uuid
from pathlib import Path
from typing import Any

import httpx

from app.bench import placement
from app.bench.ceiling_apps import prepare_naive
from app.bench.http import admin_key, run_mode, start_server, stop_server
from app.bench.workload import cluster_spec


def _uvicorn(factory: str, workers: int) -> list[str]:
    return [sys.executable, "-m", "uvicorn", f"app.bench.ceiling_apps:{factory}", "--factory",
            "--workers", str(workers), "--no-access-log", "--log-level", "warning",
            "--http", "httptools"]


def _single(url: str, cid: str, args: argparse.Namespace, headers: dict[str, str],
            ) -> dict[str, Any]:
    return asyncio.run(run_mode(url, cid, "single", args.clients, args.duration, 1, args.seed,
                                not args.json, headers)).summary()


def run(args: argparse.Namespace) -> dict[str, Any]:
    rows: dict[str, dict[str, Any]] = {}
    for name in ("fixed", "naive"):
        cid = str(uuid.uuid4())
        if name == "naive":
            prepare_naive(args.database_url, cid)
        proc, url = start_server(args.database_url, args.workers, _uvicorn(name, args.workers),
                                 ready_path="/openapi.json")
        try:
            rows[name] = _single(url, cid, args, {})
        finally:
            stop_server(proc)

    # With several workers, Headroom with one too: how much the second one buys.
    for workers in sorted({args.workers, 1}, reverse=True):
        proc, url = start_server(args.database_url, workers)
        try:
            headers = {"Authorization": f"Bearer {admin_key(args.database_url)}"}
            r = httpx.post(url + "/v1/clusters", headers=headers, timeout=30,
                           json=cluster_spec(f"ceiling-{uuid.uuid4().hex[:8]}", args.servers,
                                             {"kind": args.policy}))
            r.raise_for_status()
            cid = r.json()["id"]
            if workers == args.workers:
                rows["headroom single"] = _single(url, cid, args, headers)
                rows[f"headroom batch of {args.batch}"] = asyncio.run(run_mode(
                    url, cid, "batch", args.clients, args.duration, args.batch,
                    args.seed + 1, not args.json, headers)).summary()
            else:
                rows["headroom single, 1 worker"] = _single(url, cid, args, headers)
        finally:
            stop_server(proc)
    if args.placement_venv:
        rows["openstack placement"] = placement.measure(
            Path(args.placement_venv), args.database_url, args.workers, args.clients,
            args.duration)
    for row in rows.values():
        row["vs_fixed"] = round(row["decisions_per_s"] / rows["fixed"]["decisions_per_s"], 3)
        row["vs_naive"] = round(row["decisions_per_s"] / rows["naive"]["decisions_per_s"], 3)
    return {"workers": args.workers, "clients": args.clients, "duration_s": args.duration,
            "policy": args.policy, "servers": args.servers, "rows": rows}


def print_table(out: dict[str, Any]) -> None:
    print(f"workers={out['workers']} clients={out['clients']} {out['duration_s']:g} s each, "
          f"Headroom {out['policy']} on {out['servers']} servers")
    print(f"{'service':24} {'decisions/s':>12} {'p50 ms':>8} {'p99 ms':>8} {'errors':>7} "
          f"{'÷ fixed':>8} {'÷ naive':>8}")
    for name, r in out["rows"].items():
        print(f"{name:24} {r['decisions_per_s']:12.1f} {r['p50_ms']:8.2f} {r['p99_ms']:8.2f} "
              f"{r['errors']:7d} {r['vs_fixed']:8.3f} {r['vs_naive']:8.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--database-url", required=True, help="Postgres, for naive and Headroom")
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--duration", type=float, default=20.0, help="seconds per row")
    ap.add_argument("--batch", type=int, default=100)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--servers", type=int, default=1000)
    ap.add_argument("--policy", default="first_fit")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--placement-venv", help="a virtualenv with OpenStack Placement and "
                    "gunicorn (app/bench/placement.py): adds its row")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    out = run(args)
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        print_table(out)


if __name__ == "__main__":
    main()
