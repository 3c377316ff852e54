"""Push after the commit: drop 0006's trigger, the store NOTIFYs once each write is committed.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01

PostgreSQL serialises the commits of transactions that NOTIFY: a database-wide lock on the
notice queue is held from the notice's queuing through the commit's flush to disk, so with
0006's trigger (a NOTIFY inside every write transaction) concurrent writers on different
games committed one at a time (8 writers reached ~1.1-1.8x one writer's rate). The store now
sends the same notice (`pg_notify('scat_events', 'GAME:SEQ')`) after the commit, in a short
transaction of its own that does not wait for the disk (scat_core/store/sql/notify.py): the lock
is held for microseconds, and a notice lost in a crash only delays waiters, which also look
at the head every few seconds. A scat older than this revision still writing to the database
sends no notice after the upgrade (its moves reach waiters by that look).
SQLite has no NOTIFY: nothing to do there.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# 0006's function and trigger, word for word (a downgrade restores them exactly).
_FUNCTION = """
CREATE OR REPLACE FUNCTION scat_notify_head() RETURNS trigger AS $$
BEGIN
    PERFORM pg_notify('scat_events', NEW.game_id || ':' || NEW.head_seq);
    RETURN NULL;
END
$$ LANGUAGE plpgsql
"""
_TRIGGER = """
CREATE TRIGGER games_notify_head AFTER INSERT OR UPDATE OF head_seq ON games
FOR EACH ROW EXECUTE FUNCTION scat_notify_head()
"""


def upgrade() -> None:
    """On PostgreSQL, drop the trigger that NOTIFYed inside each write, and its function."""
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute("DROP TRIGGER IF EXISTS games_notify_head ON games")
    op.execute("DROP FUNCTION IF EXISTS scat_notify_head()")


def downgrade() -> None:
    """Restore 0006's trigger and function (PostgreSQL)."""
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(_FUNCTION)
    op.execute(_TRIGGER)
