"""Statistics tell a game left out of move time from one resigned by choice (R27, R28).

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-05

stats_players.timed_out: the player was resigned by a claim of his turn out of move time (R28),
which `resigned` no longer counts (it is by choice now). The statistics are a projection of the
events: their rows and checkpoint are cleared, and the next `scat stats` (or command) folds the
events again, telling each kind apart. The downgrade drops the column (and clears them again).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | Sequence[str] | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _rebuild_stats() -> None:
    """Forget the statistics: they are folded again from the events on next use."""
    op.execute("DELETE FROM projection_checkpoints WHERE name = 'stats'")
    op.execute("DELETE FROM stats_players")
    op.execute("DELETE FROM stats_games")


def upgrade() -> None:
    """Add stats_players.timed_out and have the statistics folded again."""
    op.add_column("stats_players", sa.Column("timed_out", sa.Boolean, nullable=False, server_default=sa.false()))
    _rebuild_stats()


def downgrade() -> None:
    """Drop stats_players.timed_out (the statistics are folded again)."""
    with op.batch_alter_table("stats_players") as batch:
        batch.drop_column("timed_out")
    _rebuild_stats()
