"""Projections: a global position for catching up (events.tx_id), checkpoints, the stats tables.

`events.tx_id` is, on PostgreSQL, the id of the transaction that wrote the row
(`pg_current_xact_id()`, 64 bits, never wrapping), filled by the column's default: the
append path is unchanged. (tx_id, position) orders the log, and every row whose tx_id is
below the oldest transaction still running (`pg_snapshot_xmin`) is settled: no row can
appear there later. On SQLite writers take turns, so `position` alone orders commits and
tx_id stays 0. See docs/audit.md, "Projections".

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_COUNTERS = (
    "hands_played", "hands_lost", "lives_lost", "knocks", "knocks_saved", "knocks_lost_one",
    "knocks_lost_two", "throw_downs", "thirty_ones", "showdowns", "showdown_total",
)


def upgrade() -> None:
    """Add events.tx_id (and its index on PostgreSQL), the checkpoints and the stats tables."""
    if op.get_bind().dialect.name == "postgresql":
        # A volatile default: existing rows get the migration's own id, new rows their writer's.
        op.execute(
            "ALTER TABLE events ADD COLUMN tx_id BIGINT NOT NULL "
            "DEFAULT (pg_current_xact_id()::text::bigint)"
        )
        op.create_index("ix_events_tx_position", "events", ["tx_id", "position"])
    else:
        op.add_column("events", sa.Column("tx_id", sa.BigInteger, nullable=False, server_default="0"))
    op.create_table(
        "projection_checkpoints",
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("tx_id", sa.BigInteger, nullable=False),
        sa.Column("position", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "stats_games",
        sa.Column("game_id", sa.String(64), primary_key=True),
        sa.Column("last_seq", sa.Integer, nullable=False),
        sa.Column("finished", sa.Boolean, nullable=False),
        sa.Column("winner_key", sa.String(256), nullable=True),
        sa.Column("hands", sa.Integer, nullable=False),
        sa.Column("knocker_key", sa.String(256), nullable=True),
    )
    op.create_table(
        "stats_players",
        sa.Column("game_id", sa.String(64), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("player_key", sa.String(256), nullable=False),
        sa.Column("name", sa.String(256), nullable=False),
        sa.Column("out", sa.Boolean, nullable=False),
        sa.Column("resigned", sa.Boolean, nullable=False),
        *(sa.Column(name, sa.Integer, nullable=False) for name in _COUNTERS),
    )
    op.create_index("ix_stats_players_key", "stats_players", ["player_key"])


def downgrade() -> None:
    """Drop the stats tables, the checkpoints and events.tx_id."""
    op.drop_table("stats_players")
    op.drop_table("stats_games")
    op.drop_table("projection_checkpoints")
    if op.get_bind().dialect.name == "postgresql":
        op.drop_index("ix_events_tx_position", "events")
        op.drop_column("events", "tx_id")
    else:  # SQLite 3.35+: a plain DROP COLUMN keeps the table, and so its immutability triggers
        op.execute("ALTER TABLE events DROP COLUMN tx_id")
