"""Tenants and gangs in simulation: what quotas, borrowing, reclaim and all-or-nothing gangs do
to a placement cluster, and what they cost per decision.

One seeded stream of arrivals (Poisson, exponential lifetimes, the benchmark workload's VM
types) is run three ways on the service's own adapter, in-process:

- ``plain``: no tenants, every job a single arrival (what the cluster does today);
- ``tenants``: the same jobs as arrivals of their tenants, under quotas in one cohort;
- ``gangs``: the same, with each gang's jobs sent as one all-or-nothing gang.

Tenant t sends a share of the arrivals proportional to ``--demand`` (default: the first tenant
twice the others), so it borrows what the others leave; each tenant's nominal quota is an
equal share of the cluster. Printed per run: decisions, placed, refused (by quota, by the
cluster), preempted, microseconds per decision; and per tenant its placed jobs, refusals,
preemptions and mean dominant share.

    .venv/bin/python -m app.sim.tenants [--policy first_fit] [--servers 40] [--tenants 4]
        [--jobs 20000] [--load 0.9] [--gang-share 0.25] [--gang-size 4] [--seed 1] [--json]
"""

from __future__ import annotations

import argparse
import heapq
import json
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from app.bench.workload import VM_TYPES, cluster_spec
from app.policies.placement import PlacementAdapter


@dataclass
class Job:
    job_id: str
    job_type: str
    tenant: str
    gang: str | None


@dataclass
class Stream:
    """Arrivals in time order: each a job or a gang of jobs, with its lifetime."""

    items: list[tuple[float, list[Job], float]] = field(default_factory=list)


def make_stream(servers: int, tenants: list[str], demand: list[float], jobs: int, load: float,
                gang_share: float, gang_size: int, seed: int) -> Stream:
    rng = np.random.default_rng(seed)
    cpu = np.array([c for _, c, _ in VM_TYPES], dtype=float)
    mean_cpu = float(cpu.mean())
    # Offered load: arrival rate x lifetime x mean demand = load x capacity (cpu).
    rate = load * 80 * servers / mean_cpu  # per unit lifetime
    p = np.array(demand) / sum(demand)
    out, t, n = Stream(), 0.0, 0
    while n < jobs:
        t += rng.exponential(1.0 / rate)
        tenant = tenants[int(rng.choice(len(tenants), p=p))]
        size = gang_size if rng.random() < gang_share else 1
        vm = VM_TYPES[int(rng.integers(len(VM_TYPES)))][0]
        gang = f"g{n}" if size > 1 else None
        members = [Job(f"j{n + i}", vm, tenant, gang) for i in range(size)]
        out.items.append((t, members, float(rng.exponential(1.0))))
        n += size
    return out


def run(spec: dict[str, Any], stream: Stream, mode: str) -> dict[str, Any]:
    adapter = PlacementAdapter.build(spec)
    departures: list[tuple[float, str]] = []
    alive: set[str] = set()
    counts: dict[str, int] = defaultdict(int)
    per_tenant: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    share_samples = 0
    spent = 0.0
    for t, members, life in stream.items:
        while departures and departures[0][0] <= t:
            _, jid = heapq.heappop(departures)
            if jid in alive:  # preempted jobs are gone already
                alive.discard(jid)
                t0 = time.perf_counter()
                adapter.apply({"kind": "departure", "job_id": jid})
                spent += time.perf_counter() - t0
                counts["decisions"] += 1
        calls: list[tuple[list[Job], dict[str, Any]]]
        if mode == "gangs" and len(members) > 1:
            calls = [(members, {"kind": "gang", "gang_id": members[0].gang,
                                "tenant": members[0].tenant, "priority": 0,
                                "members": [{"job_id": j.job_id, "job_type": j.job_type}
                                            for j in members]})]
        else:
            calls = [([j], {"kind": "arrival", "job_id": j.job_id, "job_type": j.job_type,
                            **({} if mode == "plain" else {"tenant": j.tenant})})
                     for j in members]
        for jobs, event in calls:
            t0 = time.perf_counter()
            answer = adapter.apply(event).to_dict()
            spent += time.perf_counter() - t0
            counts["decisions"] += 1
            tenant = jobs[0].tenant
            if answer["decision"] == "placed":
                counts["placed"] += len(jobs)
                per_tenant[tenant]["placed"] += len(jobs)
                for j in jobs:
                    alive.add(j.job_id)
                    heapq.heappush(departures, (t + life, j.job_id))
            else:
                key = "refused_quota" if answer["reason"] == "quota_exceeded" else \
                    "refused_cluster"
                counts[key] += len(jobs)
                per_tenant[tenant][key] += len(jobs)
            for p in answer["preempted"]:
                alive.discard(p["job_id"])
                counts["preempted"] += 1
                per_tenant[p.get("tenant") or "-"]["preempted"] += 1
        if adapter.quotas is not None:
            share_samples += 1
            for name in adapter.quotas.tenants:
                per_tenant[name]["share_sum"] += adapter.quotas.dominant_share(name)
    tenants = {name: {"placed": int(v["placed"]), "refused_quota": int(v["refused_quota"]),
                      "refused_cluster": int(v["refused_cluster"]),
                      "preempted": int(v["preempted"]),
                      "mean_dominant_share": round(v["share_sum"] / share_samples, 3)
                      if share_samples else None}
               for name, v in sorted(per_tenant.items()) if name != "-"}
    return {"mode": mode, "decisions": counts["decisions"], "placed": counts["placed"],
            "refused_quota": counts["refused_quota"],
            "refused_cluster": counts["refused_cluster"], "preempted": counts["preempted"],
            "us_per_decision": round(1e6 * spent / max(counts["decisions"], 1), 2),
            "tenants": tenants}


def simulate(policy: str, servers: int, n_tenants: int, jobs: int, load: float,
             gang_share: float, gang_size: int, seed: int,
             demand: list[float] | None = None) -> dict[str, Any]:
    names = [f"t{i}" for i in range(n_tenants)]
    demand = demand or [2.0] + [1.0] * (n_tenants - 1)
    base = cluster_spec("sim", servers, {"kind": policy}) | {"seed": seed}
    share = {"cpu": 80 * servers / n_tenants, "memory": 640 * servers / n_tenants}
    tenanted = {**base, "tenants": [{"name": n, "cohort": "all", "nominal": share}
                                    for n in names]}
    stream = make_stream(servers, names, demand, jobs, load, gang_share, gang_size, seed)
    runs = []
    for mode, spec in (("plain", base), ("tenants", tenanted), ("gangs", tenanted)):
        print(f"sim tenants: {mode} ...", file=sys.stderr, flush=True)
        runs.append(run(spec, stream, mode))
    return {"policy": policy, "servers": servers, "tenants": n_tenants, "jobs": jobs,
            "load": load, "gang_share": gang_share, "gang_size": gang_size, "seed": seed,
            "demand": demand, "runs": runs}


def print_table(out: dict[str, Any]) -> None:
    print(f"{out['policy']}, {out['servers']} servers, {out['tenants']} tenants in one cohort "
          f"(demand {out['demand']}), {out['jobs']} jobs at load {out['load']}, "
          f"{out['gang_share']:.0%} of arrivals gangs of {out['gang_size']}, seed {out['seed']}")
    print(f"{'run':8} {'decisions':>9} {'placed':>7} {'quota':>6} {'cluster':>7} "
          f"{'preempted':>9} {'us/decision':>11}")
    for r in out["runs"]:
        print(f"{r['mode']:8} {r['decisions']:9d} {r['placed']:7d} {r['refused_quota']:6d} "
              f"{r['refused_cluster']:7d} {r['preempted']:9d} {r['us_per_decision']:11.1f}")
    for r in out["runs"][1:]:
        print(f"\n{r['mode']}: tenant  placed  refused(quota)  refused(cluster)  preempted  "
              "mean dominant share")
        for name, t in r["tenants"].items():
            print(f"  {name:6} {t['placed']:7d} {t['refused_quota']:15d} "
                  f"{t['refused_cluster']:17d} {t['preempted']:10d} "
                  f"{t['mean_dominant_share']:20.3f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--policy", default="first_fit",
                    choices=["first_fit", "best_fit", "power_of_d", "dra"])
    ap.add_argument("--servers", type=int, default=40)
    ap.add_argument("--tenants", type=int, default=4)
    ap.add_argument("--jobs", type=int, default=20000)
    ap.add_argument("--load", type=float, default=0.9)
    ap.add_argument("--gang-share", type=float, default=0.25)
    ap.add_argument("--gang-size", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if args.tenants < 1 or args.servers < 1 or args.jobs < 1 or args.gang_size < 1:
        ap.error("--tenants, --servers, --jobs and --gang-size must be at least 1")
    out = simulate(args.policy, args.servers, args.tenants, args.jobs, args.load,
                   args.gang_share, args.gang_size, args.seed)
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        print_table(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
