"""The total of won games kept beside the statistics' rows, so a read of the ratings does not count them (#42).

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-07

Each read of the ratings (`scat ratings`, `GET /ratings`, every lobby page) counted the won games
of `stats_games` to learn whether any were new since the fold kept: a scan of the table, about
22 ms at 200,000 games on SQLite and on PostgreSQL, growing with every game. `stats_totals` holds
that total (`won_games`), kept by the statistics' catch-up in the transaction that writes their
rows; it starts as the count of the rows already there.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0022"
down_revision: str | Sequence[str] | None = "0021"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Make stats_totals, with the count of the won games the statistics' rows hold."""
    op.create_table(
        "stats_totals",
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("total", sa.BigInteger, nullable=False),
    )
    op.execute(sa.text(
        "INSERT INTO stats_totals (name, total) SELECT 'won_games', count(*) FROM stats_games "
        "WHERE finished AND winner_key IS NOT NULL AND NOT cancelled"
    ))


def downgrade() -> None:
    """Drop it (each read of the ratings counts the won games again)."""
    op.drop_table("stats_totals")
