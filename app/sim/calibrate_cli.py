"""``headroom calibrate``: tune a policy's threshold by simulation so it meets an SLA."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    from app.sim import moments_cli

    moments_cli.add_calibrate_parser(sub)
