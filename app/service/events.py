"""Apply events to clusters: the one place where a cluster's state changes.

For one cluster, in one transaction: lock the cluster row (``SELECT ... FOR UPDATE`` on
Postgres, ``BEGIN IMMEDIATE`` on SQLite), look up the events' ids in the log (a known id with
the same request is a replay, with another request a conflict), apply the new events to the
engine, append them to the log, bump the version with a compare-and-set, commit, and only then
answer. One cluster's events are totally ordered.

Group commit: single events that arrive while a transaction is running are queued and decided
together in the next transaction, each on its own (one refused event does not fail its
neighbours), and each answered only after that transaction committed. The next transaction
takes the queued events of *every* cluster (up to ``MAX_STREAMS``) whose per-process mutex is
free, locking their rows in id order (the same order everywhere, so no two transactions wait
for each other in a cycle): many small clusters or reservation streams share one commit
instead of paying one each. An event whose decision crashes (an error that is not a policy
refusal: a bug) fails alone; the engine it may have half-changed is discarded and its
neighbours are decided again without it, as if it had never been sent. A batch request is
decided alone, all or nothing.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from time import perf_counter
from typing import Any, TypeVar, cast

from sqlalchemy import Connection, insert, select, text, update
from sqlalchemy.exc import OperationalError

from app import tracing
from app.errors import (
    Busy,
    ClusterNotFound,
    Conflict,
    IdempotencyKeyReused,
    Unprocessable,
    WrongClusterKind,
    at_event,
)
from app.families.base import FamilyRegistry, NothingToDo
from app.policies.errors import PolicyError
from app.policies.protocol import PolicyAdapter
from app.service.context import ServiceContext
from app.service.engines import ClusterRow, Executor, Loaded, write_snapshot
from app.service.log import logged_events, logged_events_of
from app.store.db import json_bytes
from app.store.models import Cluster, Event, utcnow

log = logging.getLogger("headroom.events")
T = TypeVar("T")
C = TypeVar("C")

# Most single events one transaction decides per cluster; the rest wait for the next one.
MAX_GROUP = 256
# Most clusters whose queued events one transaction decides (cross-stream group commit).
MAX_STREAMS = 64


class _Poisoned(Exception):
    """Deciding ``pending`` (of cluster ``cluster_id``) raised ``exc``, which is not a policy
    refusal: the engine may be half-changed, so the transaction cannot go on with it."""

    def __init__(self, cluster_id: str, pending: Pending, exc: Exception):
        super().__init__(str(exc))
        self.cluster_id, self.pending, self.exc = cluster_id, pending, exc


@dataclass
class Pending:
    """One event waiting to be decided, and, once its transaction committed, its answer."""

    event: dict[str, Any]
    hash: str
    answer: dict[str, Any] | None = None
    error: BaseException | None = None
    twin: Pending | None = None  # an earlier event of the same group with the same id
    origin: Any = None  # tracing on: the submitting request's span, for the decide span's links
    # Called once the event is done, from the deciding thread (app/service/decider.py wakes
    # the request's coroutine with it).
    waker: Callable[[], None] | None = None
    _done: bool = field(default=False, init=False)

    @property
    def done(self) -> bool:
        return self._done

    @done.setter
    def done(self, value: bool) -> None:
        woken = value and not self._done and self.waker is not None
        self._done = value
        if woken:
            self.waker()  # type: ignore[misc]

    def result(self) -> dict[str, Any]:
        if self.error is not None:
            raise self.error
        assert self.answer is not None
        return self.answer


def request_hash(event: dict[str, Any]) -> str:
    """Hash of what an event asks for (its id and delivery flags left out)."""
    return hashlib.sha256(json.dumps(_semantic(event), sort_keys=True,
                                     separators=(",", ":")).encode()).hexdigest()


def lock_cluster(conn: Executor, families: FamilyRegistry, cluster_id: str, *,
                 lock: bool = True) -> ClusterRow:
    """The cluster's row, locked for this transaction (``lock=False``: just read it), with
    its family."""
    stmt = select(Cluster.id, Cluster.version, Cluster.policy_kind, Cluster.created_at
                  ).where(Cluster.id == cluster_id)
    bind = conn if isinstance(conn, Connection) else conn.get_bind()
    if lock and bind.dialect.name == "postgresql":
        stmt = stmt.with_for_update()
    try:
        row = conn.execute(stmt).first()
    except OperationalError as exc:  # lock_timeout: someone holds the cluster too long
        if "lock timeout" in str(exc).lower():
            raise Busy(f"cluster {cluster_id} is locked by another request; retry") from exc
        raise
    if row is None:
        raise ClusterNotFound(f"cluster {cluster_id!r} does not exist")
    return _cluster_row(families, row)


def _cluster_row(families: FamilyRegistry, row: Any) -> ClusterRow:
    """A locked clusters row (id, version, policy_kind, created_at) with its family."""
    family = families.family_for(row.policy_kind)
    return ClusterRow(row.id, row.version, row.policy_kind, family,
                      row.created_at if family.needs_created_at else None)


def submit_event(ctx: ServiceContext, cluster_id: str, event: dict[str, Any]) -> dict[str, Any]:
    """Decide one event, group-committed with whatever else this process has queued for this
    cluster, and with ``HEADROOM_GROUP_ACROSS_CLUSTERS`` for other clusters too."""
    pending = Pending(event, request_hash(event), origin=ctx.tracing.origin())
    ctx.groups.enqueue(cluster_id, pending)
    # A loop: one round may not reach our event (more than MAX_GROUP queued ahead of it, or
    # its cluster held by a batch or a read when the round claimed the queued clusters).
    if not ctx.settings.group_across_clusters:  # this cluster's queue only
        with ctx.groups.exclusive(cluster_id):
            while not pending.done:
                _decide(ctx, {cluster_id: []}, all_or_nothing=False, drain=True)
        return pending.result()
    while not pending.done:
        if not lead(ctx, lambda: pending.done) and not pending.done:
            ctx.groups.wait_for(cluster_id)
    return pending.result()


def lead(ctx: ServiceContext, done: Callable[[], bool], on_behalf: bool = False) -> bool:
    """One leader's turn (unless ``done()`` turns true while waiting for it): decide what is
    queued for every cluster whose mutex is free, in one transaction. False if it claimed
    no cluster. ``on_behalf``: the caller is no request (the decider thread), so the
    transaction's spans join the trace of the first event it takes."""
    with ctx.groups.leading(MAX_STREAMS, done) as claimed:
        if claimed:
            oldest = ctx.groups.oldest(claimed[0]) if on_behalf and ctx.tracing.on else None
            with ctx.tracing.within(getattr(oldest, "origin", None)):
                _decide(ctx, {cid: [] for cid in claimed}, all_or_nothing=False, drain=True)
    return bool(claimed)


def _batch_group(events: list[dict[str, Any]]) -> list[Pending]:
    ids = [e["event_id"] for e in events]
    if len(set(ids)) != len(ids):
        raise Unprocessable("event ids within one request must be distinct",
                            errors=[{"field": "events", "message": "duplicate event_id"}])
    return [Pending(e, request_hash(e)) for e in events]


def apply_batch(ctx: ServiceContext, cluster_id: str, events: list[dict[str, Any]]
                ) -> list[dict[str, Any]]:
    """Decide ``events`` in order in one transaction, all or nothing."""
    group = _batch_group(events)
    with ctx.groups.exclusive(cluster_id):
        _decide(ctx, {cluster_id: group}, all_or_nothing=True, drain=False)
    return [p.result() for p in group]


def _decide(ctx: ServiceContext, groups: dict[str, list[Pending]], all_or_nothing: bool,
            drain: bool) -> None:
    """Decide the groups of one or more clusters in one transaction; on return every member
    is done (answer or error).

    ``drain``: the groups start empty and take their clusters' queued single events once the
    cluster's row lock is held, so they also hold everything that arrived meanwhile.

    When one event crashes an engine, the transaction rolls back, no engine of it is checked
    back in (the next checkout reloads from the log), that event and its same-request twins
    get the error, and the rest are decided again in a new transaction. Each round removes at
    least one event, so there are at most as many rounds as events.
    """
    drained: set[str] = set()
    while True:
        try:
            parts = _decide_in_transaction(ctx, groups, all_or_nothing, drain, drained)
        except _Poisoned as poisoned:
            bad = poisoned.pending
            log.error("event crashed the engine; decided without it",
                      exc_info=poisoned.exc, extra={"cluster_id": poisoned.cluster_id,
                                                    "event_id": bad.event["event_id"]})
            if all_or_nothing:
                raise poisoned.exc from None
            # A retry of the crashing request (same id and body) would crash the same way.
            for p in groups[poisoned.cluster_id]:
                if p is bad or (p.event["event_id"] == bad.event["event_id"]
                                and p.hash == bad.hash):
                    p.answer, p.error, p.twin, p.done = None, poisoned.exc, None, True
            for group in groups.values():
                group[:] = [p for p in group if not p.done]
                for p in group:  # decided afresh: the rolled-back round's answers never were
                    p.answer, p.error, p.twin = None, None, None
            if not any(groups.values()):
                return
            drain = False
            continue
        except BaseException as exc:
            if drain:  # failed before draining some: their queued events share the fate
                for cid in groups.keys() - drained:
                    groups[cid].extend(ctx.groups.drain(cid, MAX_GROUP))
            for group in groups.values():
                for p in group:
                    if not p.done:
                        p.error, p.done = exc, True
            if all_or_nothing:
                raise
            return
        break
    for cid, item in parts:
        if item is not None:
            ctx.engines.checkin(cid, item)
    for group in groups.values():
        for p in group:
            if p.twin is not None:  # same id twice in one group: the second is a retry
                if p.twin.answer is not None:
                    p.answer = {**p.twin.answer, "replayed": True}
                else:
                    p.error = p.twin.error
            p.done = True


@dataclass
class _Part:
    """One cluster's share of a transaction."""

    cluster: ClusterRow
    item: Loaded | None
    rows: list[dict[str, Any]]
    old_version: int


def _decide_in_transaction(ctx: ServiceContext, groups: dict[str, list[Pending]],
                           all_or_nothing: bool, drain: bool, drained: set[str]
                           ) -> list[tuple[str, Loaded | None]]:
    wanted = [cid for cid in sorted(groups) if drain or groups[cid]]
    if len(wanted) > 1 and not all_or_nothing and ctx.db.dialect.name == "postgresql":
        return _decide_clusters(ctx, groups, wanted, drain, drained)
    parts: list[_Part] = []
    # Not db.begin(): the lock span must hold SQLite's BEGIN IMMEDIATE (its lock wait) and the
    # commit span the COMMIT. Closing the connection rolls back what was not committed.
    with ctx.db.connect() as conn:
        tx = None
        # Rows locked in one fixed order (ids sorted) in every transaction of every process:
        # two transactions never wait for each other in a cycle.
        for cid in sorted(groups):
            group = groups[cid]
            if not drain and not group:
                continue
            cluster: ClusterRow | None = None
            with ctx.tracing.span(tracing.LOCK_WAIT, {"headroom.cluster_id": cid}):
                waited = perf_counter()
                if tx is None:
                    tx = conn.begin()
                try:
                    cluster = lock_cluster(conn, ctx.families, cid)
                except ClusterNotFound as exc:
                    if all_or_nothing:
                        raise
                    missing = exc
                else:
                    ctx.lock_waits.record(cid, perf_counter() - waited)
            if drain:
                group.extend(ctx.groups.drain(cid, MAX_GROUP))
                drained.add(cid)
            if cluster is None:  # deleted while its events queued: they alone fail
                for p in group:
                    p.error, p.done = missing, True
                continue
            parts.append(_decide_group(ctx, conn, cluster, group, all_or_nothing))

        written = sum(len(part.rows) for part in parts)
        with ctx.tracing.span(tracing.COMMIT, {"headroom.cluster_id": ",".join(groups),
                                               "headroom.events_written": written}):
            for part in parts:
                if part.rows:
                    _write(ctx, conn, part)
            if tx is not None:
                tx.commit()
    # Committed: only now are the answers real.
    for part in parts:
        ctx.metrics.committed(part.cluster, part.item, part.rows)
    return [(part.cluster.id, part.item) for part in parts]


def _decide_clusters(ctx: ServiceContext, groups: dict[str, list[Pending]], wanted: list[str],
                     drain: bool, drained: set[str]) -> list[tuple[str, Loaded | None]]:
    """The queued single events of several clusters (Postgres), in one transaction and with
    one statement per step for all of them: lock the rows, look the ids up, append the log
    rows, advance the versions. Issued per cluster, those are four round trips each, one
    after another, while the other clusters' requests wait for the same commit."""
    parts: list[_Part] = []
    with ctx.db.connect() as conn:
        with ctx.tracing.span(tracing.LOCK_WAIT, {"headroom.cluster_id": ",".join(wanted)}):
            waited = perf_counter()
            tx = conn.begin()
            clusters = lock_clusters(conn, ctx.families, wanted)
            waited = perf_counter() - waited
        for cid in wanted:
            if drain:
                groups[cid].extend(ctx.groups.drain(cid, MAX_GROUP))
                drained.add(cid)
            if cid in clusters:
                ctx.lock_waits.record(cid, waited)
            else:  # deleted while its events queued: they alone fail
                for p in groups[cid]:
                    p.error = ClusterNotFound(f"cluster {cid!r} does not exist")
                    p.done = True
        asked = {cid: list({p.event["event_id"] for p in groups[cid]}) for cid in clusters}
        logged: dict[str, dict[str, Any]] = {cid: {} for cid in clusters}
        for row in logged_events_of(conn, asked):
            logged[row.cluster_id][row.event_id] = row
        for cid, cluster in clusters.items():
            parts.append(_decide_group(ctx, conn, cluster, groups[cid], False, logged[cid]))

        changed = [part for part in parts if part.rows]
        with ctx.tracing.span(tracing.COMMIT, {
                "headroom.cluster_id": ",".join(wanted),
                "headroom.events_written": sum(len(part.rows) for part in changed)}):
            if changed:
                conn.execute(insert(Event), [row for part in changed for row in part.rows])
                advance_versions(conn, [(part.cluster.id, part.old_version, part.item.version)
                                        for part in changed if part.item is not None])
                for part in changed:
                    _snapshot_if_due(ctx, conn, part)
            tx.commit()
    for part in parts:
        ctx.metrics.committed(part.cluster, part.item, part.rows)
    return [(part.cluster.id, part.item) for part in parts]


def _decide_group(ctx: ServiceContext, conn: Connection, cluster: ClusterRow,
                  group: list[Pending], all_or_nothing: bool,
                  logged: dict[str, Any] | None = None) -> _Part:
    """Decide one cluster's events on its engine (the row is locked); nothing written yet.
    ``logged``: the log rows of the group's ids, if already read."""
    time = cluster.family.time
    ids = list({p.event["event_id"] for p in group})
    part = _Part(cluster, None, [], cluster.version)
    first: dict[str, Pending] = {}
    now = utcnow()
    with ctx.tracing.span(tracing.DECIDE, {
            "headroom.cluster_id": cluster.id, "headroom.policy_kind": cluster.policy_kind,
            "headroom.group_size": len(group)}, linked=group) as span:
        if logged is None:
            logged = {r.event_id: r for r in logged_events(conn, cluster.id, ids)}
        for p in group:
            eid = p.event["event_id"]
            row = logged.get(eid)
            twin = first.get(eid)
            if (row is not None and row.request_hash != p.hash) or \
                    (twin is not None and twin.hash != p.hash):
                p.error = IdempotencyKeyReused(
                    f"event_id {eid!r} was already used for another request")
            elif row is not None:
                p.answer = _answer(row.response, row.seq, replayed=True)
            elif twin is not None:
                p.twin = twin
            else:
                first[eid] = p
                if part.item is None:
                    part.item = ctx.engines.checkout(conn, cluster)
                item = part.item
                request = _semantic(p.event)
                try:
                    if time is not None:  # the log keeps the prepared request, for replay
                        prepared = time.prepare(item.adapter, cluster.created_at, request)
                        if isinstance(prepared, NothingToDo):  # changes nothing: not logged
                            p.answer = {**prepared.decision.to_dict(), "event_seq": None,
                                        "replayed": False, "dry_run": False}
                            continue
                        request = prepared
                    response = item.adapter.apply(request).to_dict()
                    # The bytes this answer will be sent as, and the text the log stores
                    # (app/store/db.py): an answer that has none (NaN, a lone surrogate) is a
                    # bug in the engine or a hole in the input checks, and fails here, alone,
                    # before the commit, rather than the whole group's insert or, after the
                    # commit, its own answer.
                    json_bytes(response)  # ValueError: handled below
                except PolicyError as exc:  # refused before mutating (engine contract)
                    p.error = exc
                except Exception as exc:  # a bug: the engine may be half-changed
                    raise _Poisoned(cluster.id, p, exc) from exc
                else:
                    item.version += 1
                    part.rows.append({"cluster_id": cluster.id, "seq": item.version,
                                      "event_id": eid, "kind": p.event["kind"],
                                      "request_hash": p.hash, "request": request,
                                      "decision": response["decision"], "response": response,
                                      "created_at": now})
                    p.answer = _answer(response, item.version, replayed=False)
            if p.error is not None and all_or_nothing:
                if part.item is not None and part.item.version == part.old_version:
                    ctx.engines.checkin(cluster.id, part.item)  # untouched: worth keeping
                raise at_event(p.error, group.index(p), eid)  # a batch: in request order
        if span.is_recording():  # counting costs a pass over the group
            span.set_attributes(tracing.outcomes(group))
    return part


def _write(ctx: ServiceContext, conn: Connection, part: _Part) -> None:
    """Append one cluster's decided events to the log and advance its version."""
    cluster, item = part.cluster, part.item
    assert item is not None
    # executemany of one cached statement; a multi-VALUES INSERT was measured slower
    # (3,300 against 5,500 batched decisions/s): SQLAlchemy compiles it afresh per size.
    conn.execute(insert(Event), part.rows)
    # Compare-and-set: the row lock already serialises writers; this makes a broken lock (or
    # a code path that forgot it) fail loudly instead of losing an update.
    done = conn.execute(
        update(Cluster).where(Cluster.id == cluster.id, Cluster.version == part.old_version)
        .values(version=item.version))
    if done.rowcount != 1:
        raise Conflict(f"cluster {cluster.id} changed concurrently; retry")
    _snapshot_if_due(ctx, conn, part)


def _snapshot_if_due(ctx: ServiceContext, conn: Connection, part: _Part) -> None:
    every = ctx.settings.snapshot_every
    assert part.item is not None
    if part.item.version // every > part.old_version // every:
        write_snapshot(conn, part.cluster, part.item)


# Several clusters' rows, locked in id order (bytewise, as Python's sorted orders the ids for
# the per-cluster path, so every transaction of every process takes its locks in one order).
_LOCK_CLUSTERS = text(
    "SELECT id, version, policy_kind, created_at FROM clusters "
    "WHERE id = ANY(CAST(:ids AS varchar[])) ORDER BY id COLLATE \"C\" FOR UPDATE"
).columns(Cluster.id, Cluster.version, Cluster.policy_kind, Cluster.created_at)
# The compare-and-set of several versions at once (see _write); RETURNING counts them.
_ADVANCE_VERSIONS = text(
    "UPDATE clusters SET version = v.new FROM unnest(CAST(:ids AS varchar[]), "
    "CAST(:olds AS bigint[]), CAST(:news AS bigint[])) AS v(id, old, new) "
    "WHERE clusters.id = v.id AND clusters.version = v.old RETURNING clusters.id")


def lock_clusters(conn: Connection, families: FamilyRegistry, cluster_ids: list[str]
                  ) -> dict[str, ClusterRow]:
    """``lock_cluster`` for several clusters in one statement (Postgres); the ones that do
    not exist are missing from the answer."""
    try:
        rows = conn.execute(_LOCK_CLUSTERS, {"ids": cluster_ids}).all()
    except OperationalError as exc:
        if "lock timeout" in str(exc).lower():
            # No ids: the clusters sharing a transaction may be other owners'.
            raise Busy("the cluster is locked by another request; retry") from exc
        raise
    return {row.id: _cluster_row(families, row) for row in rows}


def advance_versions(conn: Connection, changes: list[tuple[str, int, int]]) -> None:
    """Each (cluster, old version, new version), compare-and-set, in one statement."""
    ids, olds, news = (list(column) for column in zip(*changes, strict=True))
    done = conn.execute(_ADVANCE_VERSIONS, {"ids": ids, "olds": olds, "news": news}).all()
    if len(done) != len(changes):
        raise Conflict("the cluster changed concurrently; retry")


def _semantic(event: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in event.items() if k not in ("event_id", "dry_run")}


def _answer(response: dict[str, Any], seq: int, *, replayed: bool) -> dict[str, Any]:
    return {**response, "event_seq": seq, "replayed": replayed, "dry_run": False}


def dry_run(ctx: ServiceContext, cluster_id: str, event: dict[str, Any]) -> dict[str, Any]:
    """Decide without committing: same lock and engine, nothing written, nothing mutated."""
    with ctx.groups.exclusive(cluster_id), ctx.db.connect() as conn, conn.begin() as tx:
        cluster = lock_cluster(conn, ctx.families, cluster_id)
        item = ctx.engines.checkout(conn, cluster)
        try:
            response = item.adapter.dry_run(_semantic(event)).to_dict()
        finally:
            ctx.engines.checkin(cluster_id, item)
        tx.rollback()
    return {**response, "event_seq": None, "replayed": False, "dry_run": True}


def dry_run_batch(ctx: ServiceContext, cluster_id: str, events: list[dict[str, Any]]
                  ) -> list[dict[str, Any]]:
    """What ``apply_batch`` would answer, committing nothing: the batch is decided as it
    would be, in a transaction that is rolled back, and the engine is put back as it was
    (restored from its state before, which makes the same decisions)."""
    group = _batch_group(events)
    with ctx.groups.exclusive(cluster_id), ctx.db.connect() as conn, conn.begin() as tx:
        cluster = lock_cluster(conn, ctx.families, cluster_id)
        item = ctx.engines.checkout(conn, cluster)
        spec = conn.execute(select(Cluster.spec).where(Cluster.id == cluster_id)).scalar_one()
        before, version = item.adapter.to_state(), item.version
        ctx.engines.checkin(cluster_id, item)
        try:
            _decide_group(ctx, conn, cluster, group, all_or_nothing=True)
        finally:
            ctx.engines.forget(cluster_id)
            ctx.engines.checkin(cluster_id, Loaded(cluster.family.restore(spec, before), version))
            tx.rollback()
    return [answer if answer["replayed"] else {**answer, "event_seq": None, "dry_run": True}
            for answer in (p.result() for p in group)]


def read_adapter(ctx: ServiceContext, cluster_id: str,
                 reader: Callable[[C, ClusterRow], T],
                 capability: type[C] = PolicyAdapter) -> T:  # type: ignore[assignment]
    """Run ``reader(adapter, cluster)`` on the cluster's adapter at the committed version (no
    row lock). ``capability``: what ``reader`` needs of the adapter; a cluster whose family
    lacks it is refused (``wrong_cluster_kind``) before its engine is loaded."""
    with ctx.groups.exclusive(cluster_id), ctx.db.begin() as conn:
        cluster = lock_cluster(conn, ctx.families, cluster_id, lock=False)
        if not cluster.family.has(capability):
            raise WrongClusterKind(f"{cluster_id!r} is a {cluster.policy_kind} cluster "
                                   f"({cluster.family.name}), which has no "
                                   f"{capability.__name__}")
        item = ctx.engines.checkout(conn, cluster)
        try:
            return reader(cast(C, item.adapter), cluster)
        finally:
            ctx.engines.checkin(cluster_id, item)
