"""The seats of each game in a table of their own, indexed by name, for "your games first".

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-03

game_seats: one row per seat of a game listed in the games read model (game id, seat, the
player's name casefolded, as `--as` matches names), written with the game's row and never
changed (a game's players do not change). A server's `scat games` lists the signing
account's games first: an indexed look-up here instead of a scan of every games row's
players. Filled here from games.players; the downgrade drops it (the events hold it all).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | Sequence[str] | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_BATCH = 5_000


def upgrade() -> None:
    """Create game_seats with its name index, one row per seat of every listed game."""
    seats = op.create_table(
        "game_seats",
        sa.Column("game_id", sa.String(64), nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("name_key", sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint("game_id", "seat"),
    )
    op.create_index("ix_game_seats_name_key", "game_seats", ["name_key", "game_id"])
    games = sa.table("games", sa.column("game_id", sa.String), sa.column("players", sa.Text))
    conn = op.get_bind()
    rows: list[dict[str, object]] = []
    for game_id, players in conn.execute(sa.select(games.c.game_id, games.c.players)):
        rows += [{"game_id": game_id, "seat": seat, "name_key": str(name).casefold()}
                 for seat, name in enumerate(json.loads(players))]
        if len(rows) >= _BATCH:
            op.bulk_insert(seats, rows)
            rows = []
    if rows:
        op.bulk_insert(seats, rows)


def downgrade() -> None:
    """Drop game_seats and its index."""
    op.drop_index("ix_game_seats_name_key", table_name="game_seats")
    op.drop_table("game_seats")
