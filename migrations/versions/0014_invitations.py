"""The games list tells who a game waits for, its open seats, and which game it is the rematch of.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-05

A server's game waits for its seated humans to accept, and for its open seats to be taken,
before its first deal (R28): games.awaiting (a JSON list of names) and games.open_seats say so,
for `scat status`, `games --open` and `wait --any`; games.move_deadline holds such a game's
expiry; stats_games.cancelled keeps a cancelled game out of every figure, and the statistics
learn what ratings need (who is a bot, the hand each player went out in, when a game was won:
stats_players.is_bot, out_in_hand; stats_games.ended_at; they are folded again). games.rematch_of
names the finished game a game is the rematch of, unique, so that a rematch asked twice (or
by two players at once) is one game. Every existing game was dealt at
once and is nobody's rematch: the defaults. The downgrade drops the three (the events hold them).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | Sequence[str] | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add games.awaiting, games.open_seats and games.rematch_of (uniquely indexed)."""
    op.add_column("games", sa.Column("awaiting", sa.Text, nullable=False, server_default="[]"))
    op.add_column("games", sa.Column("open_seats", sa.Integer, nullable=False, server_default="0"))
    op.add_column("games", sa.Column("rematch_of", sa.String(64), nullable=True))
    op.create_index("ux_games_rematch_of", "games", ["rematch_of"], unique=True)
    op.add_column("stats_games", sa.Column("cancelled", sa.Boolean, nullable=False, server_default=sa.false()))
    op.add_column("stats_games", sa.Column("ended_at", sa.String(40), nullable=True))
    op.add_column("stats_players", sa.Column("is_bot", sa.Boolean, nullable=False, server_default=sa.false()))
    op.add_column("stats_players", sa.Column("out_in_hand", sa.Integer, nullable=False, server_default="0"))
    _rebuild_stats()


def _rebuild_stats() -> None:
    """Forget the statistics: they are folded again from the events on next use, with the new columns."""
    op.execute("DELETE FROM projection_checkpoints WHERE name = 'stats'")
    op.execute("DELETE FROM stats_players")
    op.execute("DELETE FROM stats_games")


def downgrade() -> None:
    """Drop them."""
    with op.batch_alter_table("stats_players") as batch:
        batch.drop_column("out_in_hand")
        batch.drop_column("is_bot")
    with op.batch_alter_table("stats_games") as batch:
        batch.drop_column("ended_at")
        batch.drop_column("cancelled")
    _rebuild_stats()
    op.drop_index("ux_games_rematch_of", table_name="games")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("rematch_of")
        batch.drop_column("open_seats")
        batch.drop_column("awaiting")
