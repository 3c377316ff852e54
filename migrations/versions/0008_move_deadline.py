"""The games read model for correspondence play: move deadlines (R28) and the player to act's key.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-02

A column of the read model, written by every append from then on, and its index, so a server
finds the turns that ran out (and `scat games` tells them) without reading any event log. A
game running with a move time when the database is upgraded gets its deadline with its next
event; until then only `scat claim` claims its turn. `turn_key` is the player to act's
name casefolded (as `--as` matches names), indexed with the last activity, so `scat games
--waiting-for NAME` reads one page however many games there are; it is filled here from
`turn`. The downgrade loses nothing the events do not hold.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add games.move_deadline and games.turn_key (filled from turn), with their indexes."""
    op.add_column("games", sa.Column("move_deadline", sa.String(40), nullable=True))
    op.add_column("games", sa.Column("turn_key", sa.String(64), nullable=True))
    games = sa.table("games", sa.column("game_id", sa.String), sa.column("turn", sa.String),
                     sa.column("turn_key", sa.String))
    conn = op.get_bind()
    names = {str(turn) for (turn,) in conn.execute(sa.select(games.c.turn).where(games.c.turn.is_not(None))
                                                   .distinct())}
    for name in names:  # one statement per distinct name (players are few; games many)
        conn.execute(games.update().where(games.c.turn == name).values(turn_key=name.casefold()))
    op.create_index("ix_games_move_deadline", "games", ["move_deadline"])
    op.create_index("ix_games_turn_key", "games", ["turn_key", "last_activity"])


def downgrade() -> None:
    """Drop games.move_deadline and games.turn_key with their indexes."""
    op.drop_index("ix_games_turn_key", table_name="games")
    op.drop_index("ix_games_move_deadline", table_name="games")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("turn_key")
        batch.drop_column("move_deadline")
