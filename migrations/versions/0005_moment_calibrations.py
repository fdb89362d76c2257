"""Moment clusters' threshold calibrations: one row per calibration's inputs (its key).

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02

A moment cluster declared without a threshold is calibrated for its own declaration in the
background (app/service/calibrator.py). The row is the job (status, progress, the lease of
the process running it, the candidates finished so far, so a restart resumes) and, once
done, the cache that answers every later declaration with the same inputs.
"""
import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "moment_calibrations",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("inputs", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("lives_done", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("lives_total", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("attempts", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("worker", sa.String(100), nullable=True),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("candidates", sa.JSON(), nullable=True),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("error", sa.String(2000), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("eta_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_moment_calibrations_status", "moment_calibrations", ["status"])


def downgrade() -> None:
    op.drop_index("ix_moment_calibrations_status", table_name="moment_calibrations")
    op.drop_table("moment_calibrations")
