"""Appending to the log: new events hashed into the chain, or exported records kept verbatim.

Either way the games row, the snapshot and the head signature move in the same unit of work
as the events. `append` is optimistic: `expected_seq` is the seq of the last event the
caller saw (0 for a new game); if someone appended since, ConcurrencyConflict and nothing
is written. With `expected_hash` it takes the lean path (command_append.py): one statement on PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from scat_core.domain.events import to_record
from scat_core.records.errors import ConcurrencyConflict
from scat_core.records.games import GameSummary
from scat_core.records.signing import KeyRing, StoredSignature, sealed_snapshot
from scat_core.records.stored_log import GENESIS_HASH, StoredEvent, canonical_json, chain_hash_raw, utc_now
from scat_core.store.sql import tables as t
from scat_core.store.sql.command_append import Row, append_after_head
from scat_core.store.sql.games_list import games_values, put_snapshot, update_games_row
from scat_core.store.sql.log_reads import IDS_CHUNK, head
from scat_core.store.sql.signed_heads import (
    UNREAD,
    KnownHeads,
    lean_signature_params,
    sign_appended_head,
    signature_for_append,
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
