"""Writes a background job's child process makes to its job's row (moment calibrations, what-if
runs): each is conditional on the row still being this worker's and still running, so a job
cancelled, or taken over after the worker's process stopped renewing its lease, stops at its
next write (``LeaseLost``; the child then exits with ``EXIT_LOST``)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from sqlalchemy import Column, Engine, Table, update

from app.store.models import utcnow

EXIT_LOST = 3  # the lease is gone: cancelled or taken over


class LeaseLost(Exception):
    pass


class LeasedRow:
    def __init__(self, engine: Engine, table: Table, key: Column[Any], value: str, worker: str):
        self.engine, self.t, self.key, self.value, self.worker = engine, table, key, value, worker

    def write(self, **values: Any) -> None:
        t = self.t
        with self.engine.begin() as conn:
            hit = conn.execute(update(t).where(
                self.key == self.value, t.c.worker == self.worker, t.c.status == "running")
                .values(updated_at=utcnow(), **values))
        if hit.rowcount != 1:
            raise LeaseLost(self.value)


def child_main(run: Callable[[str, str], Any], argv: list[str] | None = None) -> int:
    """A job child's entry point: ``run(key, worker)`` from the command line; 0 when it
    finished, EXIT_LOST when its lease went."""
    key, worker = (sys.argv[1:] if argv is None else argv)[:2]
    try:
        run(key, worker)
    except LeaseLost:
        return EXIT_LOST
    return 0
