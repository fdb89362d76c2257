"""What tenants cost: single-event decisions/s on one cluster with 10 tenants in one cohort
against the same cluster without tenants, in one run on one server, alternating.

Each tenant's nominal quota is a tenth of the cluster and may be borrowed by the others, so
every arrival passes the quota check and many borrow; client n sends its arrivals as tenant
n % 10. The workload and load generator are ``app.bench.http``'s.

    .venv/bin/python -m app.bench.tenants --database-url postgresql+psycopg://... \\
        [--clients 16] [--duration 20] [--rounds 3] [--workers 1] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import uuid
from typing import Any

import httpx

from app.bench.http import admin_key, run_mode, start_server, stop_server
from app.bench.workload import cluster_spec

TENANTS = [f"team-{i}" for i in range(10)]


def tenants_for(servers: int) -> list[dict[str, Any]]:
    share = {"cpu": 80 * servers / len(TENANTS), "memory": 640 * servers / len(TENANTS)}
    return [{"name": t, "cohort": "all", "nominal": share} for t in TENANTS]


def run(database_url: str, clients: int, duration: float, rounds: int, servers: int,
        policy: str, workers: int, progress: bool = True) -> dict[str, Any]:
    proc, url = start_server(database_url, workers)
    headers = {"Authorization": f"Bearer {admin_key(database_url)}"}
    try:
        rows: list[dict[str, Any]] = []
        for n in range(rounds):
            pair = {}
            for label, extra, tenants in (
                    ("without", {}, None),
                    ("with_10_tenants", {"tenants": tenants_for(servers)}, TENANTS)):
                spec = {**cluster_spec(f"bench-{uuid.uuid4().hex[:8]}", servers,
                                       {"kind": policy}), **extra}
                r = httpx.post(url + "/v1/clusters", json=spec, timeout=30, headers=headers)
                r.raise_for_status()
                cid = r.json()["id"]
                res = asyncio.run(run_mode(url, cid, "single", clients, duration, 1,
                                           seed=n, progress=progress, headers=headers,
                                           tenants=tenants)).summary()
                pair[label] = res
                httpx.delete(f"{url}/v1/clusters/{cid}", timeout=60, headers=headers)
            ratio = (pair["with_10_tenants"]["decisions_per_s"]
                     / pair["without"]["decisions_per_s"])
            rows.append({"round": n + 1, **pair, "ratio": round(ratio, 3)})
            if progress:
                print(f"round {n + 1}: {ratio:.3f}", file=sys.stderr, flush=True)
        return {"clients": clients, "duration_s": duration, "servers": servers,
                "policy": policy, "workers": workers, "load_average": os.getloadavg(),
                "rounds": rows}
    finally:
        stop_server(proc)


def print_table(out: dict[str, Any]) -> None:
    print(f"policy={out['policy']} servers={out['servers']} clients={out['clients']} "
          f"workers={out['workers']} {out['duration_s']:g} s per run; load average after: "
          + " ".join(f"{x:.2f}" for x in out["load_average"]))
    print(f"{'round':>5} {'without /s':>11} {'p99 ms':>7} {'10 tenants /s':>14} {'p99 ms':>7} "
          f"{'ratio':>6} {'errors':>7}")
    for r in out["rounds"]:
        a, b = r["without"], r["with_10_tenants"]
        print(f"{r['round']:>5} {a['decisions_per_s']:11.1f} {a['p99_ms']:7.1f} "
              f"{b['decisions_per_s']:14.1f} {b['p99_ms']:7.1f} {r['ratio']:6.3f} "
              f"{a['errors'] + b['errors']:7d}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--database-url", required=True)
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--duration", type=float, default=20.0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--servers", type=int, default=100)
    ap.add_argument("--policy", default="first_fit")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    out = run(args.database_url, args.clients, args.duration, args.rounds, args.servers,
              args.policy, args.workers, progress=not args.json)
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        print_table(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
