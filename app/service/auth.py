"""API keys, scopes and owners.

A key belongs to an owner (a tenant) and carries scopes: ``admin`` (declare and delete
clusters, manage keys), ``write`` (post events; optionally only to named clusters) and
``read``. Each scope implies the ones after it. A key only ever sees its owner's clusters.
Keys are 256-bit random strings shown once; only their SHA-256 is stored.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import select, update

from app.errors import ClusterNotFound, Forbidden, NotFound, Unauthorized, Unprocessable
from app.store.models import ApiKey, Cluster, as_utc, utcnow

if TYPE_CHECKING:  # the context holds an AuthCache, so it imports this module
    from app.service.context import ServiceContext

SCOPES = ("admin", "write", "read")
IMPLIED = {"admin": {"admin", "write", "read"}, "write": {"write", "read"}, "read": {"read"}}
KEY_PREFIX = "hr_"


@dataclass(frozen=True)
class Principal:
    key_id: str
    owner: str
    scopes: frozenset[str]
    clusters: frozenset[str] | None  # cluster names a write-only key may write; None = all

    @property
    def granted(self) -> set[str]:
        return set().union(*(IMPLIED[s] for s in self.scopes)) if self.scopes else set()

    def require(self, scope: str) -> None:
        if scope not in self.granted:
            raise Forbidden(f"this API key lacks the {scope!r} scope")

    def require_cluster(self, scope: str, owner: str, name: str) -> None:
        if owner != self.owner:
            raise Forbidden("this cluster belongs to another owner")
        self.require(scope)
        if scope == "write" and "admin" not in self.scopes and self.clusters is not None \
                and name not in self.clusters:
            raise Forbidden(f"this API key may not write to cluster {name!r}")


ANONYMOUS_ADMIN = Principal("-", "default", frozenset({"admin"}), None)


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def create_key(ctx: ServiceContext, owner: str, scopes: list[str],
               clusters: list[str] | None = None, description: str = "") -> dict[str, Any]:
    bad = [s for s in scopes if s not in SCOPES]
    if not scopes or bad:
        raise Unprocessable(f"scopes must be some of {', '.join(SCOPES)}",
                            errors=[{"field": "scopes", "message": f"unknown {bad}"}])
    key_id = secrets.token_hex(6)
    secret = KEY_PREFIX + secrets.token_urlsafe(32)
    row = ApiKey(id=key_id, key_hash=_hash(secret), owner=owner, scopes=sorted(set(scopes)),
                 clusters=sorted(set(clusters)) if clusters is not None else None,
                 description=description, created_at=utcnow())
    with ctx.sessions() as session, session.begin():
        session.add(row)
        view = key_view(row)
    return {**view, "key": secret}


def key_view(row: ApiKey) -> dict[str, Any]:
    return {"id": row.id, "owner": row.owner, "scopes": list(row.scopes),
            "clusters": row.clusters, "description": row.description,
            "created_at": as_utc(row.created_at).isoformat(),
            "revoked_at": as_utc(row.revoked_at).isoformat() if row.revoked_at else None}


def list_keys(ctx: ServiceContext, owner: str) -> list[dict[str, Any]]:
    with ctx.sessions() as session:
        rows = session.scalars(select(ApiKey).where(ApiKey.owner == owner)
                               .order_by(ApiKey.created_at, ApiKey.id)).all()
        return [key_view(r) for r in rows]


def revoke_key(ctx: ServiceContext, owner: str, key_id: str) -> None:
    with ctx.sessions() as session, session.begin():
        done = session.execute(update(ApiKey).where(
            ApiKey.id == key_id, ApiKey.owner == owner, ApiKey.revoked_at.is_(None))
            .values(revoked_at=utcnow()))
        if done.rowcount != 1:
            raise NotFound(f"no active API key {key_id!r}")
    ctx.auth_cache.clear()


class AuthCache:
    """Keys this process checked recently, so a decision does not pay a key lookup."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self._items: dict[str, tuple[float, Principal]] = {}
        self._lock = threading.Lock()

    def get(self, digest: str) -> Principal | None:
        with self._lock:
            hit = self._items.get(digest)
        if hit is None or time.monotonic() - hit[0] > self.seconds:
            return None
        return hit[1]

    def put(self, digest: str, principal: Principal) -> None:
        with self._lock:
            if len(self._items) > 10_000:
                self._items.clear()
            self._items[digest] = (time.monotonic(), principal)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


def authenticate(ctx: ServiceContext, secret: str | None) -> Principal:
    if ctx.settings.auth_disabled:
        return ANONYMOUS_ADMIN
    if not secret:
        raise Unauthorized("send an API key as 'Authorization: Bearer <key>'")
    digest = _hash(secret)
    principal = ctx.auth_cache.get(digest)
    if principal is not None:
        return principal
    with ctx.sessions() as session:
        row = session.scalars(select(ApiKey).where(ApiKey.key_hash == digest)).first()
        if row is None or row.revoked_at is not None:
            raise Unauthorized("unknown or revoked API key")
        principal = Principal(row.id, row.owner, frozenset(row.scopes),
                              frozenset(row.clusters) if row.clusters is not None else None)
    ctx.auth_cache.put(digest, principal)
    return principal


def cluster_owner(ctx: ServiceContext, cluster_id: str) -> tuple[str, str, str]:
    """(owner, name, policy kind) of a cluster or reservation stream, cached per process for
    HEADROOM_AUTH_CACHE_SECONDS: owner and kind never change, and a rename reaches
    name-limited write keys within that time."""
    hit = ctx.cluster_owners.get(cluster_id)
    now = time.monotonic()
    if hit is not None and now - hit[0] <= ctx.settings.auth_cache_seconds:
        return hit[1], hit[2], hit[3]
    with ctx.sessions() as session:
        row = session.execute(select(Cluster.owner, Cluster.name, Cluster.policy_kind)
                              .where(Cluster.id == cluster_id)).first()
    if row is None:
        raise ClusterNotFound(f"cluster {cluster_id!r} does not exist")
    if len(ctx.cluster_owners) > 100_000:
        ctx.cluster_owners.clear()
    ctx.cluster_owners[cluster_id] = (now, row.owner, row.name, row.policy_kind)
    return row.owner, row.name, row.policy_kind
