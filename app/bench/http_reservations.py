"""HTTP latency of THOR observations on Postgres: ``--streams`` reservation streams, each fed
its consecutive periods by one client (a stream's periods are sequential by definition), all
concurrently, against ``headroom serve --workers 2``. Prints observations/s and latency
percentiles. Demand follows the Alibaba 2018 CPU series, one period per request.

    .venv/bin/python -m app.bench.http_reservations --database-url postgresql+psycopg://... \\
        [--streams 16] [--periods 300]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import time

import httpx
import numpy as np

from app.bench.http import admin_key, start_server
from app.bench.rawhttp import RawConnection
from app.sim.traces import utilization


async def _drive(url: str, headers: dict[str, str], ids: list[str], periods: int,
                 series: np.ndarray) -> tuple[list[float], int]:
    host, port = url.removeprefix("http://").split(":")
    latencies: list[float] = []
    errors = 0

    async def one(n: int, rid: str) -> None:
        nonlocal errors
        conn = RawConnection(host, int(port), headers)
        for t in range(periods):
            demand = float(series[(n * 97 + t) % len(series)])
            body = {"event_id": f"{rid}-{t}", "period": t,
                    "demand": {"cpu": demand, "memory": demand / 2}}
            t0 = time.perf_counter()
            status, _ = await conn.post_json(f"/v1/reservations/{rid}/observations", body)
            latencies.append((time.perf_counter() - t0) * 1000)
            errors += status != 200
        await conn.close()

    await asyncio.gather(*(one(n, rid) for n, rid in enumerate(ids)))
    return latencies, errors


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--database-url", required=True)
    ap.add_argument("--streams", type=int, default=16)
    ap.add_argument("--periods", type=int, default=300)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    proc, url = start_server(args.database_url, args.workers)
    try:
        headers = {"Authorization": f"Bearer {admin_key(args.database_url)}"}
        ids = []
        for n in range(args.streams):
            r = httpx.post(url + "/v1/reservations", headers=headers, timeout=30, json={
                "name": f"bench-{os.getpid()}-{n}", "policy": {"kind": "thor"},
                "resources": [{"name": "cpu", "epsilon": 0.05},
                              {"name": "memory", "epsilon": 0.05}]})
            r.raise_for_status()
            ids.append(r.json()["id"])
        series = utilization("alibaba2018", "cpu") * 100
        t0 = time.perf_counter()
        lat, errors = asyncio.run(_drive(url, headers, ids, args.periods, series))
        seconds = time.perf_counter() - t0
        p50, p95, p99 = np.percentile(lat, [50, 95, 99])
        print(f"{len(lat)} observations from {args.streams} streams in {seconds:.1f} s: "
              f"{len(lat) / seconds:.0f}/s, p50 {p50:.2f} ms, p95 {p95:.2f} ms, "
              f"p99 {p99:.2f} ms, errors {errors}")
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)


if __name__ == "__main__":
    main()
