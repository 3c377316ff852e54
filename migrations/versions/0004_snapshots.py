"""Snapshots: each game's folded state at its verified head, beside the games read model.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30

A cache only: a missing or stale snapshot is rebuilt from the events, so this revision
starts with none and its downgrade loses nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create the game_snapshots table."""
    op.create_table(
        "game_snapshots",
        sa.Column("game_id", sa.String(64), primary_key=True),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.Column("state_version", sa.Integer, nullable=False),
        sa.Column("rules_version", sa.String(64), nullable=False),
        sa.Column("state", sa.Text, nullable=False),
    )


def downgrade() -> None:
    """Drop the game_snapshots table (a cache: nothing is lost)."""
    op.drop_table("game_snapshots")
