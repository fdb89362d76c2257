"""Apply events to a cluster: the one place where a cluster's state changes.

For one cluster, in one transaction: lock the cluster row (``SELECT ... FOR UPDATE`` on
Postgres, ``BEGIN IMMEDIATE`` on SQLite), look up the events' ids in the log (a known id with
the same request is a replay, with another request a conflict), apply the new events to the
engine, append them to the log, bump the version with a compare-and-set, commit, and only then
answer. Different clusters never wait on each other; one cluster's events are totally ordered.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from app.errors import (Busy, ClusterNotFound, Conflict, IdempotencyKeyReused, Unprocessable,
                        from_policy_error)
from app.policies.base import PolicyError
from app.service.context import ServiceContext
from app.service.engines import Loaded, write_snapshot
from app.service.policies import Family, family_for
from app.store.models import Cluster, Event


def request_hash(event: dict[str, Any]) -> str:
    """Hash of what an event asks for (its id and delivery flags left out)."""
    body = {k: v for k, v in event.items() if k not in ("event_id", "dry_run")}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()
                          ).hexdigest()


def lock_cluster(session: Session, cluster_id: str) -> Cluster:
    stmt = select(Cluster).where(Cluster.id == cluster_id)
    if session.get_bind().dialect.name == "postgresql":
        stmt = stmt.with_for_update()
    try:
        cluster = session.scalars(stmt).first()
    except OperationalError as exc:  # lock_timeout: someone holds the cluster too long
        if "lock timeout" in str(exc).lower():
            raise Busy(f"cluster {cluster_id} is locked by another request; retry") from exc
        raise
    if cluster is None:
        raise ClusterNotFound(f"cluster {cluster_id!r} does not exist")
    return cluster


def apply_events(ctx: ServiceContext, cluster_id: str, events: list[dict[str, Any]]
                 ) -> list[dict[str, Any]]:
    """Decide ``events`` in order, all or nothing; return one answer per event."""
    ids = [e["event_id"] for e in events]
    if len(set(ids)) != len(ids):
        raise Unprocessable("event ids within one request must be distinct",
                            errors=[{"field": "events", "message": "duplicate event_id"}])
    with ctx.sessions() as session, session.begin():
        cluster = lock_cluster(session, cluster_id)
        family = family_for(cluster.policy_kind)
        for e in events:
            if e["kind"] not in family.event_kinds:
                raise Conflict(f"a {cluster.policy_kind} cluster does not take {e['kind']} events")
        logged = {row.event_id: row for row in session.scalars(
            select(Event).where(Event.cluster_id == cluster.id, Event.event_id.in_(ids)))}
        hashes = [request_hash(e) for e in events]
        for e, h in zip(events, hashes):
            row = logged.get(e["event_id"])
            if row is not None and row.request_hash != h:
                raise IdempotencyKeyReused(
                    f"event_id {e['event_id']!r} was already used for another request")
        if len(logged) == len(events):
            return [_answer(logged[i].response, logged[i].seq, replayed=True) for i in ids]

        # The engine is ours alone until checked in; if anything below raises, it is simply
        # not checked in, so no engine that is ahead of the committed log survives.
        item = ctx.engines.checkout(session, cluster)
        old_version = cluster.version
        answers = [_apply_one(ctx, session, family, cluster, item, old_version, e, h,
                              logged.get(e["event_id"])) for e, h in zip(events, hashes)]
        # Compare-and-set: the row lock already serialises writers; this makes a broken lock
        # (or a code path that forgot it) fail loudly instead of losing an update.
        done = session.execute(
            update(Cluster).where(Cluster.id == cluster.id, Cluster.version == old_version)
            .values(version=item.version))
        if done.rowcount != 1:
            raise Conflict(f"cluster {cluster_id} changed concurrently; retry")
        every = ctx.settings.snapshot_every
        if item.version // every > old_version // every:
            write_snapshot(session, cluster, item)
    ctx.engines.checkin(cluster_id, item)
    return answers


def _apply_one(ctx: ServiceContext, session: Session, family: Family, cluster: Cluster,
               item: Loaded, old_version: int, event: dict[str, Any], h: str,
               row: Event | None) -> dict[str, Any]:
    if row is not None:
        return _answer(row.response, row.seq, replayed=True)
    request = _semantic(event)
    try:
        response = family.apply(item.engine, request)
    except PolicyError as exc:
        if item.version == old_version:
            # Engines refuse before mutating, so an engine that applied nothing yet is intact
            # and worth keeping; one that applied part of a batch is dropped with the rollback.
            ctx.engines.checkin(cluster.id, item)
        raise from_policy_error(exc) from exc
    item.version += 1
    session.add(Event(cluster_id=cluster.id, seq=item.version, event_id=event["event_id"],
                      kind=event["kind"], request_hash=h, request=request,
                      decision=response["decision"], response=response))
    ctx.metrics.decision(event["kind"], response["decision"])
    return _answer(response, item.version, replayed=False)


def _semantic(event: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in event.items() if k not in ("event_id", "dry_run")}


def _answer(response: dict[str, Any], seq: int, *, replayed: bool) -> dict[str, Any]:
    return {**response, "event_seq": seq, "replayed": replayed, "dry_run": False}


def dry_run(ctx: ServiceContext, cluster_id: str, event: dict[str, Any]) -> dict[str, Any]:
    """Decide without committing: same lock and engine, nothing written, nothing mutated."""
    with ctx.sessions() as session, session.begin():
        cluster = lock_cluster(session, cluster_id)
        family = family_for(cluster.policy_kind)
        item = ctx.engines.checkout(session, cluster)
        try:
            response = family.dry_run(item.engine, _semantic(event))
        except PolicyError as exc:
            raise from_policy_error(exc) from exc
        finally:
            ctx.engines.checkin(cluster_id, item)
        session.rollback()
    return {**response, "event_seq": None, "replayed": False, "dry_run": True}


def read_engine(ctx: ServiceContext, cluster_id: str, reader):  # noqa: ANN001, ANN201
    """Run ``reader(engine, cluster)`` on the engine at the committed version, no lock held."""
    with ctx.sessions() as session, session.begin():
        cluster = session.get(Cluster, cluster_id)
        if cluster is None:
            raise ClusterNotFound(f"cluster {cluster_id!r} does not exist")
        item = ctx.engines.checkout(session, cluster)
        try:
            return reader(item.engine, cluster)
        except PolicyError as exc:
            raise from_policy_error(exc) from exc
        finally:
            ctx.engines.checkin(cluster_id, item)
