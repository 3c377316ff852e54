"""Drop the games list's index on `turn`, which no query reads.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-03

Games are found by whose turn it is through `ix_games_turn_key` (the name casefolded, with
the last activity; 0008), as `--waiting-for` matches names the way `--as` does. `ix_games_turn`,
on the name as written, has served no query since (`wait --any` looks at the running games
through `ix_games_status`), yet every command changes `turn` and so wrote to it: one page of the
nine or so a command writes on SQLite, one index entry on PostgreSQL. The downgrade makes it again.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0012"
down_revision: str | Sequence[str] | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Drop ix_games_turn."""
    op.drop_index("ix_games_turn", table_name="games")


def downgrade() -> None:
    """Make ix_games_turn again."""
    op.create_index("ix_games_turn", "games", ["turn"])
