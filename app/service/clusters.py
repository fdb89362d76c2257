"""Cluster administration: create, read, list, delete (with generation checks)."""

from __future__ import annotations

import hashlib
import json
import uuid
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError

from app.errors import ClusterNotFound, IdempotencyKeyReused, NameTaken, PreconditionFailed
from app.service.context import ServiceContext
from app.service.events import lock_cluster
from app.store.models import Cluster, IdempotencyKey, as_utc, utcnow

CREATE_SCOPE = "clusters.create"


def _name_taken(ctx: ServiceContext, owner: str, name: str) -> NameTaken:
    """The conflict for ``name``, naming the cluster or reservation stream that holds it
    (both share the owner's namespace of names)."""
    with ctx.sessions() as session:
        holder = session.execute(select(Cluster.id, Cluster.policy_kind).where(
            Cluster.owner == owner, Cluster.name == name)).first()
    if holder is None:  # deleted since the conflict
        return NameTaken(f"you already have a cluster named {name!r}")
    collection = ctx.families.family_for(holder.policy_kind).collection
    noun = "reservation stream" if collection == "reservations" else "cluster"
    return NameTaken(f"you already have a {noun} named {name!r}: {holder.id}", holder.id)


def _hash(body: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def _create_scope(owner: str) -> str:
    """The idempotency scope of an owner's creations. The column holds 64 characters and an
    owner up to 64, so the owner goes in as a fixed-length digest (192 bits): the plain
    prefix cut at 64 let two owners sharing 48 characters replay each other's clusters."""
    return f"{CREATE_SCOPE}:{hashlib.sha256(owner.encode()).hexdigest()[:48]}"


def cluster_view(c: Cluster) -> dict[str, Any]:
    return {
        "id": c.id,
        "owner": c.owner,
        "name": c.name,
        **{k: v for k, v in c.spec.items() if k != "name"},
        "version": c.version,
        "generation": c.generation,
        "created_at": as_utc(c.created_at).isoformat(),
        "updated_at": as_utc(c.updated_at).isoformat(),
    }


def create_cluster(ctx: ServiceContext, spec: dict[str, Any], owner: str,
                   idempotency_key: str | None = None,
                   sent: dict[str, Any] | None = None) -> tuple[dict[str, Any], bool]:
    """Create a cluster; returns (view, replayed). A reused key replays the first answer.

    sent: the body as the client wrote it (no defaults filled in). The key's hash is taken
    over it, not over `spec`: a default that a later release adds (moment clusters'
    `learn_prior`) would otherwise turn the retry of an unchanged request into a 409."""
    h = _hash(spec if sent is None else sent)
    scope = _create_scope(owner)
    try:
        with ctx.sessions() as session, session.begin():
            if idempotency_key is not None:
                seen = session.get(IdempotencyKey, (scope, idempotency_key))
                if seen is not None:
                    if seen.request_hash != h:
                        raise IdempotencyKeyReused(
                            "Idempotency-Key was already used to create another cluster")
                    return seen.response, True
            now = utcnow()
            cluster = Cluster(id=str(uuid.uuid4()), owner=owner, name=spec["name"],
                              policy_kind=spec["policy"]["kind"], spec=spec, version=0,
                              generation=1, created_at=now, updated_at=now)
            session.add(cluster)
            session.flush()
            view = cluster_view(cluster)
            if idempotency_key is not None:
                session.add(IdempotencyKey(scope=scope, key=idempotency_key,
                                           request_hash=h, status_code=201, response=view))
    except IntegrityError as exc:
        # Two creators raced on the same name (or the same key): the loser gets a conflict.
        if idempotency_key is not None:
            with ctx.sessions() as session:
                seen = session.get(IdempotencyKey, (scope, idempotency_key))
                if seen is not None and seen.request_hash == h:
                    return seen.response, True
        raise _name_taken(ctx, owner, spec["name"]) from exc
    return view, False


def get_cluster(ctx: ServiceContext, cluster_id: str, view=None  # noqa: ANN001
                ) -> dict[str, Any]:
    with ctx.sessions() as session:
        cluster = session.get(Cluster, cluster_id)
        if cluster is None:
            raise ClusterNotFound(f"cluster {cluster_id!r} does not exist")
        return (view or cluster_view)(cluster)


def list_clusters(ctx: ServiceContext, owner: str | None, limit: int, after: str | None,
                  kinds: list[str] | None = None, view=None,  # noqa: ANN001
                  name: str | None = None) -> tuple[list[dict[str, Any]], str | None]:
    """An owner's clusters (all with None) by name; ``after``: last name of the previous page.
    ``kinds`` keeps one family (placement clusters or reservation streams); ``name`` only the
    one of that name."""
    with ctx.sessions() as session:
        stmt = select(Cluster).order_by(Cluster.name).limit(limit + 1)
        if owner is not None:
            stmt = stmt.where(Cluster.owner == owner)
        if name is not None:
            stmt = stmt.where(Cluster.name == name)
        if kinds is not None:
            stmt = stmt.where(Cluster.policy_kind.in_(kinds))
        if after is not None:
            stmt = stmt.where(Cluster.name > after)
        rows = session.scalars(stmt).all()
    more = len(rows) > limit
    rows = rows[:limit]
    return [(view or cluster_view)(c) for c in rows], (rows[-1].name if more else None)


def _check_generation(generation: int, if_match: frozenset[int] | None) -> None:
    """``if_match``: the generations the client's If-Match accepts (None: any)."""
    if if_match is not None and generation not in if_match:
        said = ", ".join(str(g) for g in sorted(if_match)) or "no generation"
        raise PreconditionFailed(f"cluster generation is {generation}, If-Match said {said}")


def rename_cluster(ctx: ServiceContext, cluster_id: str, name: str,
                   if_match: frozenset[int] | None) -> dict[str, Any]:
    """Rename a cluster: an admin write, so it bumps the generation (the ETag)."""
    owner = None
    try:
        with ctx.sessions() as session, session.begin():
            lock_cluster(session, ctx.families, cluster_id)
            cluster = session.get(Cluster, cluster_id)
            assert cluster is not None
            owner = cluster.owner
            _check_generation(cluster.generation, if_match)
            if cluster.name != name:
                cluster.name = name
                cluster.spec = {**cluster.spec, "name": name}
                cluster.generation += 1
                cluster.updated_at = utcnow()
                session.flush()
            view = cluster_view(cluster)
    except IntegrityError as exc:
        assert owner is not None  # the conflict is the rename's flush, after the read
        raise _name_taken(ctx, owner, name) from exc
    ctx.cluster_owners.pop(cluster_id, None)
    return view


def delete_cluster(ctx: ServiceContext, cluster_id: str, if_match: frozenset[int] | None
                   ) -> None:
    with ctx.sessions() as session, session.begin():
        lock_cluster(session, ctx.families, cluster_id)
        generation = session.execute(
            select(Cluster.generation).where(Cluster.id == cluster_id)).scalar_one()
        _check_generation(generation, if_match)
        session.execute(delete(Cluster).where(Cluster.id == cluster_id))
    ctx.engines.forget(cluster_id)
