"""The lean append of a running game: events, games row, snapshot and (once the game ends) the
forgotten seed in as few round trips as the database allows, every statement written once.

PostgreSQL: one statement, all or nothing by itself (data-modifying CTEs): the games row
moves only from the head the command verified, and the events (a few as named values, more
through `unnest` of one array per column), the snapshot, the seed's removal and the new
head's NOTIFY happen only if it did; so it needs no transaction around it (see
`EventStore.command`) and no round trip after it. SQLite (in-process, no round trips):
the same writes as prepared statements in the caller's transaction. Both on the driver's own
cursor (driver_sql.py), errors as SQLAlchemy's. Either way a concurrent
or outside change of the head is never overwritten: ConcurrencyConflict, nothing written.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from scat_core.records.errors import ConcurrencyConflict
from scat_core.store.sql.driver_sql import execute, execute_many, fetch_all, named
from scat_core.store.sql.notify import CHANNEL

#: One stored row, in the column order of EVENT_COLUMNS.
Row = tuple[int, str, int, str, str, str, str]  # seq, type, schema_version, data, recorded_at, prev_hash, hash
EVENT_COLUMNS = "game_id, seq, type, schema_version, data, recorded_at, prev_hash, hash"

_GAMES_SET = (
    "head_seq = %(head_seq)s, head_hash = %(head_hash)s, last_activity = %(now)s, status = %(status)s, "
    "players = %(players)s, bots = %(bots)s, turn = %(turn)s, hand_number = %(hand_number)s, "
    "dealer = %(dealer)s, winner = %(winner)s, protected = %(protected)s, "
    "move_deadline = %(move_deadline)s, turn_key = %(turn_key)s, awaiting = %(awaiting)s, "
    "open_seats = %(open_seats)s"
)
#: The games row moves only from the head verified and, when the append signs, only over the very
#: signature verified (read with the load, or written by this store's last append: KnownHeads).
_GAMES_WHERE = (
    "game_id = %(game_id)s AND head_seq = %(expected_seq)s AND head_hash = %(expected_hash)s AND (NOT %(sign)s "
    "OR EXISTS (SELECT 1 FROM head_signatures WHERE game_id = %(game_id)s AND kind = 'head' "
    "AND signature = %(prior_signature)s))"
)
SNAPSHOT_COLUMNS = "game_id, seq, hash, state_version, rules_version, state, mac"
SNAPSHOT_VALUES = ("%(game_id)s, %(head_seq)s, %(head_hash)s, %(state_version)s, %(rules_version)s, %(state)s, "
                   "%(mac)s")
_SNAPSHOT_UPDATE = (
    "ON CONFLICT (game_id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash, "
    "state_version = excluded.state_version, rules_version = excluded.rules_version, state = excluded.state, "
    "mac = excluded.mac"
)
_FORGET_SEED = "DELETE FROM game_secrets WHERE game_id = %(game_id)s"
#: The head's new signature (signed_heads.lean_signature_params), only over the very signature verified.
_SIGN_HEAD = (
    "UPDATE head_signatures SET seq = %(head_seq)s, hash = %(head_hash)s, key_id = %(sig_key_id)s, "
    "public_key = %(sig_public_key)s, signature = %(sig_signature)s "
    "WHERE game_id = %(game_id)s AND kind = 'head' AND signature = %(prior_signature)s"
)

_MOVED = "EXISTS (SELECT 1 FROM moved)"
#: The new head's notice (notify.py), sent by the statement itself when it moved the head: no
#: round trip of its own. The final SELECT counts it, so it is evaluated (and "1" means moved).
_NOTICE = f"notice AS (SELECT pg_notify('{CHANNEL}', %(game_id)s || ':' || %(head_seq)s::text) FROM moved)"
#: The events of a longer append: one array per column.
_ARRAYS = ("unnest(%(seqs)b::int[], %(types)b::text[], %(versions)b::int[], %(datas)b::text[], "
           "%(recorded)b::text[], %(prevs)b::text[], %(hashes)b::text[]) AS u")
#: Appends of up to this many events (nearly all: a move, the bots' reply to it) name each value
#: instead: psycopg dumps a scalar in C, an array in Python (four times the work).
VALUES_ROWS = 4
_ROW_NAMES = ("seq", "type", "version", "data", "recorded", "prev", "hash")
_ROW_KEYS = [tuple(f"{name}{index}" for name in _ROW_NAMES) for index in range(VALUES_ROWS)]


@cache
def _pg_command(count: int) -> str:
    """The statement of an append of `count` events (named values up to VALUES_ROWS, else arrays)."""
    if count > VALUES_ROWS:
        source = _ARRAYS
    else:
        rows = ", ".join(f"(%({s})s::int, %({t})s, %({v})s::int, %({d})s, %({r})s, %({p})s, %({h})s)"
                         for s, t, v, d, r, p, h in _ROW_KEYS[:count])
        source = f"(VALUES {rows}) AS u"
    return (
        f"WITH moved AS (UPDATE games SET {_GAMES_SET} WHERE {_GAMES_WHERE} RETURNING 1), "
        f"new_events AS (INSERT INTO events ({EVENT_COLUMNS}) SELECT %(game_id)s, u.* FROM {source} "
        f"WHERE {_MOVED} RETURNING 1), "
        f"snapshot AS (INSERT INTO game_snapshots ({SNAPSHOT_COLUMNS}) SELECT {SNAPSHOT_VALUES} "
        f"WHERE %(keep_snapshot)s AND {_MOVED} {_SNAPSHOT_UPDATE} RETURNING 1), "
        f"forgotten AS ({_FORGET_SEED} AND %(finished)s AND {_MOVED} RETURNING 1), "
        f"signed AS ({_SIGN_HEAD} AND %(sign)s AND {_MOVED} RETURNING 1), "
        f"{_NOTICE} "
        "SELECT count(*) FROM notice"
    )


SQLITE_EVENTS = f"INSERT INTO events ({EVENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
_GAMES = f"UPDATE games SET {_GAMES_SET} WHERE {_GAMES_WHERE}"
_SNAPSHOT = f"INSERT INTO game_snapshots ({SNAPSHOT_COLUMNS}) VALUES ({SNAPSHOT_VALUES}) {_SNAPSHOT_UPDATE}"


def append_after_head(
    conn: Connection, game_id: str, expected: tuple[int, str], rows: Sequence[Row], games: dict[str, Any],
    snapshot: dict[str, Any] | None, signature: dict[str, Any] | None = None,
) -> None:
    """Move the games row from head `expected` to the last of `rows`, insert `rows`, keep
    `snapshot` and, if the game is finished, forget its seed: all or nothing.

    `games` holds the games row's new values (status, players, ...; see _GAMES_SET) and
    `snapshot` its state_version, rules_version, state and mac (its seal, records/signing.py);
    `signature` the head's new
    signature (signed_heads.lean_signature_params). ConcurrencyConflict if the head
    moved meanwhile (or the row is gone), and then nothing is written.
    """
    last = rows[-1]
    finished = games["status"] in ("finished", "cancelled")  # over: its seed is revealed and forgotten here
    params = {**games, "game_id": game_id, "expected_seq": expected[0], "expected_hash": expected[1],
              "head_seq": last[0], "head_hash": last[6], "now": last[4], "finished": finished,
              "keep_snapshot": snapshot is not None, "state_version": 0, "rules_version": "", "state": "", "mac": None,
              "sign": False, "prior_signature": "", "sig_key_id": "", "sig_public_key": "", "sig_signature": "",
              **(snapshot or {}), **(signature or {})}
    try:  # every statement on the driver's own cursor (driver_sql.py): SQLAlchemy's work around one costs more
        if conn.dialect.name == "postgresql":
            if len(rows) <= VALUES_ROWS:
                for keys, row in zip(_ROW_KEYS, rows, strict=False):
                    params.update(zip(keys, row, strict=True))
            else:
                columns = list(zip(*rows, strict=True))
                params.update(seqs=list(columns[0]), types=list(columns[1]), versions=list(columns[2]),
                              datas=list(columns[3]), recorded=list(columns[4]), prevs=list(columns[5]),
                              hashes=list(columns[6]))
            moved: bool = fetch_all(conn, _pg_command(len(rows)), params)[0][0] == 1
        else:
            moved = execute(conn, named(conn, _GAMES), params) == 1
            if moved:
                execute_many(conn, SQLITE_EVENTS, [(game_id, *row) for row in rows])
                if snapshot is not None:
                    execute(conn, named(conn, _SNAPSHOT), params)
                if finished:
                    execute(conn, named(conn, _FORGET_SEED), params)
                if params["sign"]:
                    execute(conn, named(conn, _SIGN_HEAD), params)
    except IntegrityError as exc:
        raise ConcurrencyConflict(
            f"game {game_id} changed meanwhile (event {rows[0][0]} already exists): look again and retry"
        ) from exc
    if not moved:
        raise ConcurrencyConflict(
            f"game {game_id} changed meanwhile (it is no longer at event {expected[0]}): look again and retry"
        )

