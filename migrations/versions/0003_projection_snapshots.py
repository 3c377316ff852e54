"""Projection checkpoints on PostgreSQL are snapshots: read what the last catch-up could not see.

A (tx_id, position) horizon below the oldest running transaction never skips an event, but
an unrelated long transaction holds it back, so `scat stats` could miss a game finished
just before it. The checkpoint now keeps the snapshot the last catch-up read in
(`pg_current_snapshot()` as text); the next reads the rows visible to it and not to that
snapshot. SQLite keeps using the position alone (the column stays NULL).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add projection_checkpoints.snapshot; PostgreSQL checkpoints are rebuilt on next use."""
    op.add_column("projection_checkpoints", sa.Column("snapshot", sa.Text, nullable=True))
    if op.get_bind().dialect.name == "postgresql":
        # A checkpoint of revision 0002 has no snapshot: forget it and the rows it covers,
        # so the next catch-up folds every event again (the same result, see `--rebuild`).
        op.execute("DELETE FROM projection_checkpoints")
        op.execute("DELETE FROM stats_players")
        op.execute("DELETE FROM stats_games")


def downgrade() -> None:
    """Drop projection_checkpoints.snapshot."""
    op.execute("ALTER TABLE projection_checkpoints DROP COLUMN snapshot")
