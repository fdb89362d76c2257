"""``headroom reproduce``: regenerate the paper reproductions under docs/reproduction/."""

from __future__ import annotations

import argparse

from app.sim.cliargs import add_reproduction


def register(sub: argparse._SubParsersAction) -> None:
    rep = sub.add_parser("reproduce", help="rerun a paper's experiments into docs/reproduction")
    which = rep.add_subparsers(dest="paper", required=True)
    add_reproduction(which, "dra", "app.sim.reproduce_dra",
                     help="DRA paper §7: Figs. 2-4, random collections, §7.2")

    from app.sim import moments_cli, rms_cli, thor_cli

    thor_cli.add_reproduce_parser(which)
    rms_cli.add_reproduce_parser(which)
    moments_cli.add_reproduce_parser(which)
