"""API keys; clusters belong to an owner and their names are unique per owner.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-21
"""
import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

JSONType = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    with op.batch_alter_table("clusters") as batch:
        batch.add_column(sa.Column("owner", sa.String(64), nullable=False,
                                   server_default="default"))
        batch.drop_constraint("uq_clusters_name", type_="unique")
        batch.create_unique_constraint("uq_clusters_owner_name", ["owner", "name"])
    op.create_table(
        "api_keys",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("key_hash", sa.String(64), nullable=False),
        sa.Column("owner", sa.String(64), nullable=False),
        sa.Column("scopes", JSONType, nullable=False),
        sa.Column("clusters", JSONType, nullable=True),
        sa.Column("description", sa.String(200), nullable=False, server_default=""),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("revoked_at", TS, nullable=True),
        sa.UniqueConstraint("key_hash", name="uq_api_keys_hash"),
    )


def downgrade() -> None:
    op.drop_table("api_keys")
    with op.batch_alter_table("clusters") as batch:
        batch.drop_constraint("uq_clusters_owner_name", type_="unique")
        batch.create_unique_constraint("uq_clusters_name", ["name"])
        batch.drop_column("owner")
