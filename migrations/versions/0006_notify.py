"""Push: on PostgreSQL every move of a game's head NOTIFYs `scat_events` with 'GAME:SEQ'.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-30

A trigger on the games read model (which every write path moves in the same transaction as
the events: commands, bots, imports, bulk loads), so the notice goes out exactly when the
events are committed, to every process LISTENing (`scat wait`, `scat watch`, `scat serve`'s
event streams). SQLite has no NOTIFY: nothing to do there (waiters poll).
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

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
    """On PostgreSQL, the trigger that announces each new head of a game."""
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(_FUNCTION)
    op.execute(_TRIGGER)


def downgrade() -> None:
    """Drop the trigger and its function (PostgreSQL)."""
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute("DROP TRIGGER IF EXISTS games_notify_head ON games")
    op.execute("DROP FUNCTION IF EXISTS scat_notify_head()")
