"""An index of each game's messages, so its last lines are read without its other events (#42).

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-06

`show` tells a game's last messages, and a player may say only so many lines in ten minutes: both
read the game's MessageSaid events newest first. Through `(game_id, seq)` that read went back
through every event of the game until it found enough messages (all of them, in a game nobody
talks in): one heap page an event when they are not cached. `ix_events_messages` holds only the
messages (a partial index, on PostgreSQL on each partition of the events), so the read is one
probe whatever the log's length, and a move, which is no message, never writes to it. Building it
reads the whole log once: on a large database the upgrade takes that long, and holds the events'
writes meanwhile.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0020"
down_revision: str | Sequence[str] | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

MESSAGES = "type = 'MessageSaid'"


def upgrade() -> None:
    """Make ix_events_messages."""
    op.create_index("ix_events_messages", "events", ["game_id", "seq"], postgresql_where=sa.text(MESSAGES),
                    sqlite_where=sa.text(MESSAGES))


def downgrade() -> None:
    """Drop it (the messages are read through the (game_id, seq) key again)."""
    op.drop_index("ix_events_messages", table_name="events")
