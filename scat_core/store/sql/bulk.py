"""The bulk path (imports, benchmarks): whole histories of new games in a few statements.

Nothing is verified here (the caller audited the histories); every game is new, so a game
id already present fails the whole batch with ConcurrencyConflict and nothing is added.
Each new head is signed with this installation's key, in the same unit of work.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from scat_core.records.errors import ConcurrencyConflict
from scat_core.records.games import GameSummary
from scat_core.records.signing import KeyRing, sealed_snapshot
from scat_core.records.stored_log import canonical_json
from scat_core.store.sql.appending import (
    EVENT_COLUMNS,
    SNAPSHOT_COLUMNS,
    SNAPSHOT_VALUES,
    SQLITE_EVENTS,
    sign_new_heads,
)
from scat_core.store.sql.driver_sql import named
from scat_core.store.sql.games_list import games_values, seat_rows

#: One new game: its records (as exported), its games-row summary, its snapshot (or None).
NewGame = tuple[Sequence[Mapping[str, Any]], GameSummary, str | None]
#: One event row in EVENT_COLUMNS order.
EventRow = tuple[str, int, str, int, str, str, str, str]

_BULK_CHUNK = 5_000
_PG_BULK_EVENTS = (
    f"INSERT INTO events ({EVENT_COLUMNS}) SELECT * FROM unnest(%(game_ids)b::text[], %(seqs)b::int[], "
    "%(types)b::text[], %(versions)b::int[], %(datas)b::text[], %(recorded)b::text[], %(prevs)b::text[], "
    "%(hashes)b::text[])"
)
_GAMES_COLUMNS = ("game_id, status, players, bots, turn, hand_number, dealer, created_at, last_activity, winner, "
                  "head_seq, head_hash, protected, move_deadline, turn_key")
_GAMES_PARAMS = ", ".join(f"%({column})s" for column in _GAMES_COLUMNS.split(", "))
_INSERT_GAMES = f"INSERT INTO games ({_GAMES_COLUMNS}) VALUES ({_GAMES_PARAMS})"
_INSERT_SEATS = "INSERT INTO game_seats (game_id, seat, name_key) VALUES (%(game_id)s, %(seat)s, %(name_key)s)"
_INSERT_SNAPSHOTS = f"INSERT INTO game_snapshots ({SNAPSHOT_COLUMNS}) VALUES ({SNAPSHOT_VALUES})"


def append_many(conn: Connection, keys: KeyRing, games: Sequence[NewGame]) -> int:
    """Add whole exported histories of new games verbatim, with their games rows, snapshots and
    signed heads; the number of events added. A record's `data` is a dict, or already its
    canonical JSON text (the rows of a history cloned many times are encoded once)."""
    events: list[EventRow] = []
    rows: list[dict[str, Any]] = []
    snapshots: list[dict[str, Any]] = []
    for records, summary, snapshot in games:
        first, last = records[0], records[-1]
        game_id = str(first["game_id"])
        events += [
            (str(r["game_id"]), int(r["seq"]), str(r["type"]), int(r["schema_version"]),
             r["data"] if type(r["data"]) is str else canonical_json(r["data"]).decode("utf-8"),
             str(r["recorded_at"]), str(r["prev_hash"]), str(r["hash"]))
            for r in records
        ]
        head_seq, head_hash = int(last["seq"]), str(last["hash"])
        head = {"head_seq": head_seq, "head_hash": head_hash}
        rows.append({**games_values(summary), **head, "game_id": game_id,
                     "created_at": str(first["recorded_at"]), "last_activity": str(last["recorded_at"])})
        if snapshot is not None:
            sealed = sealed_snapshot(keys, game_id, head_seq, head_hash, snapshot)
            snapshots.append({**head, "game_id": game_id, **sealed})
    try:
        insert_games(conn, events, rows, snapshots)
    except IntegrityError as exc:
        raise ConcurrencyConflict("a game being added is in this database already: nothing added") from exc
    sign_new_heads(conn, keys, [(row["game_id"], row["head_seq"], row["head_hash"]) for row in rows])
    return len(events)


def insert_games(
    conn: Connection, events: Sequence[EventRow], games: Sequence[dict[str, Any]], snapshots: Sequence[dict[str, Any]],
) -> None:
    """New games' events (rows in EVENT_COLUMNS order), games rows and snapshots, each kind in
    as few statements as the database allows. IntegrityError if any exists already."""
    if conn.dialect.name == "postgresql":
        for start in range(0, len(events), _BULK_CHUNK):
            columns = [list(column) for column in zip(*events[start : start + _BULK_CHUNK], strict=True)]
            names = ("game_ids", "seqs", "types", "versions", "datas", "recorded", "prevs", "hashes")
            conn.exec_driver_sql(_PG_BULK_EVENTS, dict(zip(names, columns, strict=True)))
        if games:
            conn.exec_driver_sql(_INSERT_GAMES, list(games))
            conn.exec_driver_sql(_INSERT_SEATS, _seats(games))
        if snapshots:
            conn.exec_driver_sql(_INSERT_SNAPSHOTS, list(snapshots))
        return
    conn.exec_driver_sql(SQLITE_EVENTS, list(events))
    if games:
        conn.exec_driver_sql(named(conn, _INSERT_GAMES), list(games))
        conn.exec_driver_sql(named(conn, _INSERT_SEATS), _seats(games))
    if snapshots:
        conn.exec_driver_sql(named(conn, _INSERT_SNAPSHOTS), list(snapshots))


def _seats(games: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The game_seats rows of new games rows (their players, as JSON)."""
    return [seat for row in games for seat in seat_rows(row["game_id"], json.loads(row["players"]))]
