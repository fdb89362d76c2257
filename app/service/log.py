"""Reading the decision log."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from app.errors import ClusterNotFound
from app.service.context import ServiceContext
from app.store.models import Cluster, Event, as_utc


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
