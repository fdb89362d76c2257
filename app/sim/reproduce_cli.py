"""``headroom reproduce``: regenerate the paper reproductions under docs/reproduction/."""

from __future__ import annotations

import argparse
from pathlib import Path


def _dra(args: argparse.Namespace) -> int:
    from app.sim.reproduce_dra import reproduce

    print(reproduce(Path(args.out), quick=args.quick))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    rep = sub.add_parser("reproduce", help="rerun a paper's experiments into docs/reproduction")
    which = rep.add_subparsers(dest="paper", required=True)
    dra = which.add_parser("dra", help="DRA paper §7: Figs. 2-4, random collections, §7.2")
    dra.add_argument("--out", default="docs/reproduction", help="folder for dra.md and plots")
    dra.add_argument("--quick", action="store_true", help="reduced scale, seconds")
    dra.set_defaults(func=_dra)

    from app.sim import moments_cli, rms_cli, thor_cli

    thor_cli.add_reproduce_parser(which)
    rms_cli.add_reproduce_parser(which)
    moments_cli.add_reproduce_parser(which)
