"""Reading the decision log."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, Row, select, text

from app.errors import ClusterNotFound
from app.service.context import ServiceContext
from app.store.models import Cluster, Event, as_utc

# One index probe per id, whatever the planner believes about the cluster's size. The plain
# `cluster_id = :c AND event_id IN (...)` let Postgres pick a bitmap scan of the primary key
# (cluster_id, seq) filtered on event_id while the table had no statistics yet, or ones older
# than the cluster's growth (tests/db/test_log_lookup.py): that reads every logged event of the
# cluster, so each transaction got slower with the log's length (issue #19: a batch run's
# throughput halved in a minute). A LATERAL subquery with LIMIT is never flattened into a
# join, and its equality on both columns of uq_events_cluster_event is one unique-index probe.
LOGGED_PG_SQL = (
    "SELECT e.event_id, e.seq, e.request_hash, e.response "
    "FROM unnest(CAST(:ids AS varchar[])) AS k(id) CROSS JOIN LATERAL ("
    " SELECT event_id, seq, request_hash, response FROM events"
    " WHERE cluster_id = :cluster AND event_id = k.id LIMIT 1) AS e")
_LOGGED_PG = text(LOGGED_PG_SQL).columns(Event.event_id, Event.seq, Event.request_hash,
                                         Event.response)


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


def list_events(ctx: ServiceContext, cluster_id: str, limit: int, after_seq: int
                ) -> tuple[list[dict[str, Any]], str | None]:
    """Events with seq > after_seq, oldest first; the cursor is the last seq returned."""
    with ctx.sessions() as session:
        if session.get(Cluster, cluster_id) is None:
            raise ClusterNotFound(f"cluster {cluster_id!r} does not exist")
        rows = session.scalars(
            select(Event).where(Event.cluster_id == cluster_id, Event.seq > after_seq)
            .order_by(Event.seq).limit(limit + 1)).all()
    more = len(rows) > limit
    rows = rows[:limit]
    items = [{"seq": r.seq, "event_id": r.event_id, "kind": r.kind, "request": r.request,
              "decision": r.decision, "response": r.response, "created_at": as_utc(r.created_at)}
             for r in rows]
    return items, (str(rows[-1].seq) if more else None)
