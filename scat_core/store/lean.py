"""The lean append of a running game: events, games row and snapshot in as few round trips as
the database allows, every statement written once (no statement building per command).

PostgreSQL: one statement (data-modifying CTEs): the events go in through `unnest` of one
array per column, the games row moves only from the head the command started from, and the
snapshot follows only if it did. SQLite (in-process, no round trips): the same three writes
as three prepared statements. Either way the games row's update is conditional on the head
(seq and hash) the caller verified, so a concurrent or outside change is never overwritten.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from scat_core.domain.errors import ConcurrencyConflict

#: One stored row, in the column order of EVENT_COLUMNS.
Row = tuple[int, str, int, str, str, str, str]  # seq, type, schema_version, data, recorded_at, prev_hash, hash
EVENT_COLUMNS = "game_id, seq, type, schema_version, data, recorded_at, prev_hash, hash"

_GAMES_SET = (
    "head_seq = %(head_seq)s, head_hash = %(head_hash)s, last_activity = %(now)s, status = %(status)s, "
    "players = %(players)s, bots = %(bots)s, turn = %(turn)s, hand_number = %(hand_number)s, "
    "dealer = %(dealer)s, winner = %(winner)s, protected = %(protected)s"
)
_GAMES_WHERE = "game_id = %(game_id)s AND head_seq = %(expected_seq)s AND head_hash = %(expected_hash)s"
_SNAPSHOT_COLUMNS = "game_id, seq, hash, state_version, rules_version, state"
_SNAPSHOT_VALUES = "%(game_id)s, %(head_seq)s, %(head_hash)s, %(state_version)s, %(rules_version)s, %(state)s"
_SNAPSHOT_UPDATE = (
    "ON CONFLICT (game_id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash, "
    "state_version = excluded.state_version, rules_version = excluded.rules_version, state = excluded.state"
)

_PG_EVENTS = (
    f"new_events AS (INSERT INTO events ({EVENT_COLUMNS}) SELECT %(game_id)s, * FROM unnest("
    "%(seqs)s::int[], %(types)s::text[], %(versions)s::int[], %(datas)s::text[], %(recorded)s::text[], "
    "%(prevs)s::text[], %(hashes)s::text[]) RETURNING 1), "
    f"moved AS (UPDATE games SET {_GAMES_SET} WHERE {_GAMES_WHERE} RETURNING 1)"
)
_PG_WITH_SNAPSHOT = (
    f"WITH {_PG_EVENTS} INSERT INTO game_snapshots ({_SNAPSHOT_COLUMNS}) SELECT {_SNAPSHOT_VALUES} "
    f"WHERE EXISTS (SELECT 1 FROM moved) {_SNAPSHOT_UPDATE} RETURNING 1"
)
_PG_WITHOUT_SNAPSHOT = f"WITH {_PG_EVENTS} SELECT 1 FROM moved"


def _sqlite(sql: str) -> str:
    """The same statement in sqlite3's named style (:name)."""
    return sql.replace("%(", ":").replace(")s", "")


_SQLITE_EVENTS = f"INSERT INTO events ({EVENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
_SQLITE_GAMES = _sqlite(f"UPDATE games SET {_GAMES_SET} WHERE {_GAMES_WHERE}")
_SQLITE_SNAPSHOT = _sqlite(f"INSERT INTO game_snapshots ({_SNAPSHOT_COLUMNS}) VALUES ({_SNAPSHOT_VALUES}) "
                           f"{_SNAPSHOT_UPDATE}")


def append_after_head(
    conn: Connection, game_id: str, expected: tuple[int, str], rows: Sequence[Row], games: dict[str, Any],
    snapshot: dict[str, Any] | None,
) -> None:
    """Insert `rows`, move the games row from head `expected` to the last row, keep `snapshot`.

    `games` holds the games row's new values (status, players, ...; see _GAMES_SET) and
    `snapshot` its state_version, rules_version and state. ConcurrencyConflict if the head
    moved meanwhile (or the row is gone): nothing is then written (the caller's transaction
    rolls back).
    """
    last = rows[-1]
    params = {**games, "game_id": game_id, "expected_seq": expected[0], "expected_hash": expected[1],
              "head_seq": last[0], "head_hash": last[6], "now": last[4], **(snapshot or {})}
    try:
        if conn.dialect.name == "postgresql":
            columns = list(zip(*rows, strict=True))
            params.update(seqs=list(columns[0]), types=list(columns[1]), versions=list(columns[2]),
                          datas=list(columns[3]), recorded=list(columns[4]), prevs=list(columns[5]),
                          hashes=list(columns[6]))
            statement = _PG_WITH_SNAPSHOT if snapshot is not None else _PG_WITHOUT_SNAPSHOT
            moved = conn.exec_driver_sql(statement, params).first() is not None
        else:
            conn.exec_driver_sql(_SQLITE_EVENTS, [(game_id, *row) for row in rows])
            moved = conn.exec_driver_sql(_SQLITE_GAMES, params).rowcount == 1
            if moved and snapshot is not None:
                conn.exec_driver_sql(_SQLITE_SNAPSHOT, params)
    except IntegrityError as exc:
        raise ConcurrencyConflict(
            f"game {game_id} changed meanwhile (event {rows[0][0]} already exists): look again and retry"
        ) from exc
    if not moved:
        raise ConcurrencyConflict(
            f"game {game_id} changed meanwhile (it is no longer at event {expected[0]}): look again and retry"
        )


_BULK_CHUNK = 5_000
_PG_BULK_EVENTS = (
    f"INSERT INTO events ({EVENT_COLUMNS}) SELECT * FROM unnest(%(game_ids)s::text[], %(seqs)s::int[], "
    "%(types)s::text[], %(versions)s::int[], %(datas)s::text[], %(recorded)s::text[], %(prevs)s::text[], "
    "%(hashes)s::text[])"
)
_GAMES_COLUMNS = ("game_id, status, players, bots, turn, hand_number, dealer, created_at, last_activity, winner, "
                  "head_seq, head_hash, protected")
_GAMES_PARAMS = ", ".join(f"%({column})s" for column in _GAMES_COLUMNS.split(", "))
_INSERT_GAMES = f"INSERT INTO games ({_GAMES_COLUMNS}) VALUES ({_GAMES_PARAMS})"
_INSERT_SNAPSHOTS = f"INSERT INTO game_snapshots ({_SNAPSHOT_COLUMNS}) VALUES ({_SNAPSHOT_VALUES})"


def insert_games(
    conn: Connection, events: Sequence[tuple[str, int, str, int, str, str, str, str]],
    games: Sequence[dict[str, Any]], snapshots: Sequence[dict[str, Any]],
) -> None:
    """The bulk path: new games' events (rows in EVENT_COLUMNS order), games rows and snapshots,
    each kind in as few statements as the database allows. IntegrityError if any exists already."""
    if conn.dialect.name == "postgresql":
        for start in range(0, len(events), _BULK_CHUNK):
            columns = [list(column) for column in zip(*events[start : start + _BULK_CHUNK], strict=True)]
            names = ("game_ids", "seqs", "types", "versions", "datas", "recorded", "prevs", "hashes")
            conn.exec_driver_sql(_PG_BULK_EVENTS, dict(zip(names, columns, strict=True)))
        if games:
            conn.exec_driver_sql(_INSERT_GAMES, list(games))
        if snapshots:
            conn.exec_driver_sql(_INSERT_SNAPSHOTS, list(snapshots))
        return
    conn.exec_driver_sql(_SQLITE_EVENTS, list(events))
    if games:
        conn.exec_driver_sql(_sqlite(_INSERT_GAMES), list(games))
    if snapshots:
        conn.exec_driver_sql(_sqlite(_INSERT_SNAPSHOTS), list(snapshots))
