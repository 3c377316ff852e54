"""On PostgreSQL the games read model is hash-partitioned by game id too; "one rematch a game"
moves to a table of its own (#42 part 3).

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-06

After 0016 a game's events and snapshot live in one of PARTITIONS partitions; this puts its
games row and its seats (`game_seats`) in the same one (`games_p00` ..., `game_seats_p00` ...,
the same modulus and remainder), so that everything a command writes for a game is in one
partition of each table. A partitioned table's unique indexes must include the game id, so
the unique index on games.rematch_of (0014) becomes the primary key of `game_rematches`
(rematch_of -> game_id), on SQLite too, filled from the games rows. The lists keep their
indexes, now one per partition, merged by PostgreSQL in activity order. The rows are copied
(as 0016's are). The downgrade puts them back in plain tables and the unique index back.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | Sequence[str] | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

PARTITIONS = 16
#: Each table rebuilt -> its primary key and its indexes (name -> columns), as tables.py has them.
_TABLES = {
    "games": ("game_id", {"ix_games_last_activity": "last_activity", "ix_games_status": "status",
                          "ix_games_move_deadline": "move_deadline", "ix_games_turn_key": "turn_key, last_activity"}),
    "game_seats": ("game_id, seat", {"ix_game_seats_name_key": "name_key, game_id"}),
}


def _set_aside(table: str) -> str:
    """Rename `table`, its primary key and its indexes out of the way (the new table takes their names)."""
    old = f"{table}_before_0017"
    op.execute(f"ALTER TABLE {table} RENAME TO {old}")
    op.execute(f'ALTER TABLE {old} RENAME CONSTRAINT "{table}_pkey" TO "{table}_pkey_before_0017"')
    for index in _TABLES[table][1]:
        op.execute(f'ALTER INDEX "{index}" RENAME TO "{index}_before_0017"')
    return old


def _rebuild(partitioned: bool) -> None:
    """Make games and game_seats anew (PostgreSQL), partitioned or not, with every row of the old ones."""
    for table, (key, indexes) in _TABLES.items():
        old = _set_aside(table)
        clause = "PARTITION BY HASH (game_id)" if partitioned else ""
        # LIKE copies the columns in order, their types, NOT NULLs and defaults; keys and indexes are named here
        op.execute(f"CREATE TABLE {table} (LIKE {old} INCLUDING DEFAULTS, "
                   f"CONSTRAINT {table}_pkey PRIMARY KEY ({key})) {clause}")
        for remainder in range(PARTITIONS if partitioned else 0):
            op.execute(f"CREATE TABLE {table}_p{remainder:02d} PARTITION OF {table} "
                       f"FOR VALUES WITH (MODULUS {PARTITIONS}, REMAINDER {remainder})")
        for index, columns in indexes.items():
            op.execute(f"CREATE INDEX {index} ON {table} ({columns})")
        op.execute(f"INSERT INTO {table} SELECT * FROM {old}")
        op.execute(f"DROP TABLE {old}")
        if op.get_bind().exec_driver_sql(f"SELECT EXISTS (SELECT 1 FROM {table})").scalar():
            op.execute(f"ANALYZE {table}")  # as 0016: empty tables are left unanalyzed


def upgrade() -> None:
    """game_rematches replaces ux_games_rematch_of; games and game_seats partitioned (PostgreSQL)."""
    op.create_table(
        "game_rematches",
        sa.Column("rematch_of", sa.String(64), primary_key=True),
        sa.Column("game_id", sa.String(64), nullable=False),
    )
    op.execute("INSERT INTO game_rematches (rematch_of, game_id) "
               "SELECT rematch_of, game_id FROM games WHERE rematch_of IS NOT NULL")
    op.drop_index("ux_games_rematch_of", table_name="games")
    if op.get_bind().dialect.name == "postgresql":
        _rebuild(partitioned=True)


def downgrade() -> None:
    """Plain games and game_seats again (PostgreSQL), and the unique index on games.rematch_of."""
    if op.get_bind().dialect.name == "postgresql":
        _rebuild(partitioned=False)
    op.create_index("ux_games_rematch_of", "games", ["rematch_of"], unique=True)
    op.drop_table("game_rematches")
