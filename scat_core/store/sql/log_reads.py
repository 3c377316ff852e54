"""Reading the log: a game's events whole, in part, or only its head, by the (game_id, seq) key.

A command reads its game in one round trip (`load_for_command`: games row, snapshot, seed, the
events after the snapshot, head signature), checked against the games row's head; a snapshot
whose seal does not verify costs a second read, of every event. The other reads are the plain
ones of exports, audits, views and the stats projection; a game's last messages are read through
their own index (`ix_events_messages`), whatever the length of its log.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import cache
from typing import Any

from sqlalchemy import bindparam, func, select
from sqlalchemy.engine import Connection

from scat_core.domain.errors import Hint, NotFound
from scat_core.domain.snapshot import SNAPSHOT_TAG
from scat_core.records.errors import CorruptHistory
from scat_core.records.signing import HeadSignature, KeyRing, StoredSignature, is_sealed
from scat_core.records.stored_log import (
    RECORD_KEYS,
    CommandLoad,
    KeptHead,
    StoredEvent,
    resumed_load,
    verified_load,
    without_snapshot,
)
from scat_core.store.sql import tables as t
from scat_core.store.sql.driver_sql import fetch_all, named, placeholder
from scat_core.store.sql.partition_routing import ROUTING, partition_of, routed

IDS_CHUNK = 500  # ids or rows per statement: well under SQLite's 32,766 variables
# Built once: building and cache-keying a select costs more than fetching a short game.
_HEAD = (
    select(t.events.c.seq, t.events.c.hash)
    .where(t.events.c.game_id == bindparam("game_id"))
    .order_by(t.events.c.seq.desc())
    .limit(1)
)
assert RECORD_KEYS[0] == "game_id"  # a game's own log: the rest of the columns (StoredEvent.of_game)


@cache
def _load_sql(mark: str, up_to: bool) -> str:
    """A game's log (up to a seq) on the driver's cursor, `mark` its placeholder: the game_id
    column is not fetched, the WHERE clause names it."""
    bound = f" AND seq <= {mark}" if up_to else ""
    return f"SELECT {', '.join(RECORD_KEYS[1:])} FROM {t.events.name} WHERE game_id = {mark}{bound} ORDER BY seq"


_BETWEEN: dict[tuple[tuple[str, ...] | None, bool, bool], Any] = {}
#: The type of the messages said at a game's table: read newest first through their own index (0020).
MESSAGE_TYPES = ("MessageSaid",)


@cache
def _messages_sql(mark: str, sqlite: bool) -> str:
    """A game's messages newest first, between two seqs, at most a number of them, on the driver's
    cursor (`mark` its placeholder), through `ix_events_messages`: its type a literal, as the
    partial index's WHERE names it, so a generic plan of PostgreSQL uses it too; and on SQLite
    named (INDEXED BY: without statistics its planner takes the (game_id, seq) key as likely)."""
    indexed = " INDEXED BY ix_events_messages" if sqlite else ""
    return (f"SELECT {', '.join(RECORD_KEYS[1:])} FROM {t.events.name}{indexed} WHERE game_id = {mark} "
            f"AND seq > {mark} AND seq <= {mark} AND {t.MESSAGES} ORDER BY seq DESC LIMIT {mark}")


def _between(types: tuple[str, ...] | None, newest_first: bool, limited: bool) -> Any:
    """The statement of `load_between`, built once per shape (building one costs more than running it)."""
    key = (types, newest_first, limited)
    query = _BETWEEN.get(key)
    if query is None:
        seq = t.events.c.seq
        query = select(*(t.events.c[k] for k in RECORD_KEYS)).where(
            t.events.c.game_id == bindparam("game_id"), seq > bindparam("after"), seq <= bindparam("up_to")
        )
        if types is not None:
            query = query.where(t.events.c.type.in_(types))
        query = query.order_by(seq.desc() if newest_first else seq)
        if limited:
            query = query.limit(bindparam("limit"))
        _BETWEEN[key] = query
    return query


def head(conn: Connection, game_id: str) -> tuple[int, str] | None:
    """(seq, hash) of the game's last event, or None when the game has no events."""
    row = conn.execute(_HEAD, {"game_id": game_id}).first()
    if row is None:
        return None
    if not isinstance(row[0], int):  # SQLite keeps any text in an INTEGER column (#14 item 7)
        raise CorruptHistory(
            f"the stored history of game {game_id} is damaged (an event is numbered {row[0]!r})",
            game_id=game_id, hint=Hint.FIND_BAD_EVENT,
        )
    return int(row[0]), str(row[1])


def load(conn: Connection, game_id: str, up_to: int | None = None) -> list[StoredEvent]:
    """The game's events in seq order, up to seq `up_to` inclusive; NotFound if none."""
    mark = placeholder(conn)
    if up_to is None:
        rows = fetch_all(conn, _load_sql(mark, False), (game_id,))
    else:
        rows = fetch_all(conn, _load_sql(mark, True), (game_id, up_to))
    if not rows and (up_to is None or head(conn, game_id) is None):
        raise NotFound(f"no game {game_id!r} in this database", game_id=game_id, hint=Hint.LIST_GAMES)
    numbered = [row[0] for row in rows]
    if numbered != list(range(1, len(numbered) + 1)):
        bad = next(seq for seq, found in enumerate(numbered, start=1) if found != seq)
        raise CorruptHistory(
            f"the stored history of game {game_id} is damaged (event {bad} is missing or not numbered "
            f"{bad})", game_id=game_id, hint=Hint.FIND_BAD_EVENT,
        )
    return StoredEvent.of_game(game_id, rows)


def load_between(
    conn: Connection, game_id: str, after: int, up_to: int, types: Sequence[str] | None = None,
    newest_first: bool = False, limit: int | None = None,
) -> list[StoredEvent]:
    """The game's events with `after` < seq <= `up_to` (only of `types`, if given), in seq order
    or newest first, at most `limit` of them."""
    if types is not None and tuple(types) == MESSAGE_TYPES and newest_first and limit is not None:
        sql = _messages_sql(placeholder(conn), conn.dialect.name == "sqlite")
        return StoredEvent.of_game(game_id, fetch_all(conn, sql, (game_id, after, up_to, limit)))
    query = _between(tuple(types) if types is not None else None, newest_first, limit is not None)
    params: dict[str, Any] = {"game_id": game_id, "after": after, "up_to": up_to}
    if limit is not None:
        params["limit"] = limit
    return StoredEvent.from_rows(conn.execute(query, params).all())


def load_unchecked(conn: Connection, game_id: str) -> list[StoredEvent]:
    """The game's rows in the order the database sorts their seq, numbered right or not (for audits)."""
    return StoredEvent.of_game(game_id, fetch_all(conn, _load_sql(placeholder(conn), False), (game_id,)))


def first_events(conn: Connection, game_ids: Sequence[str]) -> list[StoredEvent]:
    """The first event (seq 1) of each of `game_ids` that has one, in one query per 500 ids."""
    found: list[StoredEvent] = []
    ids = list(dict.fromkeys(game_ids))
    for start in range(0, len(ids), IDS_CHUNK):
        query = select(*(t.events.c[k] for k in RECORD_KEYS)).where(
            t.events.c.seq == 1, t.events.c.game_id.in_(ids[start : start + IDS_CHUNK])
        )
        found += StoredEvent.from_rows(conn.execute(query))
    return found


def games_changed_after(conn: Connection, position: int) -> tuple[int, list[str]]:
    """(The log's newest position, the games with an event after `position`), by the position key."""
    newest = conn.execute(select(func.max(t.events.c.position))).scalar()
    if newest is None or newest <= position:
        return int(newest or 0), []
    changed = select(t.events.c.game_id).distinct().where(t.events.c.position > position,
                                                          t.events.c.position <= newest)
    return int(newest), sorted({str(row[0]) for row in conn.execute(changed)})


def logged_game_ids(conn: Connection) -> list[str]:
    """Every game id the log holds events of (a scan of the log: for audits of everything)."""
    return [str(r[0]) for r in conn.execute(select(t.events.c.game_id).where(t.events.c.seq == 1))]

def _usable(snapshot: str) -> str:
    """SQL: the snapshot (of that alias) was folded by this state schema and these rules."""
    return f"{snapshot}.state_version = %(state_version)s AND {snapshot}.rules_version = %(rules_version)s"


# One round trip: the games row, its snapshot, the kept seed, the events from the snapshot's
# own event on (or from the event a caller names: the snapshot it saw, `resumed_load`; the
# whole log when the snapshot is missing or of other rules) and, last, the head signature
# (which the append checks before signing over it).
#
# The events are read by an index range scan whatever the database knows of the game, so that
# a command costs the same on a long game as on a short one (#13): the first event wanted is a
# subquery computed once (so PostgreSQL puts it in the index condition, where a join filter
# would read every event of the game and drop all but the last), and every value that differs
# from game to game (the game id, the event named) is a subquery's value (`GAME_ID_VALUE`), known only
# when the query runs.
#: The game id as a subquery's value, known only when the query runs: what is matched to it is
#: estimated alike for every game (from the number of games, not this game's share of the log),
#: and the partitions (migrations 0016 and 0017) are pruned as the query runs, so one generic plan
#: fits every game and PostgreSQL has no reason to plan again at each command. Every partitioned
#: table is matched to it: one matched to the plain parameter would be pruned only by a plan
#: made for that game, which PostgreSQL would then prefer, and make, at every command.
GAME_ID_VALUE = "(SELECT CAST(%(game_id)s AS VARCHAR(64)))"
#: The head signature's columns, read by these names: `command_load_statement` finds their place once.
_SIGNATURE_COLUMNS = ("hs.seq", "hs.hash", "hs.key_id", "hs.public_key", "hs.signature")
COMMAND_COLUMNS = (
    "g.head_seq", "g.head_hash", "s.seq", "s.hash", f"CASE WHEN {_usable('s')} THEN s.state END",
    "sec.seed", "sec.salt",
    "e.game_id", "e.seq", "e.type", "e.schema_version", "e.recorded_at", "e.data", "e.prev_hash", "e.hash",
    *_SIGNATURE_COLUMNS, "s.mac",
)


def command_load_statement(columns: Sequence[str]) -> tuple[str, slice]:
    """The statement selecting `columns`, and the slice of its rows that holds `_SIGNATURE_COLUMNS`."""
    at = list(columns).index(_SIGNATURE_COLUMNS[0])
    where = slice(at, at + len(_SIGNATURE_COLUMNS))
    if tuple(columns[where]) != _SIGNATURE_COLUMNS:
        raise ValueError(f"the signature's columns must be selected together, in the order {_SIGNATURE_COLUMNS}")
    return (
        f"SELECT {', '.join(columns)} "
        "FROM games g "
        f"LEFT JOIN game_snapshots s ON s.game_id = {GAME_ID_VALUE} "
        "LEFT JOIN game_secrets sec ON sec.game_id = g.game_id "
        "LEFT JOIN head_signatures hs ON hs.game_id = g.game_id AND hs.kind = 'head' "
        f"LEFT JOIN events e ON e.game_id = {GAME_ID_VALUE} "
        "AND e.seq >= COALESCE((SELECT CAST(%(from_seq)s AS INTEGER)), "
        "(SELECT CASE WHEN "
        f"{_usable('f')} THEN f.seq END "
        f"FROM game_snapshots f WHERE f.game_id = {GAME_ID_VALUE}), 1) "
        f"WHERE g.game_id = {GAME_ID_VALUE} ORDER BY e.seq"
    ), where


COMMAND_LOAD, SIGNATURE_AT = command_load_statement(COMMAND_COLUMNS)
_MAC = len(COMMAND_COLUMNS) - 1
_ANY_EVENT = "SELECT count(*) FROM events WHERE game_id = %(game_id)s"
_SNAPSHOT_ROW = "SELECT state_version, rules_version, state, mac FROM game_snapshots WHERE game_id = %(game_id)s"


def load_for_command(conn: Connection, game_id: str, use_snapshot: bool = True, keys: KeyRing | None = None,
                     after: KeptHead | None = None) -> tuple[CommandLoad, StoredSignature | None]:
    """The game as a command needs it, after checking its log against the recorded head, and
    the head's stored signature (None: unsigned), read in the same query.

    `after`: the head whose state the caller kept, and the snapshot it saw. The events are read
    from that snapshot's event on, and not the snapshot's state: when the log still holds both
    and the snapshot is the same, the load is `resumed` (the events after the kept head,
    stored_log.resumed_load); else the game is read as if nothing were kept.

    The snapshot is used (its state, and its head as evidence) only when its seal verifies
    under `keys` (records/signing.py: one HMAC); otherwise the events are read and folded from
    the first, as if there were none.
    HistoryDamaged unless the events read chain unbroken from the snapshot's event (itself
    re-hashed and equal to the snapshot's head) and the last is the games row's head;
    NotFound when there is no such game at all.
    """
    if after is not None:
        rows = _fetch(conn, game_id, use_snapshot=False, from_seq=after.checked_from)
        resumed = resumed_load(game_id, rows, after)
        if resumed is not None:
            return _signed(resumed, rows)
    key = keys.snapshot_key() if keys is not None else None
    rows = _fetch(conn, game_id, use_snapshot)
    if rows and rows[0][4] is not None:  # a snapshot of these rules: used only if sealed by this key
        snap_seq, snap_hash, state = rows[0][2:5]
        if not is_sealed(key, game_id, int(snap_seq), str(snap_hash), *SNAPSHOT_TAG, str(state), rows[0][_MAC]):
            rows = without_snapshot(_fetch(conn, game_id, use_snapshot=False))
    elif rows and rows[0][2] is not None:  # its head is evidence only if its seal verifies (read apart)
        kept = fetch_all(conn, named(conn, _SNAPSHOT_ROW), {"game_id": game_id})
        if not kept or not is_sealed(key, game_id, int(rows[0][2]), str(rows[0][3]), int(kept[0][0]),
                                     str(kept[0][1]), str(kept[0][2]), kept[0][3]):
            rows = without_snapshot(rows)
    logged = 0 if rows else int(fetch_all(conn, named(conn, _ANY_EVENT), {"game_id": game_id})[0][0])
    return _signed(verified_load(game_id, rows, logged), rows)


def _signed(load: CommandLoad, rows: Sequence[Any]) -> tuple[CommandLoad, StoredSignature | None]:
    """`load` marked signed or not, and the head's stored signature, read in `rows`."""
    seq, head_hash, key_id, public_key, signed = rows[0][SIGNATURE_AT]
    signature = None if seq is None else StoredSignature(
        int(seq), str(head_hash), HeadSignature(str(key_id), str(public_key), str(signed)))
    return replace(load, head_signed=signature is not None), signature


def _fetch(conn: Connection, game_id: str, use_snapshot: bool, from_seq: int | None = None) -> Sequence[Any]:
    """The rows of `COMMAND_LOAD`: from event `from_seq` on when given, else from the snapshot's
    event on when one of these rules is kept (and `use_snapshot`), else from the first event."""
    state_version, rules_version = SNAPSHOT_TAG if use_snapshot else (-1, "")
    params = {"game_id": game_id, "state_version": state_version, "rules_version": rules_version,
              "from_seq": from_seq}
    # On the driver's own cursor (driver_sql.py): SQLAlchemy's Row objects and execution context
    # cost as much as the fetch.
    statement = named(conn, COMMAND_LOAD)
    if not ROUTING.on or conn.dialect.name != "postgresql":
        return fetch_all(conn, statement, params)
    rows = fetch_all(conn, routed(statement, partition_of(game_id)), params)  # the game's own partitions
    if rows:
        ROUTING.found(game_id)
        return rows
    rows = fetch_all(conn, statement, params)  # no such game, or (never yet) another partition than computed
    if rows:
        ROUTING.wrong(game_id)
    return rows
