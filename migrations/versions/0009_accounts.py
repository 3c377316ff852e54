"""Accounts: the append-only account_events log and the request_nonces of signed requests.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-02

An account is a name and a public key (scat_core/domain/accounts.py); its events are kept
like a game's, never changed: triggers refuse UPDATE and DELETE (REPLACE on SQLite, TRUNCATE on
PostgreSQL), as 0001's do for the events table. request_nonces holds each signed request's
nonce while its timestamp is within the server's window, so a replay is refused by any
process serving the database (its primary key); expired rows are deleted.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_SQLITE = (
    """
    CREATE TRIGGER account_events_no_update BEFORE UPDATE ON account_events
    BEGIN SELECT RAISE(ABORT, 'account events are immutable'); END
    """,
    """
    CREATE TRIGGER account_events_no_delete BEFORE DELETE ON account_events
    BEGIN SELECT RAISE(ABORT, 'account events are immutable'); END
    """,
    # INSERT OR REPLACE deletes the row it replaces without firing the DELETE trigger
    """
    CREATE TRIGGER account_events_no_replace BEFORE INSERT ON account_events
    WHEN EXISTS (SELECT 1 FROM account_events WHERE seq = NEW.seq)
      OR EXISTS (SELECT 1 FROM account_events WHERE position = NEW.position)
    BEGIN SELECT RAISE(ABORT, 'account events are immutable: that event exists already'); END
    """,
)
_PG = (
    """
    CREATE OR REPLACE FUNCTION scat_account_events_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION 'account events are immutable' USING ERRCODE = 'restrict_violation';
    END
    $$
    """,
    """
    CREATE TRIGGER account_events_no_update_delete BEFORE UPDATE OR DELETE ON account_events
    FOR EACH ROW EXECUTE FUNCTION scat_account_events_immutable()
    """,
    """
    CREATE TRIGGER account_events_no_truncate BEFORE TRUNCATE ON account_events
    FOR EACH STATEMENT EXECUTE FUNCTION scat_account_events_immutable()
    """,
)


def upgrade() -> None:
    """Create account_events (with its immutability triggers) and request_nonces."""
    position = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
    op.create_table(
        "account_events",
        sa.Column("position", position, primary_key=True, autoincrement=True),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("account", sa.String(64), nullable=False),
        sa.Column("skeleton", sa.String(256), nullable=False),
        sa.Column("key_id", sa.String(16), nullable=False),
        sa.Column("type", sa.String(64), nullable=False),
        sa.Column("schema_version", sa.Integer, nullable=False),
        sa.Column("data", sa.Text, nullable=False),
        sa.Column("recorded_at", sa.String(40), nullable=False),
        sa.UniqueConstraint("seq", name="uq_account_events_seq"),
        sa.CheckConstraint("seq >= 1", name="ck_account_events_seq_positive"),
    )
    op.create_index("ix_account_events_skeleton", "account_events", ["skeleton"])
    op.create_index("ix_account_events_key_id", "account_events", ["key_id"])
    op.create_table(
        "request_nonces",
        sa.Column("key_id", sa.String(16), primary_key=True),
        sa.Column("nonce", sa.String(64), primary_key=True),
        sa.Column("expires_at", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_request_nonces_expires_at", "request_nonces", ["expires_at"])
    for statement in _SQLITE if op.get_bind().dialect.name == "sqlite" else _PG:
        op.execute(statement)


def downgrade() -> None:
    """Drop both tables (and the triggers and function with them): the accounts are lost."""
    op.drop_table("request_nonces")
    op.drop_table("account_events")
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP FUNCTION IF EXISTS scat_account_events_immutable()")
