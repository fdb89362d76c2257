"""API keys record the key that minted them; a write key's cluster limit holds cluster ids.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23

A limit used to hold cluster names, so it followed renames: a key for "web" could write to
whichever cluster was called "web" at the time. Upgrading binds each name to the id of the
owner's cluster of that name today; a name with no cluster is dropped (it named nothing the
key could write to yet). Limits on admin or read-only keys, which were ignored, are removed.
Downgrading maps ids back to the current names.
"""
import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

JSONType = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")

_keys = sa.table("api_keys", sa.column("id", sa.String), sa.column("owner", sa.String),
                 sa.column("scopes", JSONType), sa.column("clusters", JSONType))
_clusters = sa.table("clusters", sa.column("id", sa.String), sa.column("owner", sa.String),
                     sa.column("name", sa.String))


def _rewrite_limits(by_name: bool) -> None:
    """Map every limited key's list through the owner's clusters: names to ids, or back."""
    conn = op.get_bind()
    # No WHERE on the column: an unlimited key may hold SQL NULL or a JSON null.
    keys = conn.execute(sa.select(_keys.c.id, _keys.c.owner, _keys.c.scopes,
                                  _keys.c.clusters)).all()
    for key_id, owner, scopes, entries in keys:
        if entries is None:
            continue
        if "admin" in scopes or "write" not in scopes:
            # The limit was ignored on these keys; the service now refuses it there.
            conn.execute(sa.update(_keys).where(_keys.c.id == key_id).values(clusters=None))
            continue
        rows = conn.execute(sa.select(_clusters.c.id, _clusters.c.name)
                            .where(_clusters.c.owner == owner)).all()
        mapping = {name: cid for cid, name in rows} if by_name else dict(rows)
        mapped = sorted({mapping[e] for e in entries if e in mapping})
        conn.execute(sa.update(_keys).where(_keys.c.id == key_id).values(clusters=mapped))


def upgrade() -> None:
    with op.batch_alter_table("api_keys") as batch:
        batch.add_column(sa.Column("created_by", sa.String(16), nullable=True))
    _rewrite_limits(by_name=True)


def downgrade() -> None:
    _rewrite_limits(by_name=False)
    with op.batch_alter_table("api_keys") as batch:
        batch.drop_column("created_by")
