"""The key a server signs with, recorded in its database: several processes on one database are one server.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-05

server_key: at most one row (slot 1), the public key (and its id) of the first `scat serve`
that served this database. Every later process compares its own key with it and refuses to
start with another (a client knows a server by its key: two keys behind one URL would read to
it as a server replaced). The downgrade drops it; the next server records its key again.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | Sequence[str] | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create server_key."""
    op.create_table(
        "server_key",
        sa.Column("slot", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("key_id", sa.String(16), nullable=False),
        sa.Column("public_key", sa.String(64), nullable=False),
        sa.Column("recorded_at", sa.String(40), nullable=False),
        sa.CheckConstraint("slot = 1", name="ck_server_key_one_row"),
    )


def downgrade() -> None:
    """Drop server_key."""
    op.drop_table("server_key")
