"""What the Kubernetes protocols cost over Headroom's own routes, on one server process: the
extender's filter (a 100-node ``NodeNames`` request on a 100-server DRA cluster) against a
dry-run arrival of the same pod's job type, and the admission webhook's Deployment CREATE
against a direct ``POST .../deployments``. The pairs alternate, one request at a time, so
both sides of a ratio see the same machine; latency at the client.

    .venv/bin/python -m app.bench.kubernetes --database-url postgresql+psycopg://...
"""

from __future__ import annotations

import argparse
import os
import signal
import time
import uuid
from collections.abc import Callable

import httpx
import numpy as np

from app.bench.http import admin_key, start_server

SERVERS = 100


def _timed(call: Callable[[], httpx.Response]) -> float:
    t0 = time.perf_counter()
    r = call()
    r.raise_for_status()
    return (time.perf_counter() - t0) * 1000


def _pod(uid: str) -> dict:
    return {"metadata": {"name": uid, "namespace": "bench", "uid": uid},
            "spec": {"containers": [{"name": "c", "resources": {
                "requests": {"cpu": "3", "memory": "12Gi"}}}]}}


def _review(uid: str) -> dict:
    return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {
        "uid": uid, "operation": "CREATE", "namespace": "bench", "name": uid,
        "resource": {"group": "apps", "version": "v1", "resource": "deployments"},
        "object": {"metadata": {"name": uid, "uid": uid}, "spec": {"replicas": 2, "template": {
            "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}}}}}


def _summary(name: str, ms: list[float]) -> dict[str, float]:
    a = np.array(ms)
    out = {"p50": float(np.percentile(a, 50)), "p99": float(np.percentile(a, 99))}
    print(f"{name:<34} p50 {out['p50']:7.2f} ms   p99 {out['p99']:7.2f} ms")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--database-url", required=True)
    ap.add_argument("--samples", type=int, default=200)
    args = ap.parse_args()
    proc, url = start_server(args.database_url, 1)
    try:
        headers = {"Authorization": f"Bearer {admin_key(args.database_url)}"}
        with httpx.Client(base_url=url, headers=headers, timeout=60) as c:
            tag = os.getpid()
            cid = c.post("/v1/clusters", json={
                "name": f"bench-k8s-{tag}", "dimensions": ["cpu", "memory"],
                "server_pools": [{"name": "n", "count": SERVERS,
                                  "capacity": {"cpu": 32, "memory": 128}}],
                "job_types": [{"name": "small", "demand": {"cpu": 4, "memory": 16}},
                              {"name": "large", "demand": {"cpu": 16, "memory": 64}}],
                "policy": {"kind": "dra"}}).json()["id"]
            mid = c.post("/v1/clusters", json={
                "name": f"bench-k8s-moment-{tag}", "capacity_cores": 10_000_000,
                "policy": {"kind": "threshold", "threshold": 1e9}}).json()["id"]
            nodes = [f"n-{i}" for i in range(SERVERS)]
            lat: dict[str, list[float]] = {k: [] for k in
                                           ("filter", "dry_run", "webhook", "deployment")}
            for i in range(args.samples):
                uid = str(uuid.uuid4())
                lat["filter"].append(_timed(lambda: c.post(
                    f"/v1/clusters/{cid}/kubernetes/extender/filter",
                    json={"Pod": _pod(uid), "NodeNames": nodes})))
                lat["dry_run"].append(_timed(lambda: c.post(
                    f"/v1/clusters/{cid}/arrivals",
                    json={"job_id": uid, "job_type": "small", "dry_run": True})))
                lat["webhook"].append(_timed(lambda: c.post(
                    f"/v1/clusters/{mid}/kubernetes/admission", json=_review(uid))))
                lat["deployment"].append(_timed(lambda: c.post(
                    f"/v1/clusters/{mid}/deployments", json={
                        "event_id": f"d-{uid}", "deployment_id": f"d-{uid}", "cores": 2,
                        "at": time.time() / 3600})))
                if i % 50 == 0:
                    print(f"  {i}/{args.samples} rounds", flush=True)
        s = {k: _summary(k, v) for k, v in lat.items()}
        print(f"filter / dry-run arrival: p50 x{s['filter']['p50'] / s['dry_run']['p50']:.2f}, "
              f"p99 x{s['filter']['p99'] / s['dry_run']['p99']:.2f}")
        print(f"webhook / POST deployments: p50 x{s['webhook']['p50'] / s['deployment']['p50']:.2f}"
              f", p99 x{s['webhook']['p99'] / s['deployment']['p99']:.2f}")
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)


if __name__ == "__main__":
    main()
