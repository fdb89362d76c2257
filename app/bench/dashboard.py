"""What dashboard viewers cost the decision path: decisions/s and latency of single arrivals
and departures (as ``headroom bench http``'s single mode) with 0 viewers and with N, in the
same run, alternating, against ``headroom serve --workers 2`` on Postgres.

A simulated viewer does what app/dashboard/static/app.js does on the overview of one busy
cluster: every ``--poll`` seconds it lists the owner's clusters and streams, and when the
cluster's version moved it reads /state, the decision summary and the log after its cursor.

    .venv/bin/python -m app.bench.dashboard --database-url postgresql+psycopg://... \\
        [--viewers 0,8] [--poll 2] [--clients 8] [--duration 15] [--rounds 2]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import signal
import sys
import time
import uuid
from typing import Any

import httpx

from app.bench.http import admin_key, run_mode, start_server
from app.bench.workload import cluster_spec


class Viewer:
    """One open dashboard tab, reading as the page does."""

    def __init__(self, client: httpx.AsyncClient, cid: str, poll: float, reads: str):
        self.client, self.cid, self.poll, self.reads = client, cid, poll, reads
        self.version: int | None = None
        self.cursor = 0
        self.requests = self.state_reads = 0

    async def _get(self, path: str, **params: Any) -> Any:
        self.requests += 1
        r = await self.client.get(path, params=params)
        r.raise_for_status()
        return r.json()

    async def run(self, stop_at: float) -> None:
        while time.perf_counter() < stop_at:
            clusters, _streams = await asyncio.gather(
                self._get("/v1/clusters", limit=500), self._get("/v1/reservations", limit=500))
            version = next(c["version"] for c in clusters["items"] if c["id"] == self.cid)
            if version != self.version and self.reads != "listings":
                reads = [self._get(f"/v1/clusters/{self.cid}/events", cursor=self.cursor,
                                   limit=1000),
                         self._get(f"/v1/clusters/{self.cid}/decisions")]
                if self.reads == "all":
                    self.state_reads += 1
                    reads.append(self._get(f"/v1/clusters/{self.cid}/state"))
                page, *_ = await asyncio.gather(*reads)
                if page["items"]:
                    self.cursor = page["items"][-1]["seq"]
                self.version = version
            await asyncio.sleep(self.poll)


async def _view(url: str, cid: str, headers: dict[str, str], viewers: int, poll: float,
                reads: str, duration: float) -> tuple[int, int]:
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=60) as client:
        tabs = [Viewer(client, cid, poll, reads) for _ in range(viewers)]
        stop_at = time.perf_counter() + duration
        await asyncio.gather(*(tab.run(stop_at) for tab in tabs))
    return sum(t.requests for t in tabs), sum(t.state_reads for t in tabs)


def _viewer_process(out: Any, *args: Any) -> None:
    out.put(asyncio.run(_view(*args)))


def _phase(url: str, cid: str, headers: dict[str, str], viewers: int, poll: float,
           reads: str, clients: int, duration: float, seed: int) -> dict[str, Any]:
    # The viewers run in a process of their own: in the load generator's event loop their
    # client work would slow the generator itself, and that would be measured as their cost.
    ctx = multiprocessing.get_context("spawn")
    box = ctx.Queue()
    proc = ctx.Process(target=_viewer_process,
                       args=(box, url, cid, headers, viewers, poll, reads, duration))
    if viewers:
        proc.start()
    decided = asyncio.run(run_mode(url, cid, "single", clients, duration, 1, seed, False,
                                    headers))
    requests, state_reads = box.get(timeout=120) if viewers else (0, 0)
    if viewers:
        proc.join(timeout=60)
    out = decided.summary()
    out.update(viewers=viewers,
               viewer_requests_per_s=round(requests / decided.seconds, 1),
               state_reads_per_s=round(state_reads / decided.seconds, 2))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--database-url", required=True)
    ap.add_argument("--viewers", default="0,8", help="viewer counts, alternated per round")
    ap.add_argument("--poll", type=float, default=2.0, help="seconds between a viewer's polls")
    ap.add_argument("--reads", choices=("all", "no-state", "listings"), default="all",
                    help="what a viewer reads when the version moved (to find what costs)")
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--duration", type=float, default=15.0, help="seconds per phase")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--servers", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    counts = [int(v) for v in args.viewers.split(",")]
    proc, url = start_server(args.database_url, args.workers)
    try:
        headers = {"Authorization": f"Bearer {admin_key(args.database_url)}"}
        r = httpx.post(url + "/v1/clusters", headers=headers, timeout=60, json=cluster_spec(
            f"bench-dash-{uuid.uuid4().hex[:8]}", args.servers, {"kind": "first_fit"}))
        r.raise_for_status()
        cid = r.json()["id"]
        rows = []
        for rnd in range(args.rounds):
            for viewers in counts:
                print(f"bench: round {rnd + 1}/{args.rounds}, {viewers} viewers, "
                      f"{args.duration:.0f} s ...", file=sys.stderr, flush=True)
                row = _phase(url, cid, headers, viewers, args.poll, args.reads, args.clients,
                             args.duration, seed=rnd * 10 + viewers)
                row["round"] = rnd + 1
                rows.append(row)
                print(f"  {row['decisions_per_s']} decisions/s, p50 {row['p50_ms']} ms, "
                      f"p99 {row['p99_ms']} ms, viewers {row['viewer_requests_per_s']} req/s, "
                      f"{row['state_reads_per_s']} /state reads/s, errors {row['errors']}",
                      file=sys.stderr, flush=True)
        httpx.delete(f"{url}/v1/clusters/{cid}", headers=headers, timeout=60)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print("| round | viewers | decisions/s | vs 0 viewers | p50 ms | p99 ms | viewer req/s "
          "| /state reads/s |\n|---|---|---|---|---|---|---|---|")
    for row in rows:
        base = next(r for r in rows if r["round"] == row["round"] and r["viewers"] == counts[0])
        ratio = row["decisions_per_s"] / base["decisions_per_s"] if base["decisions_per_s"] else 0
        print(f"| {row['round']} | {row['viewers']} | {row['decisions_per_s']} | {ratio:.2f} "
              f"| {row['p50_ms']} | {row['p99_ms']} | {row['viewer_requests_per_s']} "
              f"| {row['state_reads_per_s']} |")


if __name__ == "__main__":
    main()
