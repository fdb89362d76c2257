"""Headroom on Postgres directly and behind PgBouncer in transaction mode (issue #60): single
events per second, latency, and the server connections each way holds.

``headroom serve --workers W`` runs against ``--database-url`` (direct), then against
``--pgbouncer-url`` (the same database through a running PgBouncer, pool_mode = transaction;
deploy/pgbouncer/pgbouncer.ini) with HEADROOM_DATABASE_TRANSACTION_POOLING=true, alternating
for ``--rounds`` rounds. Each phase drives one first-fit cluster with ``--clients`` closed-loop
clients of arrivals and departures (app/bench/http.py) for ``--duration`` seconds, while a
direct connection counts the database's other sessions twice a second (pg_stat_activity):
the peak is what that route held.

    python -m app.bench.pooling --database-url postgresql+psycopg://postgres@127.0.0.1:5432/DB \\
        --pgbouncer-url postgresql+psycopg://postgres@127.0.0.1:6432/DB [--workers 2] \\
        [--clients 16] [--duration 20] [--rounds 3] [--json PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import threading
import uuid
from pathlib import Path
from typing import Any

import httpx
import psycopg
from sqlalchemy.engine import make_url

from app.bench.http import admin_key, run_mode, start_server, stop_server, write_json
from app.bench.workload import cluster_spec

ROUTES = ("direct", "pgbouncer")


class Sessions:
    """The peak count of the database's sessions (but this one's), sampled in a thread."""

    def __init__(self, database_url: str):
        url = make_url(database_url).set(drivername="postgresql")
        self.conn = psycopg.connect(url.render_as_string(hide_password=False), autocommit=True)
        self.peak = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self.stop.wait(0.5):
            n = self.conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND pid <> pg_backend_pid() AND backend_type = 'client backend'").fetchone()[0]
            self.peak = max(self.peak, n)

    def __enter__(self) -> Sessions:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()
        self.conn.close()


def phase(args: argparse.Namespace, route: str, n: int, headers: dict[str, str]
          ) -> dict[str, Any]:
    url = args.database_url if route == "direct" else args.pgbouncer_url
    env = {"HEADROOM_DATABASE_TRANSACTION_POOLING": "true"} if route == "pgbouncer" else {}
    proc, base = start_server(url, args.workers, env=env)
    try:
        r = httpx.post(base + "/v1/clusters", headers=headers, timeout=30, json=cluster_spec(
            f"pooling-{route}-{n}-{uuid.uuid4().hex[:6]}", args.servers, {"kind": "first_fit"}))
        r.raise_for_status()
        with Sessions(args.database_url) as sessions:
            result = asyncio.run(run_mode(base, r.json()["id"], "single", args.clients,
                                          args.duration, 1, args.seed + n, not args.json,
                                          headers))
        return {"round": n, "route": route, **result.summary(),
                "server_connections_peak": sessions.peak,
                "load1": round(os.getloadavg()[0], 2)}
    finally:
        stop_server(proc)


def run(args: argparse.Namespace) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {admin_key(args.database_url)}"}
    rows = []
    for n in range(args.rounds):
        for route in ROUTES if n % 2 == 0 else ROUTES[::-1]:  # alternate which goes first
            print(f"round {n + 1}/{args.rounds}: {route}", file=sys.stderr, flush=True)
            rows.append(phase(args, route, n, headers))
    return {"workers": args.workers, "clients": args.clients, "duration_s": args.duration,
            "cpus": os.cpu_count(), "rows": rows}


def print_table(out: dict[str, Any]) -> None:
    print(f"workers={out['workers']} clients={out['clients']} {out['duration_s']:g} s per "
          f"phase, {out['cpus']} CPUs")
    print(f"{'round':>5} {'route':10} {'decisions/s':>12} {'p50 ms':>8} {'p99 ms':>8} "
          f"{'errors':>7} {'server conns':>12} {'load':>5}")
    for r in out["rows"]:
        print(f"{r['round']:5d} {r['route']:10} {r['decisions_per_s']:12.1f} {r['p50_ms']:8.2f} "
              f"{r['p99_ms']:8.2f} {r['errors']:7d} {r['server_connections_peak']:12d} "
              f"{r['load1']:5.2f}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--database-url", required=True, help="Postgres, a migrated database")
    ap.add_argument("--pgbouncer-url", required=True,
                    help="the same database through PgBouncer in transaction mode")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--duration", type=float, default=20.0, help="seconds per phase")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--servers", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", type=Path, help="write the results here as JSON")
    args = ap.parse_args(argv)
    out = run(args)
    print_table(out)
    if args.json:
        write_json(args.json, out)


if __name__ == "__main__":
    main()
