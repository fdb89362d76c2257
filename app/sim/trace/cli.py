"""``headroom simulate alibaba`` (in process) and ``headroom replay`` (over HTTP): the Alibaba
2018 batch trace through placement and queueing policies. The runs themselves live in
``runner.py`` and ``replay.py``."""

from __future__ import annotations

import argparse
import json
import os
import sys

from app.sim.cliargs import positive

positive_int = positive(int)

PLACEMENT = ("first_fit", "best_fit", "power_of_d", "dra")


def _fraction(text: str) -> float:
    v = float(text)
    if not 0 < v <= 1:
        raise argparse.ArgumentTypeError(f"must be in (0, 1], got {text}")
    return v


def _trace_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--fraction", type=_fraction, default=0.01,
                   help="keep this fraction of the trace's instances (seeded thinning)")
    p.add_argument("--trace-seed", type=int, default=0, help="seed of the thinning")
    p.add_argument("--until", type=float, default=3600.0,
                   help="only arrivals before this trace second")
    p.add_argument("--limit", type=positive_int, default=None,
                   help="only the first N arrivals")
    p.add_argument("--servers", type=positive_int, default=6,
                   help="cluster size in Alibaba machines (96 cores x 100 memory units)")


def _load(args: argparse.Namespace):
    from app.sim.trace.alibaba import load

    trace = load(args.fraction, args.trace_seed, until=args.until)
    return trace.head(args.limit) if args.limit else trace


def _simulate(args: argparse.Namespace) -> int:
    from app.sim.trace.runner import run_placement, run_queue

    trace = _load(args)
    out = {"instances": len(trace), "offered_load": trace.offered_load(args.servers),
           "bucketing": trace.bucketing_cost(), "mix": trace.mix(), "results": {}}
    for kind in [k for k in args.policies.split(",") if k]:
        if kind in PLACEMENT:
            res = run_placement(kind, trace, args.servers, args.seed).summary(args.until)
        else:
            res = run_queue(kind, trace, args.servers, args.seed)
        out["results"][kind] = res
        print(f"{kind}: {json.dumps(res)}", file=sys.stderr)
    print(json.dumps(out, indent=2))
    return 0


def _replay(args: argparse.Namespace) -> int:
    from app.sim.trace.replay import ReplayError, replay

    trace = _load(args)
    key = args.api_key or os.environ.get("HEADROOM_API_KEY")
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    results = []
    for kind in [k for k in args.policies.split(",") if k]:
        if kind not in PLACEMENT:
            raise SystemExit(f"headroom replay: {kind!r} is not a placement policy "
                             f"({', '.join(PLACEMENT)})")
        try:
            out = replay(args.url, trace, args.servers, {"kind": kind}, headers=headers,
                         cluster_id=args.cluster, concurrency=args.concurrency,
                         compression=args.compression, progress=not args.quiet,
                         seed=args.seed)
        except ReplayError as exc:
            print(f"headroom replay: {exc}", file=sys.stderr)
            return 2
        out.pop("ledger")
        results.append(out)
        print(json.dumps(out), flush=True)
    ok = all(r["errors"] == 0 and r.get("state_check", {}).get("match", True)
             for r in results)
    return 0 if ok else 1


def add_simulate_parser(experiments: argparse._SubParsersAction) -> None:
    p = experiments.add_parser("alibaba", help="the Alibaba 2018 batch trace through policies "
                               "(in process)")
    _trace_args(p)
    p.add_argument("--policies", default="first_fit,best_fit,power_of_d,dra,rms",
                   help="comma list: placement kinds and queue kinds (rms, best_fit_queue...)")
    p.add_argument("--seed", type=int, default=0, help="engine seed")
    p.set_defaults(func=_simulate)


def add_replay_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("replay", help="drive a running service over HTTP with the Alibaba "
                       "2018 batch trace and check its final state")
    p.add_argument("--url", required=True, help="the service, e.g. http://127.0.0.1:8000")
    p.add_argument("--api-key", default=None, help="a write key (default: $HEADROOM_API_KEY)")
    p.add_argument("--cluster", default=None,
                   help="replay into this existing, empty cluster (its job types must be the "
                        "trace's; the final check compares the whole cluster) instead of "
                        "declaring one per policy")
    p.add_argument("--policies", default="first_fit", help="comma list of placement kinds")
    p.add_argument("--concurrency", type=positive_int, default=4, help="client threads")
    p.add_argument("--compression", type=float, default=0.0,
                   help="trace seconds per wall second (0: as fast as the service answers)")
    p.add_argument("--seed", type=int, default=0, help="the declared cluster's seed")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    _trace_args(p)
    p.set_defaults(func=_replay)
