"""Drive a running Headroom over HTTP with a job trace, as an orchestrator would.

Events follow ``Schedule`` (app/sim/trace/runner.py). ``concurrency`` client threads send
them; an arrival is sent only once every arrival whose job could depart before it has been
answered (its duration is known from the trace, its placement is not), so a departure is never
sent for a job whose fate is unknown and, with ``concurrency=1``, the service sees exactly the
in-process order. Transport errors, 503 and 429 are retried with the *same* event id (the
service answers a retry with the stored decision, so a lost answer costs nothing); any other
error is counted, never retried. ``compression`` maps trace seconds to wall seconds (60: one
trace minute per second; 0: as fast as the service answers).

At the end the ledger is checked against the service: ``GET .../state`` (job count), each
server's jobs (``GET .../servers/{id}``) and the event log (one logged decision per event
sent, equal to the answer received).
"""

from __future__ import annotations

import heapq
import sys
import threading
import time
import uuid
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import httpx
import numpy as np

from app.sim.trace.alibaba import Trace
from app.sim.trace.runner import Event, Ledger, Schedule

RETRY_STATUS = {429, 503}
MAX_ATTEMPTS = 8


class ReplayError(RuntimeError):
    pass


def _post(client: httpx.Client, path: str, body: dict[str, Any],
          stats: dict[str, Any]) -> tuple[int, dict[str, Any], float]:
    delay = 0.05
    for attempt in range(MAX_ATTEMPTS):
        t0 = time.perf_counter()
        try:
            r = client.post(path, json=body)
        except httpx.TransportError:
            status, answer = 0, {}
        else:
            status = r.status_code
            answer = r.json() if r.content else {}
        if status and status not in RETRY_STATUS:
            return status, answer, (time.perf_counter() - t0) * 1000
        with stats["lock"]:
            stats["retries"] += 1
        time.sleep(delay * (1 + attempt))
    return status, answer, 0.0


def replay(url: str, trace: Trace, servers: int, policy: dict[str, Any], *,
           headers: dict[str, str] | None = None, cluster_id: str | None = None,
           concurrency: int = 4, compression: float = 0.0, progress: bool = True,
           check: bool = True, timeout: float = 60.0, seed: int = 0,
           client: httpx.Client | None = None) -> dict[str, Any]:
    """Replay ``trace`` against the service at ``url`` (or through ``client``, e.g. a test
    client, which is left open); returns the figures, the check and the ledger."""
    tag = uuid.uuid4().hex[:6] + "-"
    stats: dict[str, Any] = {"lock": threading.Lock(), "retries": 0, "errors": 0,
                             "error_codes": {}}
    latencies: list[float] = []
    own = client is None
    if client is None:
        client = httpx.Client(base_url=url, headers=headers or {}, timeout=timeout,
                              limits=httpx.Limits(max_connections=concurrency + 2))
    if cluster_id is None:
        cluster_id = _create_cluster(client, trace, f"replay-{tag[:-1]}", servers, policy, seed)
    base = f"/v1/clusters/{cluster_id}"
    ledger = Ledger(trace, servers, tag)
    schedule = Schedule(trace)
    answers: dict[str, dict[str, Any]] = {}
    # In-flight arrivals by the time their job would depart: they must be answered before any
    # event at or after that time is sent.
    pending: list[tuple[float, int, Future]] = []
    done_lock = threading.Lock()

    def send(ev: Event) -> dict[str, Any] | None:
        body = ev.body(tag, trace)
        path = f"{base}/arrivals" if ev.kind == "arrival" else f"{base}/departures"
        status, answer, ms = _post(client, path, body, stats)
        with stats["lock"]:
            if status == 200:
                latencies.append(ms)
            else:
                stats["errors"] += 1
                code = answer.get("code", str(status)) if isinstance(answer, dict) else status
                stats["error_codes"][code] = stats["error_codes"].get(code, 0) + 1
                return None
        with done_lock:
            answers[body["event_id"]] = answer
            ledger.record(ev, answer)
        return answer

    def settle(until: float) -> None:
        while pending and pending[0][0] <= until:
            _, index, fut = heapq.heappop(pending)
            answer = fut.result()
            if answer is not None and answer.get("decision") == "placed":
                schedule.placed(index)

    start = time.perf_counter()
    sent = 0
    last_print = 0.0
    with ThreadPoolExecutor(concurrency) as pool:
        inflight: list[Future] = []
        while True:
            settle(schedule.peek_time())
            ev = schedule.pop()
            if ev is None:
                if not pending:
                    break
                settle(pending[0][0])
                continue
            if compression > 0:
                wait = ev.at / compression - (time.perf_counter() - start)
                if wait > 0:
                    time.sleep(wait)
            fut = pool.submit(send, ev)
            sent += 1
            if ev.kind == "arrival":
                heapq.heappush(pending, (schedule.departure_time(ev.index), ev.index, fut))
            inflight.append(fut)
            if len(inflight) >= 4 * concurrency:
                inflight = [f for f in inflight if not f.done()]
                if len(inflight) >= 4 * concurrency:
                    inflight[0].result()
            now = time.perf_counter() - start
            if progress and now - last_print >= 2.0:
                last_print = now
                print(f"\rreplay: {sent:,} events  trace t {ev.at:,.0f} s  "
                      f"{len(latencies) / now:,.0f} decisions/s  errors {stats['errors']}  "
                      f"retries {stats['retries']} ", end="", file=sys.stderr, flush=True)
    seconds = time.perf_counter() - start
    if progress:
        print(file=sys.stderr)
    out: dict[str, Any] = {
        "cluster_id": cluster_id, "policy": policy.get("kind"), "servers": servers,
        "events": sent, **_figures(latencies, stats, seconds), **ledger.summary()}
    if check:
        out["state_check"] = check_state(client, base, ledger, answers)
    out["ledger"] = ledger
    if own:
        client.close()
    return out


def _create_cluster(client: httpx.Client, trace: Trace, name: str, servers: int,
                    policy: dict[str, Any], seed: int) -> str:
    r = client.post("/v1/clusters", json=trace.cluster_spec(name, servers, policy, seed))
    if r.status_code != 201:
        raise ReplayError(f"cluster creation failed: {r.status_code} {r.text[:300]}")
    return str(r.json()["id"])


def _figures(latencies: list[float], stats: dict[str, Any], seconds: float) -> dict[str, Any]:
    """Decisions, errors, retries and latency percentiles (ms) of a replay."""
    lat = np.asarray(latencies) if latencies else np.zeros(1)
    return {
        "decisions": len(latencies), "errors": stats["errors"],
        "error_codes": stats["error_codes"], "retries": stats["retries"],
        "seconds": round(seconds, 2),
        "decisions_per_s": round(len(latencies) / seconds, 1) if seconds else None,
        "p50_ms": round(float(np.percentile(lat, 50)), 2),
        "p99_ms": round(float(np.percentile(lat, 99)), 2),
    }


def check_state(client: httpx.Client, base: str, ledger: Ledger,
                answers: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Compare the service's state and log with what the replay saw."""
    problems: list[str] = []
    state = client.get(f"{base}/state").json()
    if state.get("jobs") != len(ledger.running):
        problems.append(f"state has {state.get('jobs')} jobs, ledger {len(ledger.running)}")
    expected = ledger.by_server()
    spec = client.get(base).json()
    for pool in spec["server_pools"]:
        for i in range(pool["count"]):
            sid = f"{pool['name']}-{i}"
            jobs = client.get(f"{base}/servers/{sid}").json().get("jobs", [])
            if sorted(jobs) != expected.get(sid, []):
                problems.append(f"server {sid}: service {len(jobs)} jobs, ledger "
                                f"{len(expected.get(sid, []))}")
    logged: dict[str, str] = {}
    cursor: str | None = None
    while True:
        params: dict[str, Any] = {"limit": 1000, **({"cursor": cursor} if cursor else {})}
        page = client.get(f"{base}/events", params=params).json()
        for item in page["items"]:
            logged[item["event_id"]] = item["decision"]
        cursor = page.get("next_cursor")
        if not cursor:
            break
    mine = {eid: a["decision"] for eid, a in answers.items()}
    missing = [e for e in mine if e not in logged]
    differ = [e for e in mine if e in logged and logged[e] != mine[e]]
    extra = [e for e in logged if e.startswith(ledger.tag) and e not in mine]
    if missing or differ or extra:
        problems.append(f"log: {len(missing)} answered events missing, {len(differ)} "
                        f"differ, {len(extra)} logged but never answered")
    return {"match": not problems, "problems": problems[:20], "logged_events": len(logged)}
