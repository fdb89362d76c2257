"""Weighted fair sharing, measured: two tenants of weights 1 and 2 on a saturated queued
cluster, each of which would take the whole cluster alone.

The cluster (10 servers of 8 cpu and 8 memory) is lent whole by a tenant that sends nothing;
tenants ``a`` (weight 1) and ``b`` (weight 2) have no nominal quota, so everything they run
is borrowed, and who gets freed quota is decided by fair sharing alone
(app/policies/quota_queue.py). Their jobs differ in their dominant resource: ``a``'s need
2 cpu and 1 memory, ``b``'s 1 cpu and 2 memory, so the shares compared are dominant shares
(DRF), not shares of one resource. Each tenant sends Poisson arrivals at 1.5 times the rate
the cluster could serve for it alone (exponential lifetimes of mean 1) and keeps at most
``--backlog`` jobs waiting (a user does not queue without end). The run is the service's own
queue adapter, in-process, on the clients' clock; RMS's clocks are fired one at a time, so
every start happens when the scheduler makes it.

Measured per seed, after ``--warmup``: each tenant's time-average dominant share of the
cohort's lendable quota held (admitted by quota: running, or queued for a server), and the
ratio b / a. Fair sharing with weights 1 : 2 should make it 2. Printed: the ratio per seed,
its mean and 95% interval over the seeds (Student's t), and the shares.

    .venv/bin/python -m app.sim.fairshare [--policy first_fit_queue] [--seeds 10]
        [--horizon 2000] [--warmup 100] [--json] [--plot FILE]
"""

from __future__ import annotations

import argparse
import heapq
import json
import math
import sys
from typing import Any

import numpy as np
from scipy import stats

from app.policies.rms.family import QueueAdapter
from app.sim.progress import TextProgress

SERVERS, CAPACITY = 10, {"cpu": 8.0, "memory": 8.0}
DEMAND = {"a": {"cpu": 2.0, "memory": 1.0}, "b": {"cpu": 1.0, "memory": 2.0}}
WEIGHT = {"a": 1.0, "b": 2.0}
OVERLOAD = 1.5
TRACED = 30.0  # the plot shows the first seed's start, from an empty cluster to the shares


def spec(policy: str) -> dict[str, Any]:
    total = {d: c * SERVERS for d, c in CAPACITY.items()}
    return {
        "dimensions": list(CAPACITY),
        "server_pools": [{"name": "s", "count": SERVERS, "capacity": CAPACITY}],
        "job_types": [{"name": t, "demand": d, "reward": 1.0} for t, d in DEMAND.items()],
        "policy": {"kind": policy, "clock": "client"}, "seed": 0,
        "tenants": [{"name": "lender", "nominal": total, "cohort": "c"},
                    *({"name": t, "nominal": dict.fromkeys(CAPACITY, 0.0), "cohort": "c",
                       "weight": WEIGHT[t]} for t in DEMAND)]}


def rate_alone(tenant: str) -> float:
    """Arrivals per unit time that would keep the whole cluster busy with this tenant's
    jobs (lifetime 1): its jobs that fit the cluster on their dominant resource."""
    return min(CAPACITY[d] * SERVERS / x for d, x in DEMAND[tenant].items())


def run(policy: str, seed: int, horizon: float, warmup: float, backlog: int,
        trace_until: float | None = None) -> dict[str, Any]:
    """One seed's run; ``trace_until``: keep the shares held and running up to this time."""
    adapter = QueueAdapter.build(spec(policy))
    quotas, held = adapter.quotas, adapter.held
    assert quotas is not None and held is not None
    rng = np.random.default_rng(seed)
    events: list[tuple[float, int, str, str]] = []  # (time, seq, kind, job or tenant)
    n = 0

    def push(t: float, kind: str, what: str) -> None:
        nonlocal n
        n += 1
        heapq.heappush(events, (t, n, kind, what))

    for tenant in DEMAND:
        push(float(rng.exponential(1.0 / (OVERLOAD * rate_alone(tenant)))), "arrival", tenant)

    def started(records: list[dict[str, Any]]) -> None:
        for s in records:
            push(s["at"] + float(rng.exponential(1.0)), "departure", s["job_id"])

    def share(tenant: str) -> float:
        return quotas.dominant_share(tenant) * WEIGHT[tenant]  # unweighted

    pool = [c * SERVERS for c in CAPACITY.values()]

    def running_share() -> dict[str, float]:
        """Dominant shares of what runs (a job admitted by quota may wait for a server)."""
        used = {t: [0.0] * len(pool) for t in DEMAND}
        for job_id in adapter.engine.running:
            tenant = quotas.holders[job_id].tenant
            for r, x in enumerate(DEMAND[tenant].values()):
                used[tenant][r] += x
        return {t: max(u / p for u, p in zip(used[t], pool)) for t in DEMAND}

    area = dict.fromkeys(DEMAND, 0.0)
    ran = dict.fromkeys(DEMAND, 0.0)
    trace: list[list[float]] = []
    last = 0.0

    def until(t: float) -> None:
        """The shares held and run since the last change, integrated up to t."""
        nonlocal last
        if t > warmup:
            running = running_share()
            for tenant in DEMAND:
                area[tenant] += share(tenant) * (t - max(last, warmup))
                ran[tenant] += running[tenant] * (t - max(last, warmup))
        if trace_until is not None and t <= trace_until and (
                not trace or t - trace[-1][0] >= trace_until / 1000):
            running = running_share()
            trace.append([t, share("a"), share("b"), running["a"], running["b"]])
        last = t

    jobs = 0
    while events and events[0][0] < horizon:
        t = events[0][0]
        if adapter.next_event_time() < t:  # RMS's clocks, one internal event at a time
            until(adapter.next_event_time())
            started(adapter.apply({"kind": "tick", "until": t, "budget": 1}).started)
            continue  # a job it started may leave before t
        t, _, kind, what = heapq.heappop(events)
        until(t)
        if kind == "arrival":
            tenant = what
            push(t + float(rng.exponential(1.0 / (OVERLOAD * rate_alone(tenant)))),
                 "arrival", tenant)
            if held.waiting_of().get(tenant, 0) >= backlog:
                continue
            jobs += 1
            answer = adapter.apply({"kind": "arrival", "job_id": f"{tenant}{jobs}",
                                    "job_type": tenant, "tenant": tenant, "at": t}).to_dict()
            started(answer["started"])
            if answer["decision"] == "started":
                started([{"job_id": answer["job_id"], "at": t}])
        else:
            started(adapter.apply({"kind": "departure", "job_id": what, "at": t}).to_dict()
                    ["started"])
    until(horizon)
    span = horizon - warmup
    mean = {tenant: area[tenant] / span for tenant in DEMAND}
    running = {tenant: ran[tenant] / span for tenant in DEMAND}
    return {"seed": seed, "share": mean, "ratio": mean["b"] / mean["a"],
            "running_share": running, "running_ratio": running["b"] / running["a"],
            "jobs": jobs, "trace": trace}


def interval(values: list[float], level: float = 0.95) -> tuple[float, float, float]:
    m = float(np.mean(values))
    if len(values) < 2:
        return m, math.nan, math.nan
    half = float(stats.t.ppf(0.5 + level / 2, len(values) - 1) * stats.sem(values))
    return m, m - half, m + half


def measure(policy: str, seeds: int, horizon: float, warmup: float, backlog: int,
            progress: TextProgress | None = None) -> dict[str, Any]:
    runs = []
    for seed in range(1, seeds + 1):
        runs.append(run(policy, seed, horizon, warmup, backlog,
                        trace_until=min(horizon, TRACED) if seed == 1 else None))
        if progress is not None:
            progress(seed, seeds, sum(r["jobs"] for r in runs))
    def summary(key: str) -> dict[str, float]:
        mean, low, high = interval([r[key] for r in runs])
        return {"mean": mean, "low": low, "high": high, "level": 0.95}

    return {"policy": policy, "weights": WEIGHT, "horizon": horizon, "warmup": warmup,
            "backlog": backlog, "ratio": summary("ratio"),
            "running_ratio": summary("running_ratio"),
            "share": {t: float(np.mean([r["share"][t] for r in runs])) for t in DEMAND},
            "running_share": {t: float(np.mean([r["running_share"][t] for r in runs]))
                              for t in DEMAND},
            "runs": [{k: v for k, v in r.items() if k != "trace"} for r in runs],
            "trace": runs[0]["trace"]}


def plot(results: list[dict[str, Any]], path: str) -> None:
    from app.sim.plots import pyplot

    plt = pyplot()
    fig, axes = plt.subplots(1, len(results), figsize=(5.5 * len(results), 3.6), squeeze=False)
    for ax, res in zip(axes[0], results):
        tr = np.array(res["trace"])
        for col, name, colour in ((1, "a (weight 1)", "C0"), (2, "b (weight 2)", "C1")):
            ax.plot(tr[:, 0], tr[:, col], lw=1.2, color=colour, label=f"{name}, held")
            ax.plot(tr[:, 0], tr[:, col + 2], lw=0.6, color=colour, ls="--",
                    label=f"{name}, running")
        r, q = res["ratio"], res["running_ratio"]
        ax.set_title(f"{res['policy']}: b/a held {r['mean']:.3f}, running {q['mean']:.3f} "
                     f"(mean of {len(res['runs'])} seeds)", fontsize=9)
        ax.set_xlabel("time (mean job lifetimes), first seed")
        ax.set_ylabel("dominant share")
        ax.set_ylim(0, 1)
        ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m app.sim.fairshare", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--policy", action="append", choices=["first_fit_queue",
                                                          "best_fit_queue", "rms"],
                    help="repeat for several (default first_fit_queue)")
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--horizon", type=float, default=2000.0)
    ap.add_argument("--warmup", type=float, default=100.0)
    ap.add_argument("--backlog", type=int, default=50)
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    ap.add_argument("--plot", help="write the shares over time (first seed) to this PNG")
    args = ap.parse_args(argv)
    policies = args.policy or ["first_fit_queue"]
    results = []
    for p in policies:
        progress = TextProgress(f"fair share, {p}: seeds")
        results.append(measure(p, args.seeds, args.horizon, args.warmup, args.backlog,
                               progress))
        progress.close()
    if args.plot:
        plot(results, args.plot)
    if args.json:
        json.dump([{k: v for k, v in r.items() if k != "trace"} for r in results], sys.stdout,
                  indent=2)
        print()
        return 0
    for r in results:
        for label, ratio, share in (("held", "ratio", "share"),
                                    ("running", "running_ratio", "running_share")):
            q = r[ratio]
            print(f"{r['policy']:16} {label:8} b/a = {q['mean']:.3f}, 95% interval "
                  f"[{q['low']:.3f}, {q['high']:.3f}] over {len(r['runs'])} seeds (weights "
                  f"1 : 2, target 2); dominant shares a {r[share]['a']:.3f}, "
                  f"b {r[share]['b']:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
