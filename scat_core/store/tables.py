"""SQLAlchemy Core tables mirroring the Alembic migrations (queries only, no create_all)."""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

metadata = MetaData()

# BIGINT on PostgreSQL; plain INTEGER on SQLite so the column is the autoincrementing rowid.
Position = BigInteger().with_variant(Integer(), "sqlite")

events = Table(
    "events",
    metadata,
    Column("position", Position, primary_key=True, autoincrement=True),
    Column("game_id", String(64), nullable=False),
    Column("seq", Integer, nullable=False),
    Column("type", String(64), nullable=False),
    Column("schema_version", Integer, nullable=False),
    Column("data", Text, nullable=False),
    Column("recorded_at", String(40), nullable=False),
    Column("prev_hash", String(64), nullable=False),
    Column("hash", String(64), nullable=False),
    UniqueConstraint("game_id", "seq", name="uq_events_game_seq"),
)

games = Table(
    "games",
    metadata,
    Column("game_id", String(64), primary_key=True),
    Column("status", String(16), nullable=False),
    Column("players", Text, nullable=False),
    Column("bots", Text, nullable=False),
    Column("turn", String(64), nullable=True),
    Column("hand_number", Integer, nullable=False),
    Column("dealer", String(64), nullable=True),
    Column("created_at", String(40), nullable=False),
    Column("last_activity", String(40), nullable=False),
    Column("winner", String(64), nullable=True),
    Column("head_seq", Integer, nullable=False),
    Column("head_hash", String(64), nullable=False),
    Column("protected", Boolean, nullable=False),
    Index("ix_games_last_activity", "last_activity"),
    Index("ix_games_status", "status"),
    Index("ix_games_turn", "turn"),
)

game_secrets = Table(
    "game_secrets",
    metadata,
    Column("game_id", String(64), primary_key=True),
    Column("seed", Text, nullable=False),
    Column("salt", Text, nullable=False),
)

player_tokens = Table(
    "player_tokens",
    metadata,
    Column("game_id", String(64), primary_key=True),
    Column("player", String(64), primary_key=True),
    Column("token_hash", Text, nullable=False),
)
