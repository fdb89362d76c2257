"""Tables. The schema itself is created only by the Alembic migrations in migrations/.

- ``clusters``: one row per cluster; ``version`` counts applied events (the row is the lock that
  serialises a cluster), ``generation`` counts admin changes (ETag / If-Match).
- ``events``: the append-only decision log, one row per applied event, ``seq`` = the cluster
  version the event produced. (cluster_id, event_id) is unique: the idempotency record of an
  event, with a hash of the request so that a reused key with another body is a conflict.
- ``snapshots``: the engine state at some ``seq`` so that a restart replays only the log tail.
- ``idempotency_keys``: stored answers for non-event writes that carry an Idempotency-Key.
- ``api_keys``: hashed API keys with their owner and scopes; clusters belong to an owner.
- ``moment_calibrations``: a moment declaration's threshold calibration, by the key of its
  inputs: the background job while it runs (app/service/calibrator.py), the cache after.
- ``what_ifs``: a window of a cluster's log replayed under another policy, the background job
  and its result (app/service/whatifs.py).
"""

from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import (JSON, BigInteger, DateTime, ForeignKey, Index, Integer, LargeBinary, String,
                        UniqueConstraint)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

JSONType = JSON().with_variant(JSONB(), "postgresql")
# What the engines wrote and later replay against (the log, stored answers, specs) must read
# back exactly: Postgres' jsonb prints floats >= 1e16 as integers, its json keeps the text
# (migration 0003, docs/architecture.md "The log is the truth").
ExactJSON = JSON()


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


def as_utc(ts: datetime) -> datetime:
    """SQLite hands timestamps back without their zone; everything we store is UTC."""
    return ts if ts.tzinfo is not None else ts.replace(tzinfo=timezone.utc)


class Base(DeclarativeBase):
    pass


class Cluster(Base):
    __tablename__ = "clusters"
    __table_args__ = (UniqueConstraint("owner", "name", name="uq_clusters_owner_name"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    owner: Mapped[str] = mapped_column(String(64), server_default="default")
    name: Mapped[str] = mapped_column(String(100))
    policy_kind: Mapped[str] = mapped_column(String(40))
    spec: Mapped[dict] = mapped_column(ExactJSON)
    version: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    generation: Mapped[int] = mapped_column(Integer, default=1, server_default="1")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Event(Base):
    __tablename__ = "events"
    __table_args__ = (UniqueConstraint("cluster_id", "event_id", name="uq_events_cluster_event"),)

    cluster_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("clusters.id", ondelete="CASCADE"), primary_key=True)
    seq: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    event_id: Mapped[str] = mapped_column(String(200))
    kind: Mapped[str] = mapped_column(String(40))
    request_hash: Mapped[str] = mapped_column(String(64))
    request: Mapped[dict] = mapped_column(ExactJSON)
    decision: Mapped[str] = mapped_column(String(40))
    response: Mapped[dict] = mapped_column(ExactJSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Snapshot(Base):
    __tablename__ = "snapshots"

    cluster_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("clusters.id", ondelete="CASCADE"), primary_key=True)
    seq: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    # zlib-compressed JSON of PlacementEngine.to_state(); large clusters make MBs of JSON.
    state: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ApiKey(Base):
    """An API key: only its SHA-256 is stored (keys are 256-bit random, so a slow password
    hash buys nothing); ``id`` is the public handle shown in listings and logs."""

    __tablename__ = "api_keys"
    __table_args__ = (UniqueConstraint("key_hash", name="uq_api_keys_hash"),)

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    key_hash: Mapped[str] = mapped_column(String(64))
    owner: Mapped[str] = mapped_column(String(64))
    scopes: Mapped[list] = mapped_column(JSONType)
    clusters: Mapped[list | None] = mapped_column(JSONType, nullable=True)  # cluster ids
    description: Mapped[str] = mapped_column(String(200), server_default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    # The key that minted this one through the API; null when the CLI made it.
    created_by: Mapped[str | None] = mapped_column(String(16), nullable=True)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class IdempotencyKey(Base):
    __tablename__ = "idempotency_keys"

    scope: Mapped[str] = mapped_column(String(64), primary_key=True)
    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    request_hash: Mapped[str] = mapped_column(String(64))
    status_code: Mapped[int] = mapped_column(Integer)
    response: Mapped[dict] = mapped_column(ExactJSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class MomentCalibration(Base):
    """``status``: queued, running (``worker`` holds it until ``lease_until``), done
    (``result``), failed (``error``, after ``attempts`` tries) or cancelled (no cluster waits
    for it any more). ``candidates``: the thresholds evaluated so far, with their lives'
    results, so that a calibration restarted elsewhere resumes where its search was."""

    __tablename__ = "moment_calibrations"
    __table_args__ = (Index("ix_moment_calibrations_status", "status"),)

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    inputs: Mapped[dict] = mapped_column(ExactJSON)
    status: Mapped[str] = mapped_column(String(16))
    lives_done: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    lives_total: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    attempts: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    worker: Mapped[str | None] = mapped_column(String(100), nullable=True)
    lease_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    candidates: Mapped[dict | None] = mapped_column(ExactJSON, nullable=True)
    result: Mapped[dict | None] = mapped_column(ExactJSON, nullable=True)
    error: Mapped[str | None] = mapped_column(String(2000), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    # When the running attempt expects to finish, at the pace of its lives so far.
    eta_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class WhatIf(Base):
    """``status``: queued, running (``worker`` holds it until ``lease_until``), done
    (``result``), failed (``error``, after ``attempts`` tries) or cancelled. ``request``: the
    alternative's declaration and the window, as the API checked them."""

    __tablename__ = "what_ifs"
    __table_args__ = (Index("ix_what_ifs_status", "status"),
                      Index("ix_what_ifs_cluster", "cluster_id", "created_at"))

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    cluster_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("clusters.id", ondelete="CASCADE"))
    request: Mapped[dict] = mapped_column(ExactJSON)
    status: Mapped[str] = mapped_column(String(16))
    events_done: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    events_total: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    attempts: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    worker: Mapped[str | None] = mapped_column(String(100), nullable=True)
    lease_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    result: Mapped[dict | None] = mapped_column(ExactJSON, nullable=True)
    error: Mapped[str | None] = mapped_column(String(2000), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
