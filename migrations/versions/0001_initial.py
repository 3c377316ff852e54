"""Initial schema: the immutable event log, the games read model, secrets and tokens.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SQLITE_TRIGGERS = (
    """
    CREATE TRIGGER events_no_update BEFORE UPDATE ON events
    BEGIN SELECT RAISE(ABORT, 'events are immutable'); END
    """,
    """
    CREATE TRIGGER events_no_delete BEFORE DELETE ON events
    BEGIN SELECT RAISE(ABORT, 'events are immutable'); END
    """,
    # INSERT OR REPLACE / REPLACE INTO delete the conflicting row without firing DELETE
    # triggers (unless recursive_triggers is on): refuse any insert onto an existing event.
    """
    CREATE TRIGGER events_no_replace BEFORE INSERT ON events
    WHEN EXISTS (SELECT 1 FROM events WHERE game_id = NEW.game_id AND seq = NEW.seq)
      OR EXISTS (SELECT 1 FROM events WHERE position = NEW.position)
    BEGIN SELECT RAISE(ABORT, 'events are immutable: that event exists already'); END
    """,
)

PG_TRIGGERS = (
    """
    CREATE FUNCTION scat_events_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION 'events are immutable' USING ERRCODE = 'restrict_violation';
    END
    $$
    """,
    """
    CREATE TRIGGER events_no_update_delete BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION scat_events_immutable()
    """,
    """
    CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION scat_events_immutable()
    """,
)


def upgrade() -> None:
    """Create the four tables and the triggers that make events immutable."""
    op.create_table(
        "events",
        sa.Column(
            "position",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            primary_key=True,
            autoincrement=True,
        ),
        sa.Column("game_id", sa.String(64), nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("type", sa.String(64), nullable=False),
        sa.Column("schema_version", sa.Integer, nullable=False),
        sa.Column("data", sa.Text, nullable=False),
        sa.Column("recorded_at", sa.String(40), nullable=False),
        sa.Column("prev_hash", sa.String(64), nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.UniqueConstraint("game_id", "seq", name="uq_events_game_seq"),
        sa.CheckConstraint("seq >= 1", name="ck_events_seq_positive"),
    )
    op.create_table(
        "games",
        sa.Column("game_id", sa.String(64), primary_key=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("players", sa.Text, nullable=False),
        sa.Column("bots", sa.Text, nullable=False),
        sa.Column("turn", sa.String(64), nullable=True),
        sa.Column("hand_number", sa.Integer, nullable=False),
        sa.Column("dealer", sa.String(64), nullable=True),
        sa.Column("created_at", sa.String(40), nullable=False),
        sa.Column("last_activity", sa.String(40), nullable=False),
        sa.Column("winner", sa.String(64), nullable=True),
        sa.Column("head_seq", sa.Integer, nullable=False),
        sa.Column("head_hash", sa.String(64), nullable=False),
        sa.Column("protected", sa.Boolean, nullable=False),
    )
    op.create_index("ix_games_last_activity", "games", ["last_activity"])
    op.create_index("ix_games_status", "games", ["status"])
    op.create_index("ix_games_turn", "games", ["turn"])
    op.create_table(
        "game_secrets",
        sa.Column("game_id", sa.String(64), primary_key=True),
        sa.Column("seed", sa.Text, nullable=False),
        sa.Column("salt", sa.Text, nullable=False),
    )
    op.create_table(
        "player_tokens",
        sa.Column("game_id", sa.String(64), primary_key=True),
        sa.Column("player", sa.String(64), primary_key=True),
        sa.Column("token_hash", sa.Text, nullable=False),
    )
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        statements: tuple[str, ...] = SQLITE_TRIGGERS
    elif dialect == "postgresql":
        statements = PG_TRIGGERS
    else:
        raise NotImplementedError(f"scat supports SQLite and PostgreSQL, not {dialect}")
    for statement in statements:
        op.execute(statement)


def downgrade() -> None:
    """Drop everything this revision created; refused while games are kept, unless asked.

    `alembic -x drop-games=yes downgrade base` drops them anyway (export them first:
    `scat export --all -o DIR`).
    """
    from alembic import context

    games = op.get_bind().execute(sa.text("SELECT count(DISTINCT game_id) FROM events")).scalar() or 0
    if games and context.get_x_argument(as_dictionary=True).get("drop-games") != "yes":
        raise RuntimeError(
            f"refused: the scat schema holds {games} game{'s' if games != 1 else ''}, which this downgrade "
            "would drop for good; export them first (scat export --all -o DIR), then run "
            "`alembic -x drop-games=yes downgrade base` to drop them anyway"
        )
    op.drop_table("player_tokens")
    op.drop_table("game_secrets")
    op.drop_table("games")
    op.drop_table("events")  # its triggers go with it
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP FUNCTION IF EXISTS scat_events_immutable()")
