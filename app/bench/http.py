"""HTTP load test: concurrent clients posting arrivals and departures to one cluster.

Starts `headroom serve` as a child process (or targets --url), creates a cluster, then runs
``clients`` concurrent asyncio clients for ``duration`` seconds, in single-event mode and in
batch mode. Reports decisions/s and latency percentiles per mode. The workload keeps the
cluster near a steady population: each client departs one of its own running jobs with
probability equal to how full its share is, else sends an arrival.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from app.bench.rawhttp import RawConnection
from app.bench.workload import VM_TYPES, cluster_spec
from app.config import LIMITS_OFF_ENV

MODES = ("single", "batch")


@dataclass
class Result:
    mode: str
    requests: int = 0
    decisions: int = 0
    errors: int = 0
    seconds: float = 0.0
    latencies_ms: list[float] = field(default_factory=list)
    error_codes: dict[str, int] = field(default_factory=dict)
    window: float = 10.0  # seconds per entry of ``windows``
    windows: list[int] = field(default_factory=list)  # decisions completed in each window

    def decided(self, n: int, elapsed: float) -> None:
        """``n`` decisions answered ``elapsed`` seconds into the run."""
        self.decisions += n
        i = int(elapsed // self.window)
        if i >= len(self.windows):
            self.windows += [0] * (i + 1 - len(self.windows))
        self.windows[i] += n

    def window_rates(self) -> list[float]:
        """Decisions/s per full window (a last partial window is left out: it is shorter)."""
        full = int(self.seconds // self.window)
        return [round(n / self.window, 1) for n in self.windows[:full]]

    def error(self, status: int, body: Any) -> None:
        self.errors += 1
        code = body.get("code", str(status)) if isinstance(body, dict) else str(status)
        self.error_codes[code] = self.error_codes.get(code, 0) + 1

    def summary(self) -> dict[str, Any]:
        lat = np.array(self.latencies_ms) if self.latencies_ms else np.array([0.0])
        return {
            "mode": self.mode, "requests": self.requests, "decisions": self.decisions,
            "errors": self.errors, "error_codes": self.error_codes, "seconds": round(self.seconds, 2),
            "decisions_per_s": round(self.decisions / self.seconds, 1) if self.seconds else 0,
            "requests_per_s": round(self.requests / self.seconds, 1) if self.seconds else 0,
            "p50_ms": round(float(np.percentile(lat, 50)), 2),
            "p95_ms": round(float(np.percentile(lat, 95)), 2),
            "p99_ms": round(float(np.percentile(lat, 99)), 2),
            "window_s": self.window, "window_decisions_per_s": self.window_rates(),
        }


class _Client:
    """One simulated orchestrator with its own running jobs."""

    def __init__(self, n: int, share: int, seed: int, tenant: str | None = None):
        self.n, self.share, self.tenant = n, share, tenant
        self.rng = random.Random(seed)
        self.running: list[str] = []
        self.counter = 0

    def next_event(self) -> dict[str, Any]:
        self.counter += 1
        eid = f"c{self.n}-{self.counter}-{uuid.uuid4().hex[:8]}"
        if self.running and self.rng.random() < len(self.running) / self.share:
            job = self.running.pop(self.rng.randrange(len(self.running)))
            return {"kind": "departure", "event_id": eid, "job_id": job}
        job = f"j{self.n}-{self.counter}-{eid[-8:]}"
        vm = self.rng.choice(VM_TYPES[:3]) if self.rng.random() < 0.8 else \
            self.rng.choice(VM_TYPES[3:])
        event = {"kind": "arrival", "event_id": eid, "job_id": job, "job_type": vm[0]}
        if self.tenant is not None:
            event["tenant"] = self.tenant
        return event

    def record(self, event: dict[str, Any], answer: dict[str, Any]) -> None:
        if event["kind"] == "arrival" and answer.get("decision") in ("placed", "started"):
            self.running.append(event["job_id"])
        # Queued clusters: jobs started by this call (queued earlier, maybe by another client).
        self.running += [s["job_id"] for s in answer.get("started", ())]


async def run_mode(url: str, cid: str, mode: str, clients: int, duration: float,
                    batch: int, seed: int, progress: bool, headers: dict[str, str],
                    window: float = 10.0, tenants: list[str] | None = None) -> Result:
    """``tenants``: client n's arrivals name tenants[n % len(tenants)]."""
    res = Result(mode, window=window)
    begin = time.perf_counter()
    stop_at = begin + duration
    host, port = url.removeprefix("http://").split(":")

    async def worker(n: int) -> None:
        client = _Client(n, share=400 // clients + 1, seed=seed * 1000 + n,
                         tenant=tenants[n % len(tenants)] if tenants else None)
        conn = RawConnection(host, int(port), headers)
        while time.perf_counter() < stop_at:
            if mode == "single":
                ev = client.next_event()
                path = "arrivals" if ev["kind"] == "arrival" else "departures"
                body = {k: v for k, v in ev.items() if k != "kind"}
                t0 = time.perf_counter()
                status, answer = await conn.post_json(f"/v1/clusters/{cid}/{path}", body)
                t1 = time.perf_counter()
                res.latencies_ms.append((t1 - t0) * 1000)
                res.requests += 1
                if status not in (200, 202):  # 202: queued (queue policies)
                    res.error(status, answer)
                    continue
                res.decided(1, t1 - begin)
                client.record(ev, answer)
            else:
                # A batch departs only jobs placed by earlier batches (client.record).
                evs = [client.next_event() for _ in range(batch)]
                t0 = time.perf_counter()
                status, answer = await conn.post_json(f"/v1/clusters/{cid}/events:batch",
                                                      {"events": evs})
                t1 = time.perf_counter()
                res.latencies_ms.append((t1 - t0) * 1000)
                res.requests += 1
                if status != 200:
                    res.error(status, answer)
                    continue
                res.decided(len(evs), t1 - begin)
                for ev, ans in zip(evs, answer["results"]):
                    client.record(ev, ans)
        await conn.close()

    async def ticker() -> None:
        start = time.perf_counter()
        while time.perf_counter() < stop_at:
            await asyncio.sleep(2)
            if progress:
                el = time.perf_counter() - start
                print(f"  [{mode}] {el:5.1f}s  {res.decisions / el:8.1f} decisions/s  "
                      f"errors={res.errors}", file=sys.stderr, flush=True)

    t0 = time.perf_counter()
    await asyncio.gather(ticker(), *(worker(n) for n in range(clients)))
    res.seconds = time.perf_counter() - t0
    return res


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(database_url: str, workers: int, command: list[str] | None = None,
                 ready_path: str = "/readyz", env: dict[str, str] | None = None
                 ) -> tuple[subprocess.Popen, str]:
    """``headroom serve`` (or ``command``, given ``--port PORT``) as a child process on a free
    port; returns once ``ready_path`` answers 200. The request limits are off unless the
    environment or ``env`` sets them: a benchmark's clients are no tenant's neighbours."""
    port = _free_port()
    env = {**LIMITS_OFF_ENV, **os.environ, "HEADROOM_DATABASE_URL": database_url,
           "HEADROOM_LOG_LEVEL": "warning", **(env or {})}
    argv = command or [sys.executable, "-m", "app.cli", "serve", "--workers", str(workers),
                       "--migrate"]
    proc = subprocess.Popen([*argv, "--port", str(port)], env=env, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + ready_path, timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    raise RuntimeError("server did not become ready")


def stop_server(proc: subprocess.Popen) -> None:
    os.killpg(proc.pid, signal.SIGTERM)
    proc.wait(timeout=30)


def admin_key(database_url: str) -> str:
    from app.config import Settings
    from app.service.auth import create_key
    from app.service.context import ServiceContext

    ctx = ServiceContext.from_settings(Settings(database_url=database_url))
    try:
        return create_key(ctx, "bench", ["admin"], description="headroom bench http")["key"]
    finally:
        ctx.close()


def run(database_url: str | None, url: str | None, workers: int, clients: int,
        duration: float, batch: int, servers: int, policy: str, seed: int,
        progress: bool = True, api_key: str | None = None,
        modes: tuple[str, ...] = MODES, window: float = 10.0) -> dict[str, Any]:
    proc = None
    if url is None:
        if database_url is None:
            raise SystemExit("give --database-url (Postgres) or --url of a running server")
        proc, url = start_server(database_url, workers)
        api_key = api_key or admin_key(database_url)
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        name = f"bench-{uuid.uuid4().hex[:8]}"
        r = httpx.post(url + "/v1/clusters", json=cluster_spec(name, servers, {"kind": policy}),
                       timeout=30, headers=headers)
        r.raise_for_status()
        cid = r.json()["id"]
        if progress:
            print(f"bench: cluster {cid} ({policy}, {servers} servers), {clients} clients, "
                  f"{duration:.0f} s per mode", file=sys.stderr)
        results = []
        for n, mode in enumerate(modes):
            size = 1 if mode == "single" else batch
            results.append(asyncio.run(run_mode(url, cid, mode, clients, duration, size,
                                                 seed + n, progress, headers, window)).summary())
        out = {"workers": workers, "clients": clients, "servers": servers, "policy": policy,
               "batch_size": batch, "results": results}
        httpx.delete(f"{url}/v1/clusters/{cid}", timeout=60, headers=headers)
        return out
    finally:
        if proc is not None:
            stop_server(proc)


def print_table(out: dict[str, Any]) -> None:
    print(f"workers={out['workers']} clients={out['clients']} servers={out['servers']} "
          f"policy={out['policy']} batch={out['batch_size']}")
    print(f"{'mode':8} {'decisions/s':>12} {'requests/s':>11} {'p50 ms':>8} {'p95 ms':>8} "
          f"{'p99 ms':>8} {'errors':>7}")
    for r in out["results"]:
        print(f"{r['mode']:8} {r['decisions_per_s']:12.1f} {r['requests_per_s']:11.1f} "
              f"{r['p50_ms']:8.2f} {r['p95_ms']:8.2f} {r['p99_ms']:8.2f} {r['errors']:7d}"
              + (f"  {r['error_codes']}" if r["error_codes"] else ""))
    for r in out["results"]:
        rates = r["window_decisions_per_s"]
        if len(rates) >= 2 and rates[0]:
            print(f"{r['mode']:8} decisions/s per {r['window_s']:g}-s window: "
                  + " ".join(f"{x:.0f}" for x in rates)
                  + f"  (last/first {rates[-1] / rates[0]:.2f})")


def main_json(out: dict[str, Any]) -> None:
    print(json.dumps(out, indent=2))


def write_json(path: Path, out: dict[str, Any]) -> None:
    """A benchmark's results as JSON, its directory made if need be."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=2) + "\n")
