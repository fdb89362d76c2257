"""OpenStack Placement under Headroom's single-event load, for the ceiling benchmark's
comparison row (``python -m app.bench.ceiling --placement-venv ...``).

Placement is the allocation service operators of OpenStack already run: a claim is a
``PUT /allocations/{consumer}`` against a resource provider's inventory, in one database
transaction, and a release is a ``DELETE``. The load is the one Headroom's single events get:
each client keeps about 25 consumers, claims a new one and releases its oldest, one request
at a time; every answered claim or release counts as one decision.

Placement is no dependency of Headroom: install it in a virtualenv of its own, for example

    python3 -m venv /tmp/placement-venv
    /tmp/placement-venv/bin/pip install openstack-placement gunicorn psycopg2-binary

It runs under gunicorn (``--workers`` processes, sync workers) with ``auth_strategy =
noauth2`` on a database of its own, which this module creates beside ``--database-url``.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import tempfile
import time
import uuid
from collections import deque
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from app.bench.http import Result, _free_port
from app.bench.rawhttp import RawConnection

HEADERS = {"X-Auth-Token": "admin", "OpenStack-API-Version": "placement 1.39",
           "Accept": "application/json"}
KEPT = 25  # consumers each client holds before it releases its oldest


def _database(database_url: str) -> str:
    """A fresh database for Placement beside ``database_url``; its psycopg2 URL."""
    url = make_url(database_url)
    name = f"placement_{uuid.uuid4().hex[:8]}"
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    return url.set(drivername="postgresql+psycopg2", database=name).render_as_string(
        hide_password=False)


def start(venv: Path, database_url: str, workers: int) -> tuple[subprocess.Popen, str, Path]:
    """Placement on a fresh database, ready; (process, base URL, its config directory)."""
    config = Path(tempfile.mkdtemp(prefix="placement-"))
    (config / "placement.conf").write_text(
        # No request log: Headroom runs with its access log off in the benchmarks too.
        "[DEFAULT]\ndebug = False\ndefault_log_levels = placement.requestlog=WARN\n"
        "[api]\nauth_strategy = noauth2\n"
        f"[placement_database]\nconnection = {_database(database_url)}\n")
    env = {**os.environ, "OS_PLACEMENT_CONFIG_DIR": str(config)}
    subprocess.run([str(venv / "bin" / "placement-manage"), "--config-file",
                    str(config / "placement.conf"), "db", "sync"], env=env, check=True,
                   capture_output=True)
    port = _free_port()
    proc = subprocess.Popen(
        [str(venv / "bin" / "gunicorn"), "--workers", str(workers), "--bind",
         f"127.0.0.1:{port}", "--log-level", "warning", "placement.wsgi.api:application"],
        env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + "/", headers=HEADERS, timeout=1).status_code == 200:
                return proc, url, config
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("Placement did not start")


def provider(url: str) -> str:
    """One resource provider whose inventory no run exhausts; its uuid."""
    rp = str(uuid.uuid4())
    with httpx.Client(base_url=url, headers=HEADERS, timeout=30) as client:
        client.post("/resource_providers", json={"name": "bench", "uuid": rp}
                    ).raise_for_status()
        client.put(f"/resource_providers/{rp}/inventories", json={
            "resource_provider_generation": 0,
            "inventories": {"VCPU": {"total": 10_000_000},
                            "MEMORY_MB": {"total": 100_000_000}}}).raise_for_status()
    return rp


async def run_load(url: str, rp: str, clients: int, duration: float) -> Result:
    res = Result("placement")
    host, port = url.removeprefix("http://").split(":")
    project, user = str(uuid.uuid4()), str(uuid.uuid4())
    begin = time.perf_counter()
    stop_at = begin + duration

    async def worker() -> None:
        conn = RawConnection(host, int(port), HEADERS)
        held: deque[str] = deque()
        while time.perf_counter() < stop_at:
            if len(held) < KEPT:
                consumer = str(uuid.uuid4())
                method, path = "PUT", f"/allocations/{consumer}"
                body: Any = {"allocations": {rp: {"resources": {"VCPU": 1, "MEMORY_MB": 4}}},
                             "project_id": project, "user_id": user,
                             "consumer_generation": None, "consumer_type": "INSTANCE"}
            else:
                consumer = held.popleft()
                method, path, body = "DELETE", f"/allocations/{consumer}", None
            t0 = time.perf_counter()
            status, answer = await conn.request(method, path, body)
            t1 = time.perf_counter()
            res.latencies_ms.append((t1 - t0) * 1000)
            res.requests += 1
            if status != 204:
                res.error(status, answer)
                continue
            res.decided(1, t1 - begin)
            if method == "PUT":
                held.append(consumer)
        await conn.close()

    t0 = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(clients)))
    res.seconds = time.perf_counter() - t0
    return res


def measure(venv: Path, database_url: str, workers: int, clients: int,
            duration: float) -> dict[str, Any]:
    proc, url, _config = start(venv, database_url, workers)
    try:
        return asyncio.run(run_load(url, provider(url), clients, duration)).summary()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
