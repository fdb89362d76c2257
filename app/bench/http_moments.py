"""HTTP latency of moment-based admission on Postgres: one second-moment cluster holding
``--deployments`` active deployments (default 1,000, 5 x 600 horizon grid), then ``--samples``
further admissions, each after two scale events, sent one at a time; latency per admission
at the client. The goal (moment issue) is p99 <= 30 ms.

    .venv/bin/python -m app.bench.http_moments --database-url postgresql+psycopg://...
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import time

import httpx
import numpy as np

from app.bench.http import admin_key, start_server


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--database-url", required=True)
    ap.add_argument("--deployments", type=int, default=1000)
    ap.add_argument("--samples", type=int, default=300)
    args = ap.parse_args()
    proc, url = start_server(args.database_url, 2)
    rng = random.Random(1)
    try:
        headers = {"Authorization": f"Bearer {admin_key(args.database_url)}"}
        with httpx.Client(base_url=url, headers=headers, timeout=60) as c:
            cid = c.post("/v1/clusters", json={
                "name": f"bench-moment-{os.getpid()}", "capacity_cores": 10_000_000,
                "policy": {"kind": "second_moment", "threshold": 0.99}}).json()["id"]
            at, n = 0.0, 0

            def admit() -> float:
                nonlocal at, n
                at += 0.01
                n += 1
                t0 = time.perf_counter()
                r = c.post(f"/v1/clusters/{cid}/deployments", json={
                    "event_id": f"d{n}", "deployment_id": f"d{n}", "cores": rng.randint(1, 8),
                    "at": at})
                r.raise_for_status()
                return (time.perf_counter() - t0) * 1000

            for i in range(args.deployments):
                admit()
                if i % 200 == 0:
                    print(f"  {i} deployments", flush=True)
            lat = []
            for _ in range(args.samples):
                for _ in range(2):
                    at += 0.01
                    dep = f"d{rng.randint(1, n)}"
                    c.post(f"/v1/clusters/{cid}/deployments/{dep}/scale-outs",
                           json={"event_id": f"s{at}", "cores": 1, "at": at})
                lat.append(admit())
            state = c.get(f"/v1/clusters/{cid}/state").json()
        p50, p95, p99 = np.percentile(lat, [50, 95, 99])
        print(f"{state['deployments']} active deployments; {len(lat)} admissions: p50 "
              f"{p50:.2f} ms, p95 {p95:.2f} ms, p99 {p99:.2f} ms")
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)


if __name__ == "__main__":
    main()
