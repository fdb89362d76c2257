"""Clusters, the decision log, engine snapshots and idempotency keys.

Revision ID: 0001
Revises:
Create Date: 2026-11-21
"""
import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

JSONType = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "clusters",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("policy_kind", sa.String(40), nullable=False),
        sa.Column("spec", JSONType, nullable=False),
        sa.Column("version", sa.BigInteger, nullable=False, server_default="0"),
        sa.Column("generation", sa.Integer, nullable=False, server_default="1"),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("updated_at", TS, nullable=False),
        sa.UniqueConstraint("name", name="uq_clusters_name"),
    )
    op.create_table(
        "events",
        sa.Column("cluster_id", sa.String(36),
                  sa.ForeignKey("clusters.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seq", sa.BigInteger, primary_key=True),
        sa.Column("event_id", sa.String(200), nullable=False),
        sa.Column("kind", sa.String(40), nullable=False),
        sa.Column("request_hash", sa.String(64), nullable=False),
        sa.Column("request", JSONType, nullable=False),
        sa.Column("decision", sa.String(40), nullable=False),
        sa.Column("response", JSONType, nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.UniqueConstraint("cluster_id", "event_id", name="uq_events_cluster_event"),
    )
    op.create_table(
        "snapshots",
        sa.Column("cluster_id", sa.String(36),
                  sa.ForeignKey("clusters.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seq", sa.BigInteger, primary_key=True),
        sa.Column("state", sa.LargeBinary, nullable=False),
        sa.Column("created_at", TS, nullable=False),
    )
    op.create_table(
        "idempotency_keys",
        sa.Column("scope", sa.String(64), primary_key=True),
        sa.Column("key", sa.String(200), primary_key=True),
        sa.Column("request_hash", sa.String(64), nullable=False),
        sa.Column("status_code", sa.Integer, nullable=False),
        sa.Column("response", JSONType, nullable=False),
        sa.Column("created_at", TS, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("idempotency_keys")
    op.drop_table("snapshots")
    op.drop_table("events")
    op.drop_table("clusters")
