"""The schema, stated once: the tables as the Alembic migrations build them (for queries; no create_all).

migrations/env.py hands `metadata` to Alembic and a test compares a database migrated to head
with it on SQLite and PostgreSQL (see schema.py), so a migration and this module cannot drift
apart. Engine differences are declared in `info`: `dialects` (an object only those engines
have) and `server_default` (a default each engine writes its own way).
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Column,
    Double,
    Index,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    UniqueConstraint,
    false,
)

from scat_core.domain.stats import STATS_COUNTERS

metadata = MetaData()

# BIGINT on PostgreSQL; plain INTEGER on SQLite so the column is the autoincrementing rowid.
Position = BigInteger().with_variant(Integer(), "sqlite")
#: The database fills events.tx_id (migration 0002): the writing transaction's id, or 0.
TX_ID_DEFAULTS = {"postgresql": "(pg_current_xact_id()::text::bigint)", "sqlite": "0"}

#: The events `ix_events_messages` holds; a query reads them through it only if it names their type as
#: a literal (a parameter could be any type: log_reads._messages_sql).
MESSAGES = "type = 'MessageSaid'"

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
    # The writer's transaction id on PostgreSQL (filled by the column default), 0 on SQLite.
    Column("tx_id", BigInteger, nullable=False, info={"server_default": TX_ID_DEFAULTS}),
    UniqueConstraint("game_id", "seq", name="uq_events_game_seq"),
    CheckConstraint("seq >= 1", name="ck_events_seq_positive"),
    # Catching up in commit order (projections.py); SQLite orders by position alone.
    Index("ix_events_tx_position", "tx_id", "position", info={"dialects": ("postgresql",)}),
    # The newest position of the log, once partitioned by game (0016): the primary key is then (game_id, position).
    Index("ix_events_position", "position", info={"dialects": ("postgresql",)}),
    # A game's messages, newest first, with no read of its other events (0020): `show`'s last lines,
    # a player's rate of them, whatever the log's length. Partial: its WHERE is in `info` (as a
    # dialect's keyword, postgresql_where, it would load PostgreSQL's dialect in every command on
    # SQLite), compared with the database's by the schema tests.
    Index("ix_events_messages", "game_id", "seq", info={"where": MESSAGES}),
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
    # When the player to act runs out of move time (R28, recorded_at text); null without one.
    Column("move_deadline", String(40), nullable=True),
    # The player to act's name casefolded (as `--as` matches names), for `games --waiting-for`.
    Column("turn_key", String(64), nullable=True),
    # A pending game's seated humans who have not accepted yet (a JSON list), and its seats not taken (R28).
    Column("awaiting", Text, nullable=False, server_default="[]"),
    Column("open_seats", Integer, nullable=False, server_default="0"),
    # The finished game this one is the rematch of (one rematch a game: game_rematches).
    Column("rematch_of", String(64), nullable=True),
    # A finished game's result (JSON, the service's), written by the append that ends it (0018).
    Column("result", Text, nullable=True),
    # What the game was created with that its lists tell (JSON, the service's), written with its row (0019).
    Column("creation", Text, nullable=True),
    Index("ix_games_last_activity", "last_activity"),
    Index("ix_games_status", "status"),
    Index("ix_games_move_deadline", "move_deadline"),
    Index("ix_games_turn_key", "turn_key", "last_activity"),
)

#: One rematch a game (`scat rematch` asked twice, or by two players at once, is one game): the
#: finished game -> its rematch, written with the rematch's games row (0017; a unique index of
#: games before, which a table partitioned by game id cannot hold).
game_rematches = Table(
    "game_rematches",
    metadata,
    Column("rematch_of", String(64), primary_key=True),
    Column("game_id", String(64), nullable=False),
)

#: The seats of each listed game (a name casefolded per seat), written with its games row and
#: never changed: a server lists the signing account's games first through its index (0011).
game_seats = Table(
    "game_seats",
    metadata,
    Column("game_id", String(64), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("name_key", String(64), nullable=False),
    Index("ix_game_seats_name_key", "name_key", "game_id"),
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

projection_checkpoints = Table(
    "projection_checkpoints",
    metadata,
    Column("name", String(64), primary_key=True),
    Column("tx_id", BigInteger, nullable=False),
    Column("position", BigInteger, nullable=False),
    Column("snapshot", Text, nullable=True),  # PostgreSQL: the snapshot the projection has seen
)

stats_games = Table(
    "stats_games",
    metadata,
    Column("game_id", String(64), primary_key=True),
    Column("last_seq", Integer, nullable=False),
    Column("finished", Boolean, nullable=False),
    Column("winner_key", String(256), nullable=True),
    Column("hands", Integer, nullable=False),
    Column("knocker_key", String(256), nullable=True),
    Column("cancelled", Boolean, nullable=False, server_default=false()),  # before its first deal (R28)
    Column("ended_at", String(40), nullable=True),  # when it was won (ratings' order); null before
    Index("ix_stats_games_ended_at", "ended_at"),  # the games won since the ratings' last read (0021)
)

stats_players = Table(
    "stats_players",
    metadata,
    Column("game_id", String(64), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("player_key", String(256), nullable=False),
    Column("name", String(256), nullable=False),
    Column("out", Boolean, nullable=False),
    Column("resigned", Boolean, nullable=False),  # by choice (R27)
    Column("timed_out", Boolean, nullable=False, server_default=false()),  # on a claim (R28)
    Column("is_bot", Boolean, nullable=False, server_default=false()),
    Column("out_in_hand", Integer, nullable=False, server_default="0"),  # the hand he went out in
    *(Column(name, Integer, nullable=False) for name in STATS_COUNTERS),
    Index("ix_stats_players_key", "player_key"),
)

#: The ratings kept (0021, ratings_table.py): each player's row of the fold over the won games
#: (records/stats.py), mu and sigma as the model left them (doubles: a fold in steps equals one fold).
ratings = Table(
    "ratings",
    metadata,
    Column("row_key", String(300), primary_key=True),  # "human:" or "bot:" and the player's key
    Column("name", String(256), nullable=False),
    Column("is_bot", Boolean, nullable=False),
    Column("mu", Double, nullable=False),
    Column("sigma", Double, nullable=False),
    Column("games", Integer, nullable=False),
)

#: How far the ratings kept have folded (one row, `name` "ratings"): the last game taken, in the
#: order games were won, and how many were taken up to it.
ratings_folded = Table(
    "ratings_folded",
    metadata,
    Column("name", String(64), primary_key=True),
    Column("ended_at", String(40), nullable=False),
    Column("game_id", String(64), nullable=False),
    Column("taken", Integer, nullable=False),
)

#: Totals kept beside the statistics' rows (0022, projections.py): `won_games`, how many of them
#: are won games (records/stats.py `won`), which the ratings' reads compare with the games they took.
stats_totals = Table(
    "stats_totals",
    metadata,
    Column("name", String(64), primary_key=True),
    Column("total", BigInteger, nullable=False),
)

game_snapshots = Table(
    "game_snapshots",
    metadata,
    Column("game_id", String(64), primary_key=True),
    Column("seq", Integer, nullable=False),
    Column("hash", String(64), nullable=False),
    Column("state_version", Integer, nullable=False),
    Column("rules_version", String(64), nullable=False),
    Column("state", Text, nullable=False),
    Column("mac", String(64), nullable=True),  # its seal (scat_core/records/signing.py); NULL: written before 0010
)

head_signatures = Table(
    "head_signatures",
    metadata,
    Column("game_id", String(64), primary_key=True),
    Column("kind", String(8), primary_key=True),  # "head" (signed here) or "origin" (as imported)
    Column("seq", Integer, nullable=False),
    Column("hash", String(64), nullable=False),
    Column("key_id", String(16), nullable=False),
    Column("public_key", String(64), nullable=False),
    Column("signature", String(128), nullable=False),
    CheckConstraint("kind IN ('head', 'origin')", name="ck_head_signatures_kind"),
)

#: The log of account events (scat_core/domain/accounts.py), numbered from 1 across all
#: accounts; append-only: the triggers of migration 0009 refuse UPDATE and DELETE.
account_events = Table(
    "account_events",
    metadata,
    Column("position", Position, primary_key=True, autoincrement=True),
    Column("seq", Integer, nullable=False),
    Column("account", String(64), nullable=False),
    Column("skeleton", String(256), nullable=False),
    Column("key_id", String(16), nullable=False),
    Column("type", String(64), nullable=False),
    Column("schema_version", Integer, nullable=False),
    Column("data", Text, nullable=False),
    Column("recorded_at", String(40), nullable=False),
    UniqueConstraint("seq", name="uq_account_events_seq"),
    CheckConstraint("seq >= 1", name="ck_account_events_seq_positive"),
    Index("ix_account_events_skeleton", "skeleton"),
    Index("ix_account_events_key_id", "key_id"),
)

#: The nonce of each signed request while its timestamp is fresh: a second use is a replay.
request_nonces = Table(
    "request_nonces",
    metadata,
    Column("key_id", String(16), primary_key=True),
    Column("nonce", String(64), primary_key=True),
    Column("expires_at", BigInteger, nullable=False),
    Index("ix_request_nonces_expires_at", "expires_at"),
)

#: The key the server that serves this database signs with (migration 0015): one row, written
#: by the first `scat serve`; a process with another key refuses to start (server/app.py).
server_key = Table(
    "server_key",
    metadata,
    Column("slot", Integer, primary_key=True, autoincrement=False),
    Column("key_id", String(16), nullable=False),
    Column("public_key", String(64), nullable=False),
    Column("recorded_at", String(40), nullable=False),
    CheckConstraint("slot = 1", name="ck_server_key_one_row"),
)

#: Each account's name under each version of the name look (scat_core/domain/names.py): a
#: projection of the account events, folded in on first use (store/sql/account_log.py).
account_names = Table(
    "account_names",
    metadata,
    Column("version", Integer, nullable=False),
    Column("account", String(64), nullable=False),
    Column("skeleton", String(256), nullable=False),
    Column("seq", Integer, nullable=False),
    PrimaryKeyConstraint("version", "account", "skeleton"),
    Index("ix_account_names_skeleton", "version", "skeleton"),
)

#: How far into the account log each version of account_names has been folded.
account_name_index = Table(
    "account_name_index",
    metadata,
    Column("version", Integer, primary_key=True, autoincrement=False),
    Column("last_seq", Integer, nullable=False),
)

#: The invite codes of a server whose registration is by invitation (migration 0015), by their
#: SHA-256 (the code itself is told once, to the operator who made it); used once each.
invites = Table(
    "invites",
    metadata,
    Column("code_hash", String(64), primary_key=True),
    Column("made_at", String(40), nullable=False),
    Column("used_by", String(64), nullable=True),
    Column("used_at", String(40), nullable=True),
)
