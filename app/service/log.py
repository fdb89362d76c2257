"""Reading the decision log: pages (filtered, either direction) and a recent-window summary.

These are plain reads of the ``events`` table: they never touch an engine or the cluster's
lock, so a dashboard polling them costs the decision path nothing but database reads."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Row, func, or_, select, text
from sqlalchemy.orm import Session

from app.errors import ClusterNotFound
from app.service.context import ServiceContext
from app.store.models import Cluster, Event, as_utc

# One index probe per id, whatever the planner believes about the cluster's size. A plain
# `cluster_id = :c AND event_id IN (...)` lets Postgres pick a bitmap scan of the primary key
# (cluster_id, seq) filtered on event_id while the table has no statistics yet, or ones older
# than the cluster's growth (tests/service/test_log_lookup.py): that reads every logged event of the
# cluster, so each transaction slows with the log's length (a batch run's throughput halves
# in a minute). A LATERAL subquery with LIMIT is never flattened into a
# join, and its equality on both columns of uq_events_cluster_event is one unique-index probe.
LOGGED_PG_SQL = (
    "SELECT e.event_id, e.seq, e.request_hash, e.response "
    "FROM unnest(CAST(:ids AS varchar[])) AS k(id) CROSS JOIN LATERAL ("
    " SELECT event_id, seq, request_hash, response FROM events"
    " WHERE cluster_id = :cluster AND event_id = k.id LIMIT 1) AS e")
_LOGGED_PG = text(LOGGED_PG_SQL).columns(Event.event_id, Event.seq, Event.request_hash,
                                         Event.response)


# The same probes for the ids of several clusters at once (Postgres; cross-cluster groups).
_LOGGED_OF_PG = text(
    "SELECT k.cluster AS cluster_id, e.event_id, e.seq, e.request_hash, e.response "
    "FROM unnest(CAST(:clusters AS varchar[]), CAST(:ids AS varchar[])) AS k(cluster, id) "
    "CROSS JOIN LATERAL ("
    " SELECT event_id, seq, request_hash, response FROM events"
    " WHERE cluster_id = k.cluster AND event_id = k.id LIMIT 1) AS e"
).columns(Event.cluster_id, Event.event_id, Event.seq, Event.request_hash, Event.response)


def logged_events_of(conn: Connection, ids: dict[str, list[str]]) -> Sequence[Row[Any]]:
    """The log rows of ``ids`` (per cluster), with their cluster_id."""
    pairs = [(cluster, eid) for cluster, eids in ids.items() for eid in eids]
    if not pairs:
        return []
    clusters, events = (list(column) for column in zip(*pairs, strict=True))
    return conn.execute(_LOGGED_OF_PG, {"clusters": clusters, "ids": events}).all()


def logged_events(conn: Connection, cluster_id: str, ids: list[str]) -> Sequence[Row[Any]]:
    """The log rows of ``ids`` in this cluster (event_id, seq, request_hash, response)."""
    if not ids:
        return []
    if conn.dialect.name == "postgresql":
        return conn.execute(_LOGGED_PG, {"ids": ids, "cluster": cluster_id}).all()
    # SQLite's planner takes the unique index for this shape.
    return conn.execute(
        select(Event.event_id, Event.seq, Event.request_hash, Event.response)
        .where(Event.cluster_id == cluster_id, Event.event_id.in_(ids))).all()


# Events that name a job in a list of objects: a gang's members (request) and the jobs a
# decision preempted (response). Written per dialect: Postgres's jsonb containment, SQLite's
# json_each; both read only the rows of one cluster, as the other filters do.
_MENTIONS = {
    "postgresql": text(
        "(CAST(events.request AS jsonb) -> 'members' @> CAST(:mention AS jsonb) "
        "OR CAST(events.response AS jsonb) -> 'preempted' @> CAST(:mention AS jsonb))"),
    "sqlite": text(
        "(EXISTS (SELECT 1 FROM json_each(events.request, '$.members') AS m "
        "WHERE json_extract(m.value, '$.job_id') = :job) "
        "OR EXISTS (SELECT 1 FROM json_each(events.response, '$.preempted') AS p "
        "WHERE json_extract(p.value, '$.job_id') = :job))"),
}


@dataclass(frozen=True)
class LogFilter:
    """Which logged decisions to read. ``job`` matches the events about a job or deployment:
    those whose request names it (``job_id``, ``deployment_id``, a gang's ``members``) and
    those that preempted it."""

    decision: str | None = None
    reason: str | None = None
    job: str | None = None

    def clauses(self, dialect: str = "postgresql") -> list[Any]:
        out = []
        if self.decision is not None:
            out.append(Event.decision == self.decision)
        if self.reason is not None:
            out.append(Event.response["reason"].as_string() == self.reason)
        if self.job is not None:
            mention = _MENTIONS[dialect].bindparams(
                **({"mention": json.dumps([{"job_id": self.job}])} if dialect == "postgresql"
                   else {"job": self.job}))
            out.append(or_(Event.request["job_id"].as_string() == self.job,
                           Event.request["deployment_id"].as_string() == self.job, mention))
        return out


def _require(session: Session, cluster_id: str) -> None:
    if session.get(Cluster, cluster_id) is None:
        raise ClusterNotFound(f"cluster {cluster_id!r} does not exist")


def list_events(ctx: ServiceContext, cluster_id: str, limit: int, after_seq: int,
                where: LogFilter = LogFilter(), newest_first: bool = False
                ) -> tuple[list[dict[str, Any]], str | None]:
    """Events matching ``where``, oldest first with seq > after_seq, or newest first with
    seq < after_seq (0: from the newest); the cursor is the last seq returned."""
    query = select(Event).where(Event.cluster_id == cluster_id,
                                *where.clauses(ctx.db.dialect.name))
    if newest_first:
        if after_seq:
            query = query.where(Event.seq < after_seq)
        query = query.order_by(Event.seq.desc())
    else:
        query = query.where(Event.seq > after_seq).order_by(Event.seq)
    with ctx.sessions() as session:
        _require(session, cluster_id)
        rows = session.scalars(query.limit(limit + 1)).all()
    more = len(rows) > limit
    rows = rows[:limit]
    items = [{"seq": r.seq, "event_id": r.event_id, "kind": r.kind, "request": r.request,
              "decision": r.decision, "response": r.response, "created_at": as_utc(r.created_at)}
             for r in rows]
    return items, (str(rows[-1].seq) if more else None)


def decision_summary(ctx: ServiceContext, cluster_id: str, window: int) -> dict[str, Any]:
    """Counts per decision and per reason over the last ``window`` events (reads only the
    decision and reason of each, not the whole answers)."""
    reason = Event.response["reason"].as_string()
    with ctx.sessions() as session:
        _require(session, cluster_id)
        rows = session.execute(
            select(Event.seq, Event.decision, reason, Event.created_at)
            .where(Event.cluster_id == cluster_id)
            .order_by(Event.seq.desc()).limit(window)).all()
        total = session.scalar(select(func.max(Event.seq))
                               .where(Event.cluster_id == cluster_id)) or 0
    decisions = Counter(r[1] for r in rows)
    reasons = Counter(r[2] for r in rows if r[2] is not None)
    return {"cluster_id": cluster_id, "events": len(rows), "latest_seq": total,
            "first_seq": rows[-1][0] if rows else None,
            "decisions": dict(decisions), "reasons": dict(reasons),
            "last_at": as_utc(rows[0][3]) if rows else None,
            "lock_waits": ctx.lock_waits.view(cluster_id)}
