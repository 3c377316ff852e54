"""Appending to the log: new events hashed into the chain (or exported records kept verbatim), and the signed head.

The games row, the snapshot and the head signature move in the same unit of work as the
events. `append` is optimistic: `expected_seq` is the last event the caller saw (0 for a new
game); if someone appended since, ConcurrencyConflict and nothing is written. A running game's
move takes the lean path (`append_after_head`): on PostgreSQL one statement of data-modifying
CTEs, all or nothing by itself (games row moved only from the verified head, events, snapshot,
the forgotten seed once the game ends, the NOTIFY), so no transaction and no round trip after
it; on SQLite the same writes as prepared statements in the caller's transaction. Every
append signs the new head with this installation's key, but only on top of a head signed by a
key known here that still verifies (`signature_for_append`), so a rewritten history is never
laundered by the next move; an unsigned head stays unsigned; an import is signed from its
first event, the export's signature kept as its "origin". The bulk path (`append_many`:
imports, benchmarks) adds whole histories of new games in a few statements, verifying nothing
(the caller audited them); a game id already present fails the batch, nothing added.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import Any

from pydantic import BaseModel
from sqlalchemy import select
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from scat_core.domain.events import to_record
from scat_core.records.errors import ConcurrencyConflict
from scat_core.records.games import GameSummary
from scat_core.records.signing import (
    HEAD,
    BoundedMemo,
    HeadSignature,
    KeyRing,
    StoredSignature,
    next_signature,
    sealed_snapshot,
)
from scat_core.records.stored_log import GENESIS_HASH, StoredEvent, canonical_json, chain_hash_raw, utc_now
from scat_core.store.sql import tables as t
from scat_core.store.sql.driver_sql import execute, execute_many, fetch_all, named
from scat_core.store.sql.games_list import games_values, put_snapshot, seat_rows, update_games_row
from scat_core.store.sql.log_reads import GAME_ID_VALUE, IDS_CHUNK, head
from scat_core.store.sql.notify import CHANNEL
from scat_core.store.sql.partition_routing import ROUTING, partition_of, routed

_COLUMNS = (t.head_signatures.c.seq, t.head_signatures.c.hash, t.head_signatures.c.key_id,
            t.head_signatures.c.public_key, t.head_signatures.c.signature)


#: What KnownHeads.prior says when it holds nothing for that head: read the database.
UNREAD = "unread"


class KnownHeads:
    """The head signature a store last read or wrote of each game, at which head (seq, hash).

    A memo of one process, so an append after a command's load (or after the same store's
    previous append) need not read the signature again: the lean append then writes only
    if the database still holds that very signature (compare and swap, appending.py), so a memo
    that is out of date costs a ConcurrencyConflict, never a wrong signature. Bounded.
    """

    def __init__(self, kept: int = 4096) -> None:
        self._heads: BoundedMemo[str, tuple[int, str, StoredSignature | None]] = BoundedMemo(kept)
        self._lock = threading.Lock()

    def remember(self, game_id: str, seq: int, head_hash: str, signature: StoredSignature | None) -> None:
        """Note that the head (seq, head_hash) of `game_id` has `signature` (None: unsigned)."""
        with self._lock:
            self._heads.remember(game_id, (seq, head_hash, signature))

    def forget(self, game_id: str) -> None:
        """Drop what is known of `game_id` (its append failed: the database decides again)."""
        with self._lock:
            self._heads.pop(game_id, None)

    def prior(self, game_id: str, seq: int, head_hash: str) -> StoredSignature | None | str:
        """The signature known for that head of `game_id`, None if it is unsigned, UNREAD if not known."""
        with self._lock:
            known = self._heads.get(game_id)
        if known is None or (known[0], known[1]) != (seq, head_hash):
            return UNREAD
        return known[2]


def read_signature(conn: Connection, game_id: str, kind: str = HEAD) -> StoredSignature | None:
    """The stored signature of `kind` (HEAD or ORIGIN) of a game, or None."""
    row = conn.execute(
        select(*_COLUMNS).where(t.head_signatures.c.game_id == game_id, t.head_signatures.c.kind == kind)
    ).first()
    if row is None:
        return None
    return StoredSignature(int(row[0]), str(row[1]), HeadSignature(str(row[2]), str(row[3]), str(row[4])))


def write_signature(conn: Connection, game_id: str, kind: str, seq: int, head_hash: str,
                    signature: HeadSignature) -> None:
    """Insert or replace the signature of `kind` of a game."""
    values = {"seq": seq, "hash": head_hash, "key_id": signature.key_id, "public_key": signature.public_key,
              "signature": signature.signature}
    updated = conn.execute(
        t.head_signatures.update()
        .where(t.head_signatures.c.game_id == game_id, t.head_signatures.c.kind == kind)
        .values(**values)
    )
    if updated.rowcount == 0:
        conn.execute(t.head_signatures.insert().values(game_id=game_id, kind=kind, **values))


def signature_for_append(conn: Connection, keys: KeyRing, game_id: str, prior_seq: int, prior_hash: str,
                         seq: int, head_hash: str, before_insert: bool = True,
                         known: StoredSignature | None | str = UNREAD,
                         ) -> tuple[StoredSignature | None, HeadSignature] | None:
    """The signature an append from (prior_seq, prior_hash) to (seq, head_hash) must write, and the
    prior one it replaces; None when the game stays unsigned.

    A new game (prior_seq 0) is signed. Otherwise the prior head's signature must verify
    under a key known here (else HistoryDamaged or RuleViolation, and nothing may be
    written); an unsigned prior head leaves the game unsigned. `before_insert`: called before
    the events are written (the lean append), so a signature of a later head may be a writer
    that raced ahead (ConcurrencyConflict) rather than damage. `known`: the prior head's
    signature as already read (KnownHeads.prior), UNREAD to read it here.
    """
    if prior_seq == 0:
        prior = None
    elif isinstance(known, str):
        prior = read_signature(conn, game_id)
    else:
        prior = known
    return next_signature(keys, prior, game_id, prior_seq, prior_hash, seq, head_hash,
                          lambda: before_insert and _log_moved(conn, game_id, prior_seq, prior_hash))


def _log_moved(conn: Connection, game_id: str, prior_seq: int, prior_hash: str) -> bool:
    """Whether the log's last event is no longer (prior_seq, prior_hash): a writer raced ahead."""
    row = conn.execute(
        select(t.events.c.seq, t.events.c.hash).where(t.events.c.game_id == game_id)
        .order_by(t.events.c.seq.desc()).limit(1)
    ).first()
    return row is None or (int(row[0]), str(row[1])) != (prior_seq, prior_hash)


def sign_appended_head(conn: Connection, keys: KeyRing, game_id: str, prior_seq: int, prior_hash: str,
                       seq: int, head_hash: str) -> None:
    """After an append (in its transaction): sign the new head, over a verified prior one."""
    signing = signature_for_append(conn, keys, game_id, prior_seq, prior_hash, seq, head_hash, before_insert=False)
    if signing is not None:
        write_signature(conn, game_id, HEAD, seq, head_hash, signing[1])


def lean_signature_params(signing: tuple[StoredSignature | None, HeadSignature] | None) -> dict[str, object]:
    """The parameters of the lean append's head_signatures update (see appending.py): sign, the prior
    signature it must still find (compare and swap), and the new one."""
    prior, new = signing if signing is not None else (None, None)
    if prior is None or new is None:
        return {"sign": False, "prior_signature": "", "sig_key_id": "", "sig_public_key": "", "sig_signature": ""}
    return {"sign": True, "prior_signature": prior.signature.signature, "sig_key_id": new.key_id,
            "sig_public_key": new.public_key, "sig_signature": new.signature}


def sign_new_heads(conn: Connection, keys: KeyRing, heads: list[tuple[str, int, str]]) -> None:
    """Sign the heads (game_id, seq, hash) of games just added whole (the bulk path), in one INSERT."""
    if not heads:
        return
    rows = []
    for game_id, seq, head_hash in heads:
        signature = keys.sign_head(game_id, seq, head_hash)
        rows.append({"game_id": game_id, "kind": HEAD, "seq": seq, "hash": head_hash, "key_id": signature.key_id,
                     "public_key": signature.public_key, "signature": signature.signature})
    conn.execute(t.head_signatures.insert(), rows)

#: One stored row, in the column order of EVENT_COLUMNS.
Row = tuple[int, str, int, str, str, str, str]  # seq, type, schema_version, data, recorded_at, prev_hash, hash
EVENT_COLUMNS = "game_id, seq, type, schema_version, data, recorded_at, prev_hash, hash"

_GAMES_SET = (
    "head_seq = %(head_seq)s, head_hash = %(head_hash)s, last_activity = %(now)s, status = %(status)s, "
    "players = %(players)s, bots = %(bots)s, turn = %(turn)s, hand_number = %(hand_number)s, "
    "dealer = %(dealer)s, winner = %(winner)s, protected = %(protected)s, "
    "move_deadline = %(move_deadline)s, turn_key = %(turn_key)s, awaiting = %(awaiting)s, "
    "open_seats = %(open_seats)s, result = COALESCE(%(result)s, result)"
)
def _games_where(game: str) -> str:
    """The games row of `game` (SQL), moved only from the head verified and, when the append signs,
    only over the very signature verified (read with the load, or written by this store's last
    append: KnownHeads)."""
    return (f"game_id = {game} AND head_seq = %(expected_seq)s AND head_hash = %(expected_hash)s AND (NOT %(sign)s "
            "OR EXISTS (SELECT 1 FROM head_signatures WHERE game_id = %(game_id)s AND kind = 'head' "
            "AND signature = %(prior_signature)s))")


_GAMES_WHERE = _games_where("%(game_id)s")
#: On PostgreSQL the games row is matched to the game id as a subquery's value, as a command's load
#: matches it (log_reads.GAME_ID_VALUE): one generic plan for every game, the partition pruned as
#: the statement runs (with the plain parameter, PostgreSQL planned the whole statement anew at
#: every command, to prune the games partitions: half the commands a second).
_PG_GAMES_WHERE = _games_where(GAME_ID_VALUE)
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
#: The values each named row gives (Row's type, schema_version, data and hash); its seq follows the
#: expected head's, its recorded_at is the append's `now` and its prev_hash the hash before it.
_ROW_KEYS = [tuple(f"{name}{index}" for name in ("type", "version", "data", "hash")) for index in range(VALUES_ROWS)]
#: psycopg converts a statement's `%(name)s` to `$n` once and caches it only when it is given at most
#: this many parameters (psycopg/_queries.py, MAX_CACHED_STATEMENT_PARAMS); converted anew, a command's
#: statement cost a twentieth of a move's CPU. A command passes its statement's names only, and each
#: named row four (tests/store/test_command_append.py holds every statement within it).
PSYCOPG_CACHED_PARAMS = 50


@cache
def pg_command(count: int) -> tuple[str, tuple[str, ...]]:
    """The statement of an append of `count` events (named values up to VALUES_ROWS, else arrays),
    and the names of its parameters."""
    if count > VALUES_ROWS:
        source = _ARRAYS
    else:
        rows = ", ".join(f"(%(expected_seq)s::int + {index + 1}, %({t})s, %({v})s::int, %({d})s, %(now)s, "
                         f"{'%(expected_hash)s' if index == 0 else f'%(hash{index - 1})s'}, %({h})s)"
                         for index, (t, v, d, h) in enumerate(_ROW_KEYS[:count]))
        source = f"(VALUES {rows}) AS u"
    statement = (
        f"WITH moved AS (UPDATE games SET {_GAMES_SET} WHERE {_PG_GAMES_WHERE} RETURNING 1), "
        f"new_events AS (INSERT INTO events ({EVENT_COLUMNS}) SELECT %(game_id)s, u.* FROM {source} "
        f"WHERE {_MOVED} RETURNING 1), "
        f"snapshot AS (INSERT INTO game_snapshots ({SNAPSHOT_COLUMNS}) SELECT {SNAPSHOT_VALUES} "
        f"WHERE %(keep_snapshot)s AND {_MOVED} {_SNAPSHOT_UPDATE} RETURNING 1), "
        f"forgotten AS ({_FORGET_SEED} AND %(finished)s AND {_MOVED} RETURNING 1), "
        f"signed AS ({_SIGN_HEAD} AND %(sign)s AND {_MOVED} RETURNING 1), "
        f"{_NOTICE} "
        "SELECT count(*) FROM notice"
    )
    return statement, tuple(dict.fromkeys(re.findall(r"%\((\w+)\)", statement)))


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
                assert rows[0][0] == expected[0] + 1 and rows[0][5] == expected[1]  # the statement's seq and prev_hash
                for keys, (_, kind, version, data, _, _, digest) in zip(_ROW_KEYS, rows, strict=False):
                    params.update(zip(keys, (kind, version, data, digest), strict=True))
            else:
                columns = list(zip(*rows, strict=True))
                params.update(seqs=list(columns[0]), types=list(columns[1]), versions=list(columns[2]),
                              datas=list(columns[3]), recorded=list(columns[4]), prevs=list(columns[5]),
                              hashes=list(columns[6]))
            statement, names = pg_command(len(rows))
            if ROUTING.proven(game_id):  # its load found it in the partitions computed for it
                statement = routed(statement, partition_of(game_id))
            moved: bool = fetch_all(conn, statement, {name: params[name] for name in names})[0][0] == 1
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

def is_lean(expected_seq: int, summary: GameSummary | None, expected_hash: str | None) -> bool:
    """Whether an append takes the lean path (a running game, its verified head hash and a summary)."""
    return expected_hash is not None and summary is not None and expected_seq > 0


def append(
    conn: Connection, keys: KeyRing, game_id: str, expected_seq: int, events: Sequence[BaseModel],
    summary: GameSummary | None = None, snapshot: str | None = None, expected_hash: str | None = None,
    heads: KnownHeads | None = None, recorded_at: str | None = None,
    defer: Callable[[Callable[[], None]], None] | None = None,
) -> list[StoredEvent]:
    """Append `events` after seq `expected_seq`, chaining hashes; update the read model and,
    when given, the snapshot (see StoreTransaction.append). `heads`: the head signatures known
    (the lean path reads the prior one only when it is not known there) and kept up to date.
    `defer`: the lean path's one write is handed to it, to run when the unit of work ends well
    (a PostgreSQL command, which has no transaction to roll back: `EventStore.command`)."""
    lean = is_lean(expected_seq, summary, expected_hash)
    if not lean:
        found = head(conn, game_id)
        head_seq, prev_hash = found if found is not None else (0, GENESIS_HASH)
        if head_seq != expected_seq:
            raise ConcurrencyConflict(
                f"game {game_id} changed meanwhile (you saw event {expected_seq}, it is now at "
                f"{head_seq}): look again and retry"
            )
    else:
        prev_hash = str(expected_hash)
    now = recorded_at or utc_now()
    stored: list[StoredEvent] = []
    rows: list[Row] = []
    for seq, event in enumerate(events, start=expected_seq + 1):
        event_type, version, data = to_record(event)
        data_json = canonical_json(data).decode("utf-8")
        digest = chain_hash_raw(prev_hash, game_id, seq, event_type, version, now, data_json)
        rows.append((seq, event_type, version, data_json, now, prev_hash, digest))
        stored.append(
            StoredEvent(
                game_id=game_id, seq=seq, type=event_type, schema_version=version, recorded_at=now,
                data=data, prev_hash=prev_hash, hash=digest,
            )
        )
        prev_hash = digest
    if not stored:
        return stored
    if lean:
        assert expected_hash is not None and summary is not None
        last_row = rows[-1]
        kept = None if snapshot is None else sealed_snapshot(keys, game_id, last_row[0], last_row[6], snapshot)
        known = heads.prior(game_id, expected_seq, expected_hash) if heads is not None else UNREAD
        signing = signature_for_append(conn, keys, game_id, expected_seq, expected_hash, rows[-1][0], rows[-1][6],
                                       known=known)

        def write() -> None:
            assert expected_hash is not None and summary is not None
            try:
                append_after_head(conn, game_id, (expected_seq, expected_hash), rows, games_values(summary), kept,
                                  lean_signature_params(signing))
            except ConcurrencyConflict:
                if heads is not None:
                    heads.forget(game_id)
                raise
            if heads is not None:
                last = stored[-1]
                heads.remember(game_id, last.seq, last.hash,
                               None if signing is None else StoredSignature(last.seq, last.hash, signing[1]))

        if defer is not None:
            defer(write)
        else:
            write()
        return stored
    insert_stored(conn, stored)
    update_games_row(conn, game_id, stored[-1], summary, new=expected_seq == 0)
    if snapshot is not None:
        put_snapshot(conn, keys, game_id, stored[-1].seq, stored[-1].hash, snapshot)
    sign_head(conn, keys, stored)
    return stored


def append_raw(
    conn: Connection, keys: KeyRing, records: Sequence[Mapping[str, Any]], summary: GameSummary | None = None,
    snapshot: str | None = None,
) -> list[StoredEvent]:
    """Insert exported records verbatim (recorded_at, hashes as given; nothing verified);
    `snapshot`, for records of one game, is the JSON of its state after the last."""
    stored = [
        StoredEvent(
            game_id=str(r["game_id"]), seq=int(r["seq"]), type=str(r["type"]),
            schema_version=int(r["schema_version"]), recorded_at=str(r["recorded_at"]),
            data=dict(r["data"]), prev_hash=str(r["prev_hash"]), hash=str(r["hash"]),
        )
        for r in records
    ]
    insert_stored(conn, stored)
    for game_id in dict.fromkeys(s.game_id for s in stored):
        mine = sorted((s for s in stored if s.game_id == game_id), key=lambda s: s.seq)
        update_games_row(conn, game_id, mine[-1], summary, created_at=mine[0].recorded_at, new=True)
        if snapshot is not None:
            put_snapshot(conn, keys, game_id, mine[-1].seq, mine[-1].hash, snapshot)
        sign_head(conn, keys, mine)
    return stored


def insert_stored(conn: Connection, stored: Sequence[StoredEvent]) -> None:
    """Insert stored events as they are; ConcurrencyConflict if one of them exists already."""
    if not stored:
        return
    rows = [
        {**s.envelope(), "data": canonical_json(s.data).decode("utf-8"), "prev_hash": s.prev_hash, "hash": s.hash}
        for s in stored
    ]
    try:
        # One multi-row INSERT per chunk: a single statement either lands or fails whole
        # (no driver pipeline left to abort), and stays under SQLite's variable limit.
        for start in range(0, len(rows), IDS_CHUNK):
            conn.execute(t.events.insert().values(rows[start : start + IDS_CHUNK]))
    except IntegrityError as exc:
        raise ConcurrencyConflict(
            f"game {stored[0].game_id} changed meanwhile (event {stored[0].seq} already "
            "exists): look again and retry"
        ) from exc


def sign_head(conn: Connection, keys: KeyRing, appended: Sequence[StoredEvent]) -> None:
    """Sign the head `appended` leads to, over a head signed by a known key (signed_heads)."""
    first, last = appended[0], appended[-1]
    sign_appended_head(conn, keys, last.game_id, first.seq - 1, first.prev_hash, last.seq, last.hash)

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
#: Every column of a games row: those a summary sets (games_values), the head, when it began and last moved.
_GAMES_COLUMNS = ("game_id, status, players, bots, turn, hand_number, dealer, created_at, last_activity, winner, "
                  "head_seq, head_hash, protected, move_deadline, turn_key, awaiting, open_seats, rematch_of, "
                  "result, creation")
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
