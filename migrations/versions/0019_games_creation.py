"""The games read model keeps what a game was created with that its lists tell (#42 part 3).

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-06

Every games page tells, for each game listed, whether its creator chose its chance (#14 item 4)
and, in the lobby, its options: both were read from each listed game's first event, one read of
the log per page that grew with the database (a third of a page's time at 200,000 games).
games.creation keeps them (JSON, written with the game's row by the append that creates the game
or imports it); a game added before this revision has none, and its first event is still read.
On PostgreSQL the column is added to every partition of games with the parent.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0019"
down_revision: str | Sequence[str] | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add games.creation (null: read from the game's first event when asked)."""
    op.add_column("games", sa.Column("creation", sa.Text, nullable=True))


def downgrade() -> None:
    """Drop it (the events hold every creation)."""
    with op.batch_alter_table("games") as batch:
        batch.drop_column("creation")
