"""The ratings kept, so a read folds only the games won since the last one (#42).

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-07

Ratings were folded from every won game at each read (`scat ratings`, `GET /ratings`): about 60 us
of openskill a game, 12 s at 200,000 games. `ratings` holds each player's row of the fold (mu and
sigma as doubles, so a fold in steps equals one fold to the last digit), `ratings_folded` the last
game taken and how many were; `ix_stats_games_ended_at` finds the games won since. Both tables
start empty: the first read after the upgrade folds every won game once, as every read did before.
The statistics' rebuild empties them too.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0021"
down_revision: str | Sequence[str] | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Make ratings, ratings_folded and ix_stats_games_ended_at."""
    op.create_table(
        "ratings",
        sa.Column("row_key", sa.String(300), primary_key=True),
        sa.Column("name", sa.String(256), nullable=False),
        sa.Column("is_bot", sa.Boolean, nullable=False),
        sa.Column("mu", sa.Double, nullable=False),
        sa.Column("sigma", sa.Double, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
    )
    op.create_table(
        "ratings_folded",
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("ended_at", sa.String(40), nullable=False),
        sa.Column("game_id", sa.String(64), nullable=False),
        sa.Column("taken", sa.Integer, nullable=False),
    )
    op.create_index("ix_stats_games_ended_at", "stats_games", ["ended_at"])


def downgrade() -> None:
    """Drop them (ratings are folded from every won game at each read again)."""
    op.drop_index("ix_stats_games_ended_at", table_name="stats_games")
    op.drop_table("ratings_folded")
    op.drop_table("ratings")
