"""Engines kept in process memory, and how one is brought up to the database's version.

The database is the truth; an in-memory engine is a cache of ``replay(log)`` at some version.
A request *checks out* the engine of its cluster (taking it out of the cache, so no other
thread of this process can touch it), brings it to the cluster's committed version by
replaying the log tail, uses it, and checks it back in after its transaction committed. A
request that finds no engine (another thread holds it, another process wrote since, or the
process just started) loads the newest snapshot and replays the events after it.
"""

from __future__ import annotations

import json
import logging
import threading
import zlib
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, delete, insert, select
from sqlalchemy.orm import Session

from app.errors import DatabaseWentBackwards, StateDivergence
from app.families.base import Family
from app.metrics import Metrics
from app.policies.errors import PolicyError
from app.policies.protocol import PolicyAdapter
from app.store.models import Cluster, Event, Snapshot, utcnow

log = logging.getLogger("headroom.engines")

# Keys that describe the delivery of an answer, not the decision itself.
DELIVERY_KEYS = ("event_seq", "replayed", "dry_run")


# The hot path runs Core statements on a Connection; admin paths use a Session. Both execute.
Executor = Connection | Session


@dataclass(frozen=True)
class ClusterRow:
    """What the decision path needs of a cluster row (the spec is read only to build), with
    its family resolved once, where the row is read."""

    id: str
    version: int
    policy_kind: str
    family: Family[Any]
    created_at: datetime | None = None  # the origin of a queued cluster's wall clock


@dataclass
class Loaded:
    adapter: PolicyAdapter[Any]
    version: int


class EngineCache:
    """Adapters (each holding its engine) by cluster id, least recently used evicted first."""

    def __init__(self, capacity: int, metrics: Metrics | None = None, verify_every: int = 1):
        self.capacity = capacity
        self.verify_every = verify_every  # on hot catch-up; full loads check every event
        self._items: OrderedDict[str, Loaded] = OrderedDict()
        # The highest committed version this process has seen of each cluster (read under
        # the row lock, or committed by itself). Kept apart from the cache, which evicts and
        # lends out engines: a version below it means the database lost commits.
        self._seen: dict[str, int] = {}
        self._lock = threading.Lock()
        self.loads = 0  # full loads (snapshot + replay), for tests and metrics
        self.metrics = metrics

    def checkout(self, conn: Executor, cluster: ClusterRow) -> Loaded:
        with self._lock:
            seen = self._seen.get(cluster.id, 0)
            if cluster.version < seen:
                self._items.pop(cluster.id, None)
            else:
                self._seen[cluster.id] = cluster.version
                item = self._items.pop(cluster.id, None)
        if cluster.version < seen:
            # Not a cache to drop: answers up to ``seen`` were given from commits the
            # database no longer has, and deciding again would reuse their seqs.
            log.error("database went backwards", extra={
                "cluster_id": cluster.id, "seen_version": seen, "version": cluster.version})
            raise DatabaseWentBackwards(
                f"cluster {cluster.id}: the database is at version {cluster.version}, but "
                f"this process saw version {seen} committed; the database lost commits "
                "(a failover to a replica that was behind, or a restore)")
        if item is not None and item.version > cluster.version:
            item = None  # unreachable while _seen holds: only committed engines check in
        if full_load := item is None:
            item = self._load(conn, cluster)
        if self.metrics is not None:
            self.metrics.catch_up(cluster.version - item.version, full_load)
        if item.version < cluster.version:
            _replay(conn, cluster, item, upto=cluster.version,
                    verify_every=1 if full_load else self.verify_every)
        return item

    def peek(self, cluster_id: str) -> Loaded | None:
        """The cached engine, left in place: only for a caller holding ``exclusive``."""
        with self._lock:
            return self._items.get(cluster_id)

    def checkin(self, cluster_id: str, item: Loaded) -> None:
        """``item`` is at a committed version (its transaction committed, or wrote nothing)."""
        with self._lock:
            if item.version > self._seen.get(cluster_id, 0):
                self._seen[cluster_id] = item.version
            current = self._items.get(cluster_id)
            if current is not None and current.version >= item.version:
                return
            self._items[cluster_id] = item
            self._items.move_to_end(cluster_id)
            while len(self._items) > self.capacity:
                self._items.popitem(last=False)

    def forget(self, cluster_id: str) -> None:
        """The cluster was deleted (or a test wants a cold load): drop its engine; a deleted
        cluster's versions are never compared again."""
        with self._lock:
            self._items.pop(cluster_id, None)

    def _load(self, conn: Executor, cluster: ClusterRow) -> Loaded:
        self.loads += 1
        family = cluster.family
        spec = conn.execute(select(Cluster.spec).where(Cluster.id == cluster.id)).scalar_one()
        snap = conn.execute(
            select(Snapshot.seq, Snapshot.state).where(Snapshot.cluster_id == cluster.id,
                                                       Snapshot.seq <= cluster.version)
            .order_by(Snapshot.seq.desc()).limit(1)).first()
        if snap is None:
            return Loaded(family.build(spec), 0)
        state = json.loads(zlib.decompress(snap.state))
        return Loaded(family.restore(spec, state), snap.seq)


def _replay(conn: Executor, cluster: ClusterRow, item: Loaded, upto: int,
            verify_every: int = 1) -> None:
    """Apply logged events (item.version, upto]: decide again and check the logged decision
    for every ``verify_every``-th seq (and for any event the family cannot follow), follow the
    logged answer for the others."""
    rows = conn.execute(
        select(Event.seq, Event.request, Event.response)
        .where(Event.cluster_id == cluster.id, Event.seq > item.version, Event.seq <= upto)
        .order_by(Event.seq)).all()
    for row in rows:
        if row.seq != item.version + 1:
            raise StateDivergence(f"cluster {cluster.id}: log has a gap before seq {row.seq}")
        if row.seq % verify_every and _followed(cluster, item, row):
            item.version = row.seq
            continue
        got = item.adapter.apply(row.request).to_dict()
        want = {k: v for k, v in row.response.items() if k not in DELIVERY_KEYS}
        # Plain equality first (cheap); the canonical form settles what only the storage
        # changed: container types (a tuple in an engine's details) and, in rows written
        # while the log was jsonb, floats >= 1e16 read back as integers.
        if got != want and not _within(_canonical(json.loads(json.dumps(got))),
                                       _canonical(want)):
            log.error("replay diverged", extra={"cluster_id": cluster.id, "seq": row.seq})
            raise StateDivergence(
                f"cluster {cluster.id}: replaying event {row.seq} gave another decision")
        item.version = row.seq
    if item.version != upto:
        raise StateDivergence(f"cluster {cluster.id}: log ends at {item.version}, not {upto}")


def _followed(cluster: ClusterRow, item: Loaded, row: Any) -> bool:
    """Apply a logged answer without deciding (False: the family cannot; nothing changed)."""
    try:
        return item.adapter.follow(row.request, row.response)
    except (ValueError, KeyError, PolicyError) as exc:  # a change the state cannot take
        log.error("replay diverged", extra={"cluster_id": cluster.id, "seq": row.seq})
        raise StateDivergence(
            f"cluster {cluster.id}: logged event {row.seq} does not fit the state") from exc


def _within(got: Any, want: Any) -> bool:
    """``got`` agrees with the logged ``want`` where ``want`` says something: a decision may
    carry keys added to answers after the row was logged (DRA's departure ``details``, its
    migration tally), which an old row cannot have. Every logged key must still agree."""
    if isinstance(got, dict) and isinstance(want, dict):
        return all(k in got and _within(got[k], v) for k, v in want.items())
    if isinstance(got, list) and isinstance(want, list):
        return len(got) == len(want) and all(_within(g, w) for g, w in zip(got, want))
    return bool(got == want)


def _canonical(value: Any) -> Any:
    """Numbers as floats, recursively: two answers agree when every number has the same value
    as a float. jsonb wrote 8.537931640293818e+17 back as the integer 853793164029381800,
    whose nearest float is that same float again (a float's shortest repr reads back exactly),
    so this maps both to one value; any real disagreement still differs."""
    if isinstance(value, dict):
        return {k: _canonical(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_canonical(v) for v in value]
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            return float(value)
        except OverflowError:  # beyond any float: no float answer can equal it
            return value
    return value


def write_snapshot(conn: Executor, cluster: ClusterRow, item: Loaded, keep: int = 2) -> None:
    blob = zlib.compress(json.dumps(item.adapter.to_state(),
                                    separators=(",", ":")).encode(), 1)
    conn.execute(insert(Snapshot).values(cluster_id=cluster.id, seq=item.version, state=blob,
                                         created_at=utcnow()))
    # Older snapshots are never read again once a newer one commits; keep a spare.
    old = conn.execute(
        select(Snapshot.seq).where(Snapshot.cluster_id == cluster.id)
        .order_by(Snapshot.seq.desc()).offset(keep)).scalars().all()
    if old:
        conn.execute(delete(Snapshot).where(Snapshot.cluster_id == cluster.id,
                                            Snapshot.seq.in_(old)))
