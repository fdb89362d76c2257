"""The simulation commands of ``headroom``: ``bound``, ``simulate``, ``reproduce``, ``calibrate``,
``replay``.

Each paper's subpackage adds its own subcommands (``app/sim/<paper>/cli.py``); this module
creates the command groups and asks each paper for its entries, in the order `--help` lists
them.
"""

from __future__ import annotations

import argparse

from app.sim.dra import cli as dra_cli
from app.sim.moments import cli as moments_cli
from app.sim.rms import cli as rms_cli
from app.sim.thor import cli as thor_cli
from app.sim.trace import cli as trace_cli
from app.sim.whatif import cli as whatif_cli


def register(sub: argparse._SubParsersAction) -> None:
    dra_cli.add_bound_parser(sub)

    sim = sub.add_parser("simulate",
                         help="simulate policies: placement, reservation, queueing, admission")
    experiments = sim.add_subparsers(dest="experiment", required=True)
    dra_cli.add_simulate_parser(experiments)
    thor_cli.add_simulate_parser(experiments)
    rms_cli.add_simulate_parser(experiments)
    moments_cli.add_simulate_parser(experiments)
    trace_cli.add_simulate_parser(experiments)

    rep = sub.add_parser("reproduce", help="rerun a paper's experiments into docs/reproduction")
    which = rep.add_subparsers(dest="paper", required=True)
    dra_cli.add_reproduce_parser(which)
    thor_cli.add_reproduce_parser(which)
    rms_cli.add_reproduce_parser(which)
    moments_cli.add_reproduce_parser(which)

    whatif_cli.add_parser(sub)

    # ``headroom calibrate``: tune a policy's threshold by simulation so it meets an SLA.
    moments_cli.add_calibrate_parser(sub)

    # ``headroom replay``: a real job trace against a running service, over HTTP.
    trace_cli.add_replay_parser(sub)
