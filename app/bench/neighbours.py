"""Noisy neighbours: one owner's abuse against another owner's latency, request limits on.

Owner B sends single arrivals and departures to its own cluster from a few paced clients at a
moderate rate for the whole run. Owner A alternates quiet phases with abuse of two kinds: an
open loop at a fixed high rate, and a closed-loop flood from many connections that send again
as soon as they are answered (a 429 included). Both mix cheap requests (arrivals, departures)
with expensive ones (declarations, dry runs, batches) and spread them over A's keys. The run is
``[quiet, open, quiet, flood]`` repeated; each abuse phase's B p99 is compared with the quiet
phase just before it (goal: within 1.5x). A runs in a process of its own, so its event loop
never delays B's clocks; all of it, the server and Postgres share the machine, so the load
average is printed with each phase.

    python -m app.bench.neighbours --database-url postgresql+psycopg://postgres@127.0.0.1:5432/DB
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import os
import random
import sys
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import httpx
import numpy as np

from app.bench.http import _Client, start_server, stop_server
from app.bench.rawhttp import RawConnection
from app.bench.workload import VM_TYPES, cluster_spec
from app.config import POSTGRES_LIMITS

GOAL = 1.5  # B's p99 under abuse over B's p99 in the quiet phase before it
# A's mix: (kind, weight). Cheap single events, and the expensive requests the limits bound.
MIX = (("event", 60), ("dry_run", 15), ("batch", 15), ("declaration", 10))


@dataclass
class Phase:
    round: int
    name: str  # quiet | open | flood
    seconds: float = 0.0
    b_latencies_ms: list[float] = field(default_factory=list)
    b_errors: dict[str, int] = field(default_factory=dict)
    a: dict[str, int] = field(default_factory=dict)  # A's answers by status (and 429 code)
    load1: float = 0.0

    def summary(self) -> dict[str, Any]:
        lat = np.array(self.b_latencies_ms or [0.0])
        return {"round": self.round, "phase": self.name, "seconds": round(self.seconds, 1),
                "b_requests": len(self.b_latencies_ms), "b_errors": self.b_errors,
                "b_p50_ms": round(float(np.percentile(lat, 50)), 2),
                "b_p99_ms": round(float(np.percentile(lat, 99)), 2),
                "a": self.a, "a_sent": sum(self.a.values()), "load1": round(self.load1, 2)}


def _count(counts: dict[str, int], status: int, body: Any) -> None:
    code = body.get("code") if isinstance(body, dict) and status >= 400 else None
    name = f"{status} {code}" if code else str(status)
    counts[name] = counts.get(name, 0) + 1


# -- owner B: paced single events, measured --------------------------------------------------

async def _steady(host: str, port: int, headers: dict[str, str], cid: str, clients: int,
                  rate: float, phases: list[Phase], stop: asyncio.Event, seed: int) -> None:
    """``clients`` clients, each sending one event every ``clients / rate`` seconds (or at once
    when the last answer came later); a sample goes to the phase running when it was sent."""

    async def client(n: int) -> None:
        events = _Client(n, share=400 // clients + 1, seed=seed * 1000 + n)
        conn = RawConnection(host, port, headers)
        interval = clients / rate
        due = time.perf_counter() + interval * n / clients
        while not stop.is_set():
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
            due += interval
            phase = phases[-1]
            ev = events.next_event()
            path = "arrivals" if ev["kind"] == "arrival" else "departures"
            t0 = time.perf_counter()
            status, answer = await conn.post_json(f"/v1/clusters/{cid}/{path}",
                                                  {k: v for k, v in ev.items() if k != "kind"})
            phase.b_latencies_ms.append((time.perf_counter() - t0) * 1000)
            if status in (200, 202):
                events.record(ev, answer)
            else:
                _count(phase.b_errors, status, answer)
        await conn.close()

    await asyncio.gather(*(client(n) for n in range(clients)))


# -- owner A: the abuser, in its own process -------------------------------------------------

class _Abuser:
    def __init__(self, host: str, port: int, keys: list[str], cid: str, batch: int,
                 declare_servers: int, seed: int):
        self.host, self.port, self.cid = host, port, cid
        self.headers = [{"Authorization": f"Bearer {k}"} for k in keys]
        self.batch, self.declare_servers = batch, declare_servers
        self.rng = random.Random(seed)
        self.events = _Client(0, share=200, seed=seed)
        self.kinds = [k for k, _ in MIX]
        self.weights = [w for _, w in MIX]
        self.sent = 0

    def request(self) -> tuple[str, dict[str, Any], list[dict[str, Any]]]:
        """(path, body, the events whose answers to record) of the next request of the mix."""
        kind = self.rng.choices(self.kinds, self.weights)[0]
        base = f"/v1/clusters/{self.cid}"
        if kind == "declaration":
            return "/v1/clusters", cluster_spec(f"abuse-{uuid.uuid4().hex[:12]}",
                                                self.declare_servers,
                                                {"kind": "first_fit"}), []
        if kind == "dry_run":
            return f"{base}/arrivals", {"job_id": f"dry-{uuid.uuid4().hex[:12]}",
                                        "job_type": VM_TYPES[0][0], "dry_run": True}, []
        if kind == "batch":
            evs = [self.events.next_event() for _ in range(self.batch)]
            return f"{base}/events:batch", {"events": evs}, evs
        ev = self.events.next_event()
        path = "arrivals" if ev["kind"] == "arrival" else "departures"
        return f"{base}/{path}", {k: v for k, v in ev.items() if k != "kind"}, [ev]

    async def send(self, conn: RawConnection, counts: dict[str, int]) -> None:
        path, body, evs = self.request()
        try:
            status, answer = await conn.post_json(path, body)
        except (ConnectionError, OSError, asyncio.IncompleteReadError):
            counts["connection error"] = counts.get("connection error", 0) + 1
            await conn.close()
            return
        _count(counts, status, answer)
        if status in (200, 202) and evs:
            answers = answer["results"] if path.endswith(":batch") else [answer]
            for ev, ans in zip(evs, answers):
                self.events.record(ev, ans)

    def connection(self) -> RawConnection:
        self.sent += 1
        return RawConnection(self.host, self.port, self.headers[self.sent % len(self.headers)])

    async def open_loop(self, seconds: float, rate: float, outstanding: int) -> dict[str, int]:
        """Requests at ``rate`` per second whatever the answers, on up to ``outstanding``
        connections; a send due while all are busy is counted as ``not sent``."""
        counts: dict[str, int] = {}
        idle: list[RawConnection] = []
        busy = 0
        tasks: set[asyncio.Task[None]] = set()

        async def one(conn: RawConnection) -> None:
            nonlocal busy
            try:
                await self.send(conn, counts)
            finally:
                busy -= 1
                idle.append(conn)

        start = time.perf_counter()
        due = start
        while (now := time.perf_counter()) < start + seconds:
            if now < due:
                await asyncio.sleep(due - now)
            due += self.rng.expovariate(rate)
            if busy >= outstanding:
                counts["not sent"] = counts.get("not sent", 0) + 1
                continue
            busy += 1
            task = asyncio.create_task(one(idle.pop() if idle else self.connection()))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
        await asyncio.gather(*tasks)
        for conn in idle:
            await conn.close()
        return counts

    async def flood(self, seconds: float, connections: int) -> dict[str, int]:
        counts: dict[str, int] = {}
        stop_at = time.perf_counter() + seconds

        async def worker() -> None:
            conn = self.connection()
            while time.perf_counter() < stop_at:
                await self.send(conn, counts)
            await conn.close()

        await asyncio.gather(*(worker() for _ in range(connections)))
        return counts


def _abuser_process(commands: Any, results: Any, host: str, port: int, keys: list[str],
                    cid: str, options: dict[str, Any]) -> None:
    abuser = _Abuser(host, port, keys, cid, options["batch"], options["declare_servers"],
                     options["seed"])
    while (command := commands.get()) is not None:
        mode, seconds = command
        if mode == "open":
            counts = asyncio.run(abuser.open_loop(seconds, options["open_rate"],
                                                  options["open_outstanding"]))
        else:
            counts = asyncio.run(abuser.flood(seconds, options["flood_connections"]))
        results.put(counts)


# -- the run --------------------------------------------------------------------------------

def _keys(database_url: str, owners: dict[str, int]) -> dict[str, list[str]]:
    from app.config import Settings
    from app.service.auth import create_key
    from app.service.context import ServiceContext

    ctx = ServiceContext.from_settings(Settings(database_url=database_url))
    try:
        return {owner: [create_key(ctx, owner, ["admin"], description="bench neighbours")["key"]
                        for _ in range(n)] for owner, n in owners.items()}
    finally:
        ctx.close()


def _delete_clusters(url: str, key: str, prefix: str) -> None:
    """Every cluster of the key's owner whose name starts with ``prefix``, within its
    limits (a 429 waits its Retry-After)."""
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"},
                      timeout=120) as c:
        cursor = None
        while True:
            r = c.get("/v1/clusters", params={"limit": 500, **({"cursor": cursor}
                                                                if cursor else {})})
            if r.status_code == 429:
                time.sleep(int(r.headers["retry-after"]))
                continue
            page = r.json()
            for item in page["items"]:
                if item["name"].startswith(prefix):
                    while c.delete(f"/v1/clusters/{item['id']}").status_code == 429:
                        time.sleep(1)
            cursor = page["next_cursor"]
            if cursor is None:
                return


def run(args: argparse.Namespace) -> dict[str, Any]:
    limits = {"key_requests_per_second": args.key_rate, "owner_requests_per_second":
              args.owner_rate, "owner_expensive_in_flight": args.owner_in_flight}
    env = {f"HEADROOM_{name.upper()}": str(value) for name, value in limits.items()}
    proc, url = start_server(args.database_url, args.workers, env=env)
    try:
        return _run(args, url, limits)
    finally:
        stop_server(proc)


def _run(args: argparse.Namespace, url: str, limits: dict[str, int]) -> dict[str, Any]:
    host, port = url.removeprefix("http://").split(":")
    tag = uuid.uuid4().hex[:8]
    keys = _keys(args.database_url, {f"abuser-{tag}": args.a_keys, f"steady-{tag}": 1})
    a_keys, (b_key,) = keys[f"abuser-{tag}"], keys[f"steady-{tag}"]
    clusters = {}
    for owner, key in (("a", a_keys[0]), ("b", b_key)):
        r = httpx.post(url + "/v1/clusters", headers={"Authorization": f"Bearer {key}"},
                       json=cluster_spec(f"neighbours-{owner}-{tag}", args.servers,
                                         {"kind": "first_fit"}), timeout=60)
        r.raise_for_status()
        clusters[owner] = r.json()["id"]
    options = {k: getattr(args, k) for k in ("batch", "declare_servers", "seed", "open_rate",
                                             "open_outstanding", "flood_connections")}
    context = mp.get_context("spawn")
    commands, results = context.Queue(), context.Queue()
    abuser = context.Process(target=_abuser_process, daemon=True, args=(
        commands, results, host, int(port), a_keys, clusters["a"], options))
    abuser.start()
    print(f"neighbours: {url}, {args.workers} worker(s), limits {limits}; B: "
          f"{args.b_clients} clients at {args.b_rate:g} events/s; A: {args.a_keys} keys, "
          f"open loop {args.open_rate:g}/s, flood {args.flood_connections} connections; "
          f"{args.rounds} rounds of 4 phases of {args.phase_seconds:g} s", file=sys.stderr)
    phases: list[Phase] = [Phase(0, "warm-up")]
    try:
        asyncio.run(_phases(args, host, int(port), b_key, clusters["b"], phases, commands,
                            results))
    finally:
        commands.put(None)
        abuser.join(timeout=60)
        for key, prefix in ((a_keys[0], "abuse-"), (a_keys[0], "neighbours-"),
                            (b_key, "neighbours-")):
            _delete_clusters(url, key, prefix)
    return {"workers": args.workers, "limits": limits, "b_clients": args.b_clients,
            "b_rate": args.b_rate, "open_rate": args.open_rate,
            "flood_connections": args.flood_connections, "a_keys": args.a_keys,
            "phase_seconds": args.phase_seconds, "mix": dict(MIX),
            "phases": [p.summary() for p in phases[1:]]}


async def _phases(args: argparse.Namespace, host: str, port: int, b_key: str, b_cluster: str,
                  phases: list[Phase], commands: Any, results: Any) -> None:
    stop = asyncio.Event()
    steady = asyncio.create_task(_steady(host, port, {"Authorization": f"Bearer {b_key}"},
                                         b_cluster, args.b_clients, args.b_rate, phases,
                                         stop, args.seed))
    await asyncio.sleep(args.warm_up)
    for n in range(1, args.rounds + 1):
        for name in ("quiet", "open", "quiet", "flood"):
            phase = Phase(n, name)
            phases.append(phase)
            t0 = time.perf_counter()
            if name == "quiet":
                await asyncio.sleep(args.phase_seconds)
            else:
                commands.put((name, args.phase_seconds))
                phase.a = await asyncio.to_thread(results.get,
                                                  timeout=args.phase_seconds + 300)
            phase.seconds = time.perf_counter() - t0
            phase.load1 = os.getloadavg()[0]
            s = phase.summary()
            print(f"  round {n} {name:5}  B {s['b_requests']:6d} requests  p50 "
                  f"{s['b_p50_ms']:7.2f} ms  p99 {s['b_p99_ms']:7.2f} ms  A {s['a_sent']:6d} "
                  f"sent  load {phase.load1:.2f}", file=sys.stderr, flush=True)
    phases.append(Phase(args.rounds + 1, "cool-down"))  # takes the samples still in flight
    stop.set()
    await steady
    phases.pop()


def print_table(out: dict[str, Any]) -> None:
    print(f"workers={out['workers']} limits={out['limits']} B: {out['b_clients']} clients, "
          f"{out['b_rate']:g}/s; A: {out['a_keys']} keys, open {out['open_rate']:g}/s, flood "
          f"{out['flood_connections']} connections, mix {out['mix']}")
    print(f"{'round':>5} {'phase':6} {'B req':>7} {'B p50':>7} {'B p99':>7} {'x quiet':>7} "
          f"{'B err':>6} {'A sent':>7} {'A 2xx':>7} {'A 429':>7} {'A other':>7} {'load':>5}")
    quiet_p99 = None
    worst: dict[str, float] = {}
    for p in out["phases"]:
        a = p["a"]
        ok = sum(v for k, v in a.items() if k[:1] == "2")
        refused = sum(v for k, v in a.items() if k.startswith("429"))
        ratio = ""
        if p["phase"] == "quiet":
            quiet_p99 = p["b_p99_ms"]
        elif quiet_p99:
            r = p["b_p99_ms"] / quiet_p99
            worst[p["phase"]] = max(worst.get(p["phase"], 0.0), r)
            ratio = f"{r:.2f}"
        print(f"{p['round']:5d} {p['phase']:6} {p['b_requests']:7d} {p['b_p50_ms']:7.2f} "
              f"{p['b_p99_ms']:7.2f} {ratio:>7} {sum(p['b_errors'].values()):6d} "
              f"{p['a_sent']:7d} {ok:7d} {refused:7d} {p['a_sent'] - ok - refused:7d} "
              f"{p['load1']:5.2f}")
    for name, r in worst.items():
        print(f"worst B p99 under {name} abuse: {r:.2f}x the quiet phase before it "
              f"(goal <= {GOAL}x: {'met' if r <= GOAL else 'missed'})")
    codes: dict[str, int] = {}
    for p in out["phases"]:
        for k, v in p["a"].items():
            codes[k] = codes.get(k, 0) + v
    print(f"A's answers over the run: {dict(sorted(codes.items()))}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--database-url", required=True, help="Postgres (the limits' home)")
    ap.add_argument("--workers", type=int, default=2, help="server worker processes")
    ap.add_argument("--servers", type=int, default=1000, help="servers in each cluster")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--phase-seconds", type=float, default=20)
    ap.add_argument("--warm-up", type=float, default=5, help="seconds of B alone first")
    ap.add_argument("--b-clients", type=int, default=4)
    ap.add_argument("--b-rate", type=float, default=100, help="B's events per second, total")
    ap.add_argument("--a-keys", type=int, default=2, help="keys the abuser spreads over")
    ap.add_argument("--open-rate", type=float, default=800,
                    help="A's open-loop requests/s (over all worker processes)")
    ap.add_argument("--open-outstanding", type=int, default=64,
                    help="A's open loop: most requests awaiting an answer")
    ap.add_argument("--flood-connections", type=int, default=16)
    ap.add_argument("--batch", type=int, default=100, help="events per A batch")
    ap.add_argument("--declare-servers", type=int, default=1000,
                    help="servers in each cluster A declares")
    for name, default in POSTGRES_LIMITS.items():
        flag = {"key_requests_per_second": "--key-rate", "owner_requests_per_second":
                "--owner-rate", "owner_expensive_in_flight": "--owner-in-flight"}[name]
        ap.add_argument(flag, type=int, default=default,
                        help=f"HEADROOM_{name.upper()} for the server (0: off)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    args = ap.parse_args(argv)
    out = run(args)
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        print_table(out)


if __name__ == "__main__":
    main()
