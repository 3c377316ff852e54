"""The key a server signs with, recorded in its database (several processes on one database are one
server); the account name index, a projection of the account events.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-05

server_key: at most one row (slot 1), the public key (and its id) of the first `scat serve`
that served this database. Every later process compares its own key with it and refuses to
start with another (a client knows a server by its key: two keys behind one URL would read to
it as a server replaced). The downgrade drops it; the next server records its key again.

account_names: for each version of the name look (scat_core/domain/names.py), each
look of each account's name under it; account_name_index: how far into the account log each version has
been folded. Filled from the account events on first use (store/sql/account_log.py), for every
version a scat asks for: a new version never leaves an older account out. The downgrade drops
both (the events hold it all).

invites: the invite codes an operator made (`scat account invite`, for `scat serve
--registration invite`), each kept as its SHA-256 only, with the account that used it and when.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | Sequence[str] | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create server_key, the invites and the account name index."""
    op.create_table(
        "server_key",
        sa.Column("slot", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("key_id", sa.String(16), nullable=False),
        sa.Column("public_key", sa.String(64), nullable=False),
        sa.Column("recorded_at", sa.String(40), nullable=False),
        sa.CheckConstraint("slot = 1", name="ck_server_key_one_row"),
    )
    op.create_table(
        "account_names",
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("account", sa.String(64), nullable=False),
        sa.Column("skeleton", sa.String(256), nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("version", "account", "skeleton"),
    )
    op.create_index("ix_account_names_skeleton", "account_names", ["version", "skeleton"])
    op.create_table(
        "invites",
        sa.Column("code_hash", sa.String(64), primary_key=True),
        sa.Column("made_at", sa.String(40), nullable=False),
        sa.Column("used_by", sa.String(64), nullable=True),
        sa.Column("used_at", sa.String(40), nullable=True),
    )
    op.create_table(
        "account_name_index",
        sa.Column("version", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("last_seq", sa.Integer, nullable=False),
    )


def downgrade() -> None:
    """Drop server_key, the invites and the account name index."""
    op.drop_table("account_name_index")
    op.drop_table("invites")
    op.drop_index("ix_account_names_skeleton", table_name="account_names")
    op.drop_table("account_names")
    op.drop_table("server_key")
