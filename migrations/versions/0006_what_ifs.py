"""What-if runs: a window of a cluster's log replayed under another policy, in the background.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02

One row per run (app/service/whatifs.py): the request, the job's status and progress, the
lease of the process running it, and once done its result. A run belongs to its cluster and
goes with it.
"""
import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "what_ifs",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("cluster_id", sa.String(36),
                  sa.ForeignKey("clusters.id", ondelete="CASCADE"), nullable=False),
        sa.Column("request", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("events_done", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("events_total", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("attempts", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("worker", sa.String(100), nullable=True),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("error", sa.String(2000), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_what_ifs_status", "what_ifs", ["status"])
    op.create_index("ix_what_ifs_cluster", "what_ifs", ["cluster_id", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_what_ifs_cluster", table_name="what_ifs")
    op.drop_index("ix_what_ifs_status", table_name="what_ifs")
    op.drop_table("what_ifs")
