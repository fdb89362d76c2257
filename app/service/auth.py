"""API keys, scopes and owners.

A key belongs to an owner (a tenant) and carries scopes: ``admin`` (declare and delete
clusters, manage keys), ``write`` (post events; optionally only to some clusters) and
``read``. Each scope implies the ones after it. A key only ever sees its owner's clusters:
another owner's are answered exactly as ids that exist nowhere.
Keys are 256-bit random strings shown once; only their SHA-256 is stored. A key minted
through the API records the key that minted it; revoking a key leaves the keys it minted
valid (see docs/architecture.md, Authentication).
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from app.config import Settings
from app.errors import ClusterNotFound, Forbidden, NotFound, Unauthorized, Unprocessable
from app.ids import KEY_PREFIX
from app.store.models import ApiKey, Cluster, as_utc, utcnow

SCOPES = ("admin", "write", "read")
IMPLIED = {"admin": {"admin", "write", "read"}, "write": {"write", "read"}, "read": {"read"}}


class AuthContext(Protocol):
    """What this module needs of the service context (which holds an ``AuthCache``, so this
    module does not import it)."""

    settings: Settings
    sessions: sessionmaker[Session]
    auth_cache: AuthCache
    cluster_owners: dict[str, tuple[float, str, str, str]]


@dataclass(frozen=True)
class Principal:
    key_id: str
    owner: str
    scopes: frozenset[str]
    clusters: frozenset[str] | None  # cluster ids a write key may write; None = all

    @property
    def minter_id(self) -> str | None:
        """What a key minted by this principal records as ``created_by``."""
        return None if self is ANONYMOUS_ADMIN else self.key_id

    @property
    def granted(self) -> set[str]:
        return set().union(*(IMPLIED[s] for s in self.scopes)) if self.scopes else set()

    def require(self, scope: str) -> None:
        if scope not in self.granted:
            raise Forbidden(f"this API key lacks the {scope!r} scope")

    def require_cluster(self, scope: str, owner: str, cluster_id: str) -> None:
        """Another owner's cluster is absent to this key: the same 404 as an id that names
        nothing, whatever the scope (a 403 would tell anyone with a key which ids exist).
        Scope and limit are checked on the owner's own clusters only."""
        if owner != self.owner:
            raise absent(cluster_id)
        self.require(scope)
        # Only write keys carry a limit (create_key and migration 0004 see to it).
        if scope == "write" and self.clusters is not None and cluster_id not in self.clusters:
            raise Forbidden(f"this API key may not write to cluster {cluster_id!r}")


ANONYMOUS_ADMIN = Principal("-", "default", frozenset({"admin"}), None)


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def create_key(ctx: AuthContext, owner: str, scopes: list[str],
               clusters: list[str] | None = None, description: str = "",
               created_by: str | None = None) -> dict[str, Any]:
    """Mint a key. ``clusters`` limits a write key to these of the owner's clusters, given by
    name and bound to their ids now, so the limit does not follow a later rename.
    ``created_by``: the id of the key minting this one (None from the CLI)."""
    bad = [s for s in scopes if s not in SCOPES]
    if not scopes or bad:
        raise Unprocessable(f"scopes must be some of {', '.join(SCOPES)}",
                            errors=[{"field": "scopes", "message": f"unknown {bad}"}])
    if clusters is not None and ("admin" in scopes or "write" not in scopes):
        # An admin key could rename clusters or mint itself an unlimited key, and a read key
        # writes nothing: either way the limit would be silently meaningless.
        raise Unprocessable("a cluster limit applies to write keys only (not admin or read)",
                            errors=[{"field": "clusters",
                                     "message": "only a write key without admin may be "
                                                "limited to clusters"}])
    key_id = secrets.token_hex(6)
    secret = KEY_PREFIX + secrets.token_urlsafe(32)
    with ctx.sessions() as session, session.begin():
        ids = None if clusters is None else sorted(set(_cluster_ids(session, owner, clusters)))
        row = ApiKey(id=key_id, key_hash=_hash(secret), owner=owner,
                     scopes=sorted(set(scopes)), clusters=ids, description=description,
                     created_at=utcnow(), created_by=created_by)
        session.add(row)
        view = key_view(row, _cluster_names(session, [row]))
    return {**view, "key": secret}


def _cluster_ids(session: Session, owner: str, names: list[str]) -> list[str]:
    found = dict(session.execute(select(Cluster.name, Cluster.id).where(
        Cluster.owner == owner, Cluster.name.in_(set(names)))).all())
    unknown = [{"field": f"clusters[{i}]", "message": f"you have no cluster named {n!r}"}
               for i, n in enumerate(names) if n not in found]
    if unknown:
        raise Unprocessable("; ".join(e["message"] for e in unknown), errors=unknown)
    return [found[n] for n in names]


def _cluster_names(session: Session, rows: list[ApiKey]) -> dict[str, str]:
    """Current names of the clusters these keys are limited to, in one query."""
    ids = {cid for r in rows for cid in (r.clusters or ())}
    if not ids:
        return {}
    return dict(session.execute(select(Cluster.id, Cluster.name)
                                .where(Cluster.id.in_(ids))).all())


def key_view(row: ApiKey, names: dict[str, str]) -> dict[str, Any]:
    """``clusters``: the limit's current names, for reading (a deleted cluster has none);
    ``cluster_ids``: what the limit is."""
    return {"id": row.id, "owner": row.owner, "scopes": list(row.scopes),
            "clusters": None if row.clusters is None
            else [names[c] for c in row.clusters if c in names],
            "cluster_ids": row.clusters, "description": row.description,
            "created_at": as_utc(row.created_at).isoformat(), "created_by": row.created_by,
            "revoked_at": as_utc(row.revoked_at).isoformat() if row.revoked_at else None}


def list_keys(ctx: AuthContext, owner: str) -> list[dict[str, Any]]:
    with ctx.sessions() as session:
        rows = session.scalars(select(ApiKey).where(ApiKey.owner == owner)
                               .order_by(ApiKey.created_at, ApiKey.id)).all()
        names = _cluster_names(session, list(rows))
        return [key_view(r, names) for r in rows]


def revoke_key(ctx: AuthContext, owner: str, key_id: str) -> None:
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


def authenticate(ctx: AuthContext, secret: str | None) -> Principal:
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


def absent(cluster_id: str) -> ClusterNotFound:
    """The one answer for an id that names no cluster or stream this key's owner has."""
    return ClusterNotFound(f"cluster {cluster_id!r} does not exist")


def cluster_owner_cached(ctx: AuthContext, cluster_id: str) -> bool:
    """Whether ``cluster_owner`` would answer from its cache, without the database."""
    hit = ctx.cluster_owners.get(cluster_id)
    return hit is not None and time.monotonic() - hit[0] <= ctx.settings.auth_cache_seconds


def cluster_owner(ctx: AuthContext, cluster_id: str) -> tuple[str, str, str]:
    """(owner, name, policy kind) of a cluster or reservation stream, cached per process for
    HEADROOM_AUTH_CACHE_SECONDS: owner and kind never change (key limits hold ids, so a rename
    changes no permission)."""
    hit = ctx.cluster_owners.get(cluster_id)
    now = time.monotonic()
    if hit is not None and now - hit[0] <= ctx.settings.auth_cache_seconds:
        return hit[1], hit[2], hit[3]
    with ctx.sessions() as session:
        row = session.execute(select(Cluster.owner, Cluster.name, Cluster.policy_kind)
                              .where(Cluster.id == cluster_id)).first()
    if row is None:
        raise absent(cluster_id)
    if len(ctx.cluster_owners) > 100_000:
        ctx.cluster_owners.clear()
    ctx.cluster_owners[cluster_id] = (now, row.owner, row.name, row.policy_kind)
    return row.owner, row.name, row.policy_kind
