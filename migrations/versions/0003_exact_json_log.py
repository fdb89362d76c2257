"""The decision log keeps the exact JSON text it was given (json, not jsonb, on Postgres).

jsonb stores numbers as ``numeric`` and prints a float of 1e16 or more as a plain integer
(8.537931640293818e+17 comes back as 853793164029381800), which Python reads as an ``int``
that is not equal to the float the engine computed: a replayed event then "disagrees" with
its own log and the cluster answers 500 state_divergence for ever. ``json`` stores the text
as sent, so what the engine wrote is what every later replay reads. Nothing queries inside
these columns except the ticker's ``spec -> 'policy' ->> 'clock'``, which json supports too.
SQLite already stores JSON as text: nothing to do there.

Rows written before this migration keep whatever jsonb made of them; the replay check
compares numbers by value (app/service/engines.py) so those logs still replay.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-24
"""
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

COLUMNS = (("events", "request"), ("events", "response"), ("idempotency_keys", "response"),
           ("clusters", "spec"))


def _retype(to: str) -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for table, column in COLUMNS:
        op.execute(f"ALTER TABLE {table} ALTER COLUMN {column} TYPE {to} USING {column}::{to}")


def upgrade() -> None:
    _retype("json")


def downgrade() -> None:
    _retype("jsonb")
