"""``headroom bound``: U^(g)[ρ] and U*[ρ] per server for a §7.1 preset."""

from __future__ import annotations

import argparse
import json

PRESETS = ("paper-worst-case", "random-gcp")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bound", help="global greedy and LP (3.2) optimum per server")
    p.add_argument("--preset", choices=PRESETS, required=True)
    p.add_argument("--alpha", type=float, default=1.0, help="scale ρ by α (default 1)")
    p.add_argument("--seed", type=int, default=0, help="random-gcp collection (default 0)")
    p.add_argument("--method", choices=("auto", "enumerate", "colgen"), default="auto",
                   help="auto enumerates configurations up to a limit, then generates columns")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    p.set_defaults(func=_run)


def _instance(args: argparse.Namespace):
    from app.sim.presets import paper_worst_case, random_gcp

    if args.alpha < 0:
        raise SystemExit("headroom bound: --alpha must be >= 0")
    if args.preset == "paper-worst-case":
        return paper_worst_case(args.alpha)
    inst = random_gcp(args.seed)
    return inst.scaled(args.alpha) if args.alpha != 1.0 else inst


def _run(args: argparse.Namespace) -> int:
    from app.sim.bounds import bound

    inst = _instance(args)
    b = bound(inst, args.method)
    if args.json:
        print(json.dumps(b.to_dict()))
        return 0
    kind = "feasible configurations" if b.method == "enumerate" else "columns generated"
    rows = [("instance", inst.name), ("method", b.method), (kind, str(b.configurations)),
            ("global greedy U^(g) per server", f"{b.greedy_reward_per_server:.6f}"),
            ("LP (3.2) optimum U* per server", f"{b.optimal_reward_per_server:.6f}"),
            ("ratio U^(g) / U*", f"{b.ratio:.6f}")]
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    return 0
