"""One what-if run as the service computes it: a child process of an app process
(app/service/whatifs.py starts it at the lowest CPU priority), given the run's id and the name
of the worker holding its lease.

It reads the run's request, the cluster's declaration and the window of its log (plain reads,
never the cluster's lock), replays it under both policies (replay.py), writes progress every
thousand events and finally the result. Every write is conditional on the lease still being
this worker's and the run still running: a run cancelled, or taken over after this worker's
process stopped renewing, stops at its next write.

    python -m app.sim.whatif.background RUN_ID WORKER

The database URL comes from the environment (HEADROOM_DATABASE_URL), never the command line.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from typing import Any

from sqlalchemy import Engine, select

from app.config import Settings, get_settings
from app.families.registry import REGISTRY
from app.sim.whatif.advisor import Candidate, advise
from app.sim.whatif.jobs import MODELS, Logged
from app.sim.whatif.replay import what_if
from app.store.db import make_engine
from app.store.leases import LeasedRow, child_main
from app.store.models import Cluster, Event, WhatIf, utcnow

PAGE = 5000


def read_log(engine: Engine, cluster_id: str, window: dict[str, Any]) -> Iterator[Logged]:
    """The window's logged events in order, a page at a time."""
    after = int(window.get("from_seq") or 1) - 1
    last = window.get("to_seq")
    while True:
        q = select(Event.seq, Event.event_id, Event.request, Event.response).where(
            Event.cluster_id == cluster_id, Event.seq > after)
        if last is not None:
            q = q.where(Event.seq <= last)
        with engine.connect() as conn:
            rows = conn.execute(q.order_by(Event.seq).limit(PAGE)).all()
        for r in rows:
            yield Logged(r.seq, r.event_id, r.request, r.response)
        if len(rows) < PAGE:
            return
        after = rows[-1].seq


def run_request(spec: dict[str, Any], request: dict[str, Any], rows: list[Logged],
                progress: Callable[[int, int], None] | None = None,
                scheduler: str | None = None) -> dict[str, Any]:
    """The what-if of ``request`` (its ``declaration``: the alternative's spec as the API
    stored it; ``seeds``; ``differences``) over ``rows`` of a cluster declared ``spec``; an
    advisor's candidates on the Dask cluster at ``scheduler``, if given."""
    family = REGISTRY.family_for(spec["policy"]["kind"])
    window = request.get("window") or {}
    if "advise" in request:
        return _advice(family, spec, request, rows, progress, scheduler)
    alternative = request["declaration"]
    out = what_if(lambda: family.adapter.build(spec), lambda: family.adapter.build(alternative),
                  MODELS[family.name], spec, rows, seeds=request.get("seeds") or [0],
                  first=request.get("differences", 20),
                  whole_log=window.get("from_seq") in (None, 1), progress=progress)
    out["policy"]["kind"] = spec["policy"]["kind"]
    out["alternative"]["kind"] = alternative["policy"]["kind"]
    return out


def _advice(family: Any, spec: dict[str, Any], request: dict[str, Any], rows: list[Logged],
            progress: Callable[[int, int], None] | None,
            scheduler: str | None = None) -> dict[str, Any]:
    """An advisor run: ``request["candidates"]`` (each a policy and its declaration, as the API
    checked them) ranked by ``request["advise"]``'s objective, on the Dask cluster at
    ``scheduler`` if one is configured."""
    advise_ = request["advise"]
    options = [Candidate(c["policy"], c["declaration"]) for c in request["candidates"]]
    advice = advise(spec, options, MODELS[family.name], rows, advise_["objective"],
                    seeds=request.get("seeds") or [0],
                    max_rejection=advise_.get("max_rejection"),
                    skipped=request.get("skipped") or [], progress=progress,
                    scheduler=scheduler)
    return {"events": len(rows), "first_seq": rows[0].seq if rows else None,
            "last_seq": rows[-1].seq if rows else None, "seeds": request.get("seeds") or [0],
            "advice": advice}


class Run:
    def __init__(self, settings: Settings, run_id: str, worker: str):
        self.engine, self.settings = make_engine(settings), settings
        self.id, self.worker = run_id, worker
        t = WhatIf.__table__
        with self.engine.connect() as conn:
            row = conn.execute(t.select().where(t.c.id == run_id)).mappings().one()
            self.spec = conn.execute(select(Cluster.spec).where(
                Cluster.id == row["cluster_id"])).scalar_one()
        self.cluster_id, self.request = row["cluster_id"], row["request"]
        self._write = LeasedRow(self.engine, t, t.c.id, run_id, worker).write

    def run(self) -> dict[str, Any]:
        rows = list(read_log(self.engine, self.cluster_id, self.request.get("window") or {}))
        self._write(events_done=0, events_total=len(rows))

        def progress(done: int, total: int) -> None:
            # Both sides' events, counted as the window's: the bar reaches the total once.
            self._write(events_done=min(len(rows), done * len(rows) // max(total, 1)))
        result = run_request(self.spec, self.request, rows, progress,
                             self.settings.dask_scheduler)
        self._write(status="done", result=result, events_done=len(rows), lease_until=None,
                    finished_at=utcnow())
        return result


def main(argv: list[str] | None = None) -> int:
    return child_main(lambda run_id, worker: Run(get_settings(), run_id, worker).run(), argv)


if __name__ == "__main__":
    sys.exit(main())
