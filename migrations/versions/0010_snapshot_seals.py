"""Sealed snapshots: each snapshot row carries the MAC that binds it to its head and this installation.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-02

game_snapshots.mac: HMAC-SHA256 (hex) of the game id, the snapshot's head (seq, hash), its
tag and its state, under a key derived from the installation's private key (kept outside
the database; scat_core/records/signing.py). A snapshot is used only when its mac verifies;
the rows written before this revision have none, so they are not used, and the next append
of each game writes a sealed one. The downgrade drops the column (a cache: nothing is lost).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | Sequence[str] | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add the nullable mac column to game_snapshots."""
    with op.batch_alter_table("game_snapshots") as batch:
        batch.add_column(sa.Column("mac", sa.String(64), nullable=True))


def downgrade() -> None:
    """Drop the mac column (the snapshots are then unsealed, and no scat of this version uses them)."""
    with op.batch_alter_table("game_snapshots") as batch:
        batch.drop_column("mac")
