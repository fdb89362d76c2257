"""Does a what-if agree with the simulator? The what-if issue's check on the Alibaba trace.

A slice of the Alibaba 2018 batch trace is replayed over HTTP (``headroom replay``'s driver, one
client thread, so the service logs the events in the simulator's order) into a cluster declared
under ``first_fit``. The cluster's log is read back as the service's background run reads it
and replayed under every placement kind as the alternative, as ``headroom what-if`` computes a
run (the API's ``question``, ``read_log``, ``run_request``); the simulator (``run_placement``,
what ``headroom simulate alibaba`` runs) takes the same slice under each kind with the same
engine seed. Both count acceptance and per-type acceptance over the same arrivals, so those are
compared. Utilisation and reward rate are not: the what-if's clock on a placement cluster is the
log's order, the simulator's trace seconds, so their time averages weigh time differently.

Where the two can differ, by construction: only at jobs the alternative admits and the log
refused (``lifetime_drawn``). The simulator holds such a job for its own trace duration; the
what-if for a lifetime drawn from the log positions its type's logged jobs held. Every other
event sits where the simulator puts it: jobs both admit depart at the same place among the
arrivals (the log's order is the simulator's, departures before arrivals at equal times), and
the departures of jobs only the log admitted are dropped, as those jobs never entered the
simulator. ``own_lifetimes`` checks that: with each drawn job given its own trace lifetime, put
in log positions, the what-if's alternative is the simulator's run, figure for figure.

    python -m app.sim.whatif.agreement [--fraction 0.01] [--limit 1000] [--servers 2]

prints the table (in process, through the API on a temporary SQLite database).
"""

from __future__ import annotations

import argparse
import bisect
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from app.sim.trace.alibaba import Trace
from app.sim.trace.runner import Ledger, run_placement
from app.sim.whatif.jobs import MODELS, Logged, logged_lives

KINDS = ("first_fit", "best_fit", "power_of_d", "dra")
LOGGED = "first_fit"
PLACEMENT = MODELS["placement"]


@dataclass
class Agreement:
    """One kind as the alternative: the simulator's figures, the what-if's under each seed,
    and the what-if's with every drawn lifetime replaced by the job's own (``own``)."""

    kind: str
    arrivals: int
    type_arrivals: dict[str, int]
    simulator: float
    simulator_per_type: dict[str, float]
    seeds: list[int]
    what_if: list[float]  # acceptance, per seed
    what_if_per_type: list[dict[str, float]]  # per seed
    drawn: list[int]  # lifetime_drawn events, per seed
    own: float
    own_per_type: dict[str, float]
    over_seeds: dict[str, Any] | None  # the service's acceptance interval (None: none drawn)
    random: bool  # the service's: whether any lifetime was drawn
    reproduces_log: bool
    differences: int  # logged events the alternative decided otherwise (first seed)
    assumptions: dict[str, int]  # the service's, first seed

    @property
    def mean(self) -> float:
        return float(np.mean(self.what_if))

    @property
    def low(self) -> float:
        return min(self.what_if)

    @property
    def high(self) -> float:
        return max(self.what_if)

    @property
    def outside(self) -> float:
        """How far the simulator's acceptance lies outside the what-if's range (0: inside)."""
        return max(0.0, self.low - self.simulator, self.simulator - self.high)

    def type_range(self, name: str) -> tuple[float, float]:
        vals = [p[name] for p in self.what_if_per_type]
        return min(vals), max(vals)


# -- the log ------------------------------------------------------------------------------

def record(client: Any, trace: Trace, servers: int, seed: int) -> tuple[str, Ledger]:
    """The slice replayed over HTTP into a new first_fit cluster by one client thread; the
    replay's own final check (state, every server's jobs, the log) must match."""
    from app.sim.trace.replay import replay

    out = replay("", trace, servers, {"kind": LOGGED}, client=client, concurrency=1,
                 progress=False, seed=seed)
    if out["errors"] or not out["state_check"]["match"]:
        raise RuntimeError(f"the replay did not log cleanly: {out['error_codes']} "
                           f"{out['state_check']}")
    return out["cluster_id"], out["ledger"]


def read(ctx: Any, cluster_id: str) -> tuple[dict[str, Any], list[Logged]]:
    """The cluster's stored declaration and its whole log, as the background run reads them."""
    from sqlalchemy import select

    from app.sim.whatif.background import read_log
    from app.store.models import Cluster

    with ctx.db.connect() as conn:
        spec = conn.execute(select(Cluster.spec).where(Cluster.id == cluster_id)).scalar_one()
    return spec, list(read_log(ctx.db, cluster_id, {}))


def ask(ctx: Any, spec: dict[str, Any], kind: str, seeds: Sequence[int]) -> dict[str, Any]:
    """The run's request for ``kind`` as ``POST .../what-if`` (and ``headroom what-if``) checks
    and stores it: the alternative's declaration is the cluster's with the policy replaced."""
    from app.api.routes.whatif import question
    from app.api.schemas.whatif import WhatIfCreate

    body = {"policy": {"kind": kind}, "seeds": list(seeds), "differences": 0}
    return question(ctx, ctx.families.family_for(spec["policy"]["kind"]), spec,
                    WhatIfCreate.model_validate(body), body)


# -- each job's own lifetime, in log positions ----------------------------------------------

def own_lifetimes(trace: Trace, tag: str, rows: Sequence[Logged]) -> dict[str, float]:
    """Every job's own trace lifetime in positions of this log: from its arrival's position to
    that of the first logged event the simulator puts after its departure (events ordered by
    time, departures before arrivals at equal times, by trace position among each: the
    ``Schedule``'s order, which the log follows). A job ending after the log's last event gets
    a lifetime past it (the window ends first)."""
    def key(row: Logged) -> tuple[float, int, int]:
        i = int(str(row.request["job_id"])[len(tag) + 1:])
        if row.request["kind"] == "arrival":
            return (trace.times[i], 1, i)
        return (trace.times[i] + trace.durations[i], 0, i)

    keys = [key(r) for r in rows]
    if keys != sorted(keys):
        raise ValueError("the log is not in the simulator's order")
    out = {}
    for row in rows:
        if row.request["kind"] != "arrival":
            continue
        i = int(str(row.request["job_id"])[len(tag) + 1:])
        k = bisect.bisect_left(keys, (trace.times[i] + trace.durations[i], 0, i))
        end = rows[k].seq if k < len(rows) else rows[-1].seq + 1
        out[str(row.request["job_id"])] = float(end - row.seq)
    return out


# -- the comparison ---------------------------------------------------------------------------

def _acceptance(summary: Mapping[str, Any]) -> tuple[float, dict[str, float]]:
    return (float(summary["acceptance"]),
            {t: float(v["acceptance"]) for t, v in summary["per_type"].items()})


def simulate(kind: str, trace: Trace, servers: int, seed: int, tag: str = ""
             ) -> tuple[float, dict[str, float]]:
    """The simulator's acceptance and per-type acceptance of the slice under ``kind``."""
    ledger = run_placement(kind, trace, servers, seed=seed, tag=tag)
    arrived = Counter(trace.types)
    placed = Counter(trace.types[i] for i in ledger.placed_index)
    return (float(ledger.summary()["acceptance"]),
            {t.name: placed[k] / arrived[k] for k, t in enumerate(trace.job_types)
             if arrived[k]})


def compare(ctx: Any, cluster_id: str, trace: Trace, tag: str, servers: int, seed: int = 0,
            seeds: Sequence[int] = (0, 1, 2, 3, 4), kinds: Sequence[str] = KINDS
            ) -> list[Agreement]:
    """Each kind through the simulator and as a what-if of the cluster's log."""
    from app.families.registry import REGISTRY
    from app.sim.whatif.background import run_request
    from app.sim.whatif.replay import run_side

    spec, rows = read(ctx, cluster_id)
    adapter = REGISTRY.family_for(spec["policy"]["kind"]).adapter
    lives = logged_lives(PLACEMENT, rows)
    own = own_lifetimes(trace, tag, rows)
    arrived = Counter(trace.job_types[k].name for k in trace.types)
    out = []
    for kind in kinds:
        sim, sim_types = simulate(kind, trace, servers, seed, tag)
        asked = ask(ctx, spec, kind, seeds)
        result = run_request(spec, asked, rows)  # the service's run, every seed
        build = partial(adapter.build, asked["declaration"])
        alternative = result["alternative"]
        if result["random"]:
            # A run returns its first seed's summary; each seed's alternative alone, for the
            # per-type figures (the same side the run computed: a fresh engine and generator).
            sides = [run_side(build, PLACEMENT, spec, rows, lives, s)
                     for s in seeds]
            summaries = [s.summary for s in sides]
            drawn = [s.assumptions.get("lifetime_drawn", 0) for s in sides]
        else:  # nothing drawn: every seed gives the first one's run
            summaries = [alternative["summary"]] * len(seeds)
            drawn = [0] * len(seeds)
        mine = run_side(build, PLACEMENT, spec, rows, lives, seeds[0], known=own)
        own_acc, own_types = _acceptance(mine.summary)
        per_seed = [_acceptance(s) for s in summaries]
        out.append(Agreement(
            kind=kind, arrivals=len(trace), type_arrivals=dict(arrived), simulator=sim,
            simulator_per_type=sim_types, seeds=list(seeds),
            what_if=[a for a, _ in per_seed], what_if_per_type=[t for _, t in per_seed],
            drawn=drawn, own=own_acc, own_per_type=own_types,
            over_seeds=(alternative["over_seeds"] or {}).get("acceptance"),
            random=bool(result["random"]), reproduces_log=result["policy"]["reproduces_log"],
            differences=result["differences"]["count"],
            assumptions={x["assumption"]: x["events"] for x in alternative["assumptions"]}))
    return out


def table(rows: Sequence[Agreement]) -> str:
    head = (f"{'kind':<11} {'simulator':>9} {'what-if mean':>12} {'[min, max] over seeds':>22} "
            f"{'sim - mean':>10} {'outside':>7} {'drawn':>6} {'own lifetimes':>13}")
    lines = [head]
    for r in rows:
        rng = f"[{r.low:.4f}, {r.high:.4f}]"
        lines.append(f"{r.kind:<11} {r.simulator:>9.4f} {r.mean:>12.4f} {rng:>22} "
                     f"{r.simulator - r.mean:>+10.4f} {r.outside:>7.4f} "
                     f"{f'{min(r.drawn)}-{max(r.drawn)}':>6} {r.own:>13.4f}")
    lines.append("")
    lines.append(f"{'kind':<11} {'type':<10} {'arrivals':>8} {'simulator':>9} "
                 f"{'what-if [min, max]':>18} {'own lifetimes':>13}")
    for r in rows:
        for name, sim in r.simulator_per_type.items():
            lo, hi = r.type_range(name)
            lines.append(f"{r.kind:<11} {name:<10} {r.type_arrivals[name]:>8} {sim:>9.4f} "
                         f"{f'[{lo:.4f}, {hi:.4f}]':>18} {r.own_per_type[name]:>13.4f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    import tempfile
    from pathlib import Path

    from fastapi.testclient import TestClient

    from app.config import Settings
    from app.main import create_app
    from app.service.auth import create_key
    from app.sim.trace.alibaba import load
    from app.store.migrate import upgrade

    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--fraction", type=float, default=0.01)
    p.add_argument("--trace-seed", type=int, default=0)
    p.add_argument("--limit", type=int, default=1000)
    p.add_argument("--servers", type=int, default=2)
    p.add_argument("--seed", type=int, default=0, help="the cluster's (and engines') seed")
    p.add_argument("--seeds", default="0,1,2,3,4", help="the what-if's seeds")
    args = p.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    trace = load(args.fraction, args.trace_seed).head(args.limit)
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(database_url=f"sqlite:///{Path(tmp) / 'agreement.db'}",
                            calibration_workers=0, what_if_workers=0)
        upgrade(settings)
        app = create_app(settings, configure_logs=False)
        key = create_key(app.state.ctx, "default", ["admin"])["key"]
        with TestClient(app, headers={"Authorization": f"Bearer {key}"}) as client:
            cluster_id, ledger = record(client, trace, args.servers, args.seed)
            rows = compare(app.state.ctx, cluster_id, trace, ledger.tag, args.servers,
                           args.seed, seeds)
        app.state.ctx.db.dispose()
    print(f"{len(trace)} arrivals (fraction {args.fraction}, trace seed {args.trace_seed}), "
          f"{args.servers} machines, engine seed {args.seed}, what-if seeds {args.seeds}, "
          f"logged under {LOGGED}")
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
