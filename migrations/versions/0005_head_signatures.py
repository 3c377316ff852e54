"""Signed game heads: one row per game and kind, the signature kept beside the read model.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30

kind "head": this installation's signature of the game's current head, replaced at every
append in the same transaction. kind "origin": the signature an imported export carried,
kept as it came. The private key is never in the database (see scat_core/records/signing.py).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create the head_signatures table."""
    op.create_table(
        "head_signatures",
        sa.Column("game_id", sa.String(64), primary_key=True),
        sa.Column("kind", sa.String(8), primary_key=True),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.Column("key_id", sa.String(16), nullable=False),
        sa.Column("public_key", sa.String(64), nullable=False),
        sa.Column("signature", sa.String(128), nullable=False),
        sa.CheckConstraint("kind IN ('head', 'origin')", name="ck_head_signatures_kind"),
    )


def downgrade() -> None:
    """Drop the head_signatures table (the games stay, unsigned)."""
    op.drop_table("head_signatures")
