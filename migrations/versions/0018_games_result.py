"""The games read model keeps a finished game's result (#42 part 3).

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-06

`show` of a finished game gives its result (hands, standings, duration, R26), which was made
from the whole log at every `show`: one read per event, the slowest `show` of a database
grown large. games.result keeps it (JSON, written by the append that ends the game); a game
ended before this revision, or imported, has none, and its result is still made from its log.
On PostgreSQL the column is added to every partition of games with the parent.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018"
down_revision: str | Sequence[str] | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add games.result (null: made from the log when asked)."""
    op.add_column("games", sa.Column("result", sa.Text, nullable=True))


def downgrade() -> None:
    """Drop it (the events hold every result)."""
    with op.batch_alter_table("games") as batch:
        batch.drop_column("result")
